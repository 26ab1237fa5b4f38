// Droid's session JSONL (fixtures/droid/subagent-build.jsonl, modelled on the recording in
// fixtures/agents/droid-0.225.2): failures read from `is_error` (a non-zero exit), Droid's own
// user messages (the tool list, its "You repeated identical tool calls 3 times" reminder) read as
// no user turn, a worker session linked to the session that started it (`parent`).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';
import type { SessionLedger } from '../../src/ledger/types.js';

type Session = SessionLedger;

let session: Session;
let ignored: Record<string, number>;
beforeAll(async () => {
  ensureBuilt();
  const r = await runCli(['analyze', join(ROOT, 'fixtures/droid/subagent-build.jsonl'), '--format', 'json']);
  expect(r.stderr).toBe('');
  const report = JSON.parse(r.stdout);
  expect(report.sessions).toHaveLength(1);
  session = report.sessions[0];
  ignored = report.inputs[0].ignored;
});

describe('format droid', () => {
  it('reads the session as Droid\'s, with its working directory and the session it works for', () => {
    expect([session.format, session.agent, session.project, session.parent]).toEqual(['droid', 'droid', '/home/me/app', 'droid-lead']);
  });

  it('one turn: the tool list and the repeated-call reminder Droid writes as user messages are no turn', () => {
    expect([session.turns, session.rounds, session.tool_calls]).toEqual([1, 5, 4]);
    expect(ignored).toEqual({ 'system reminder': 2, agent_turn_outcome: 1 });
  });

  it('the build failing three times (is_error, exit code 2) is a repeated batch, noted at 2 and stopped at 3', () => {
    expect(session.entries.map((e) => `${e.round} ${e.kind} ${e.intervention.enforce}`)).toEqual(['2 repeated_batch noted', '3 repeated_batch stop']);
  });

  it('takes its times from the records', () => {
    expect(session.started_at).toBe('2026-11-21T10:00:01.000Z');
  });

  it('a session with hooks installed: Droid\'s records of each hook run (hookEventName, no content) are no user turn', async () => {
    const tmp = scratch('loopledger-droid-hooks-');
    try {
      // As Droid 0.225.2 writes them: after each assistant message, the PreToolUse run's record.
      const lines = readFileSync(join(ROOT, 'fixtures/droid/subagent-build.jsonl'), 'utf8').split('\n').filter(Boolean);
      const hooked = lines.flatMap((l, i) => {
        const r = JSON.parse(l) as { type: string; id?: string; message?: { role?: string } };
        if (r.type !== 'message' || r.message?.role !== 'assistant') return [l];
        const run = { type: 'message', id: `hook-${i}`, parentId: r.id, message: { role: 'user', content: [], visibility: 'user_only', hookEventName: 'PreToolUse', hookMatcher: 'Execute', hookCommands: [{ type: 'command', command: 'loopledger hook droid', timeout: 5 }], hookStatus: 'completed', hookResults: [{ exitCode: 0, stdout: '', stderr: '' }] } };
        return [l, JSON.stringify(run)];
      });
      const r = await runCli(['analyze', tmp.write('hooked.jsonl', `${hooked.join('\n')}\n`), '--format', 'json']);
      const s = (JSON.parse(r.stdout) as { sessions: Session[] }).sessions[0]!;
      expect([s.turns, s.rounds, s.tool_calls]).toEqual([1, 5, 4]);
      expect(s.entries.map((e) => `${e.round} ${e.kind} ${e.intervention.enforce}`)).toEqual(['2 repeated_batch noted', '3 repeated_batch stop']);
    } finally {
      tmp.cleanup();
    }
  });
});
