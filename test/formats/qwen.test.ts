// Qwen Code's chat JSONL (fixtures/qwen, modelled on the recording in fixtures/agents/qwen-0.24.4):
// a failure read from toolCallResult (status, exit code), Qwen's own loop guard halting the run kept
// as an agent halt (evidence of a loop, not a tool answer), a cancelled call as the user's interrupt,
// usage from usageMetadata with thoughts billed as output.

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli } from '../cli/helpers.js';
import type { SessionLedger } from '../../src/ledger/types.js';

type Session = SessionLedger;

let session: Session;
beforeAll(async () => {
  ensureBuilt();
  const r = await runCli(['analyze', join(ROOT, 'fixtures/qwen/halt-cancel.jsonl'), '--format', 'json']);
  expect(r.stderr).toBe('');
  const report = JSON.parse(r.stdout);
  expect(report.sessions).toHaveLength(1);
  session = report.sessions[0];
});

describe('format qwen', () => {
  it('reads the chat as Qwen Code\'s, with its working directory', () => {
    expect([session.format, session.agent, session.project, session.turns, session.rounds, session.tool_calls]).toEqual(['qwen', 'qwen', '/home/me/app', 2, 5, 5]);
  });

  it('the same build failing (status error, exit code 2) is a repeated batch', () => {
    expect(session.entries.some((e) => e.kind === 'repeated_batch' && e.round === 2)).toBe(true);
  });

  it('keeps Qwen\'s own loop halt as an agent halt of the round it stopped, not as an answer or a finding', () => {
    expect(session.agent_halts).toEqual([{ turn: 1, round: 4, reason: 'qwen loop detection' }]);
    expect(session.tool_calls).toBe(5);
  });

  it('reads the cancelled call as the user\'s interrupt', () => {
    expect(session.interrupts).toMatchObject([{ turn: 2, round: 5 }]);
  });

  it('bills thoughts as output and keeps the cached part of the prompt', () => {
    expect(session.usage).toMatchObject({ requests: 5, output_tokens: 4 * 20 + 12, reasoning_tokens: 20, cache_read_tokens: 8000 });
  });
});
