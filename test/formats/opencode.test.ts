// OpenCode's sessions as `opencode export` writes them (fixtures/opencode, modelled on the
// recording in fixtures/agents/opencode-1.18.33): each step a round, a shell command's exit code
// as its failure, a child session (the task tool's) linked to its parent, the user's Esc
// (MessageAbortedError) as an interrupt, and OpenCode's token split made whole.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';
import type { SessionLedger } from '../../src/ledger/types.js';

const FIXTURE = join(ROOT, 'fixtures/opencode/export-subagent-interrupt.json');

type Session = SessionLedger;

let sessions: Session[];
beforeAll(async () => {
  ensureBuilt();
  const r = await runCli(['analyze', FIXTURE, '--format', 'json']);
  expect(r.stderr).toBe('');
  sessions = JSON.parse(r.stdout).sessions;
});

describe('format opencode', () => {
  it('reads each session of the export, with its agent and project', () => {
    expect(sessions.map((s) => [s.id, s.format, s.agent, s.project])).toEqual([
      ['ses_parent01', 'opencode', 'opencode', '/home/me/app'],
      ['ses_child01', 'opencode', 'opencode', '/home/me/app'],
    ]);
  });

  it('links the task tool\'s child session to its parent', () => {
    expect(sessions.map((s) => s.parent)).toEqual([null, 'ses_parent01']);
  });

  it('counts a step as a round: two steps of one assistant message are two rounds', () => {
    const child = sessions[1]!;
    expect({ turns: child.turns, rounds: child.rounds, calls: child.tool_calls, requests: child.usage!.requests }).toEqual({ turns: 1, rounds: 2, calls: 1, requests: 2 });
  });

  it('makes the prompt whole: OpenCode\'s input leaves out cache reads and writes, its output the reasoning', () => {
    // Step 1: 800 + 1200 read; step 2: 900 + 2000 read + 100 written. Output 40 + 10 reasoning, 30.
    expect(sessions[0]!.usage).toMatchObject({ requests: 2, cache_read_tokens: 3200, cache_write_tokens: 100, output_tokens: 80, reasoning_tokens: 10, tokens: 5080 });
  });

  it('keeps the cost OpenCode recorded beside the list price', () => {
    expect(sessions[0]!.recorded_cost).toEqual({ usd: 0.0223, source: 'message.cost' });
  });

  it('reads the user\'s Esc (MessageAbortedError, a call "aborted") as one interrupt of the round that ran', () => {
    expect(sessions[0]!.interrupts).toMatchObject([{ turn: 1, round: 3 }]);
    expect(sessions[1]!.interrupts ?? []).toEqual([]);
  });
});

describe('format opencode: the same export twice in one array', () => {
  it('is read once, the copy named as skipped: the same ledger as the export alone, and no other word on stderr', async () => {
    const tmp = scratch('loopledger-opencode-');
    try {
      const exports = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown[];
      const twice = tmp.write('twice.json', JSON.stringify([exports[0], ...exports]));
      const r = await runCli(['analyze', twice, '--format', 'json']);
      expect(r.stderr).toBe(`${twice}:-: OpenCode session ses_parent01 again: read from its first copy\n`);
      const report = JSON.parse(r.stdout) as { sessions: Session[] };
      const strip = (s: Session) => ({ ...s, path: '' });
      expect(report.sessions.map(strip)).toEqual(sessions.map(strip));
    } finally {
      tmp.cleanup();
    }
  });
});
