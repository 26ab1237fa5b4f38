// Cline's messages.json (fixtures/cline, modelled on the recording in fixtures/agents/cline-3.0.65;
// where the halt notice sits is modelled on the display-only error Cline wrote in a failed run):
// a command's `success: false` as its failure, Cline's `[SYSTEM]` re-prompt as no user turn, a
// display-only notice as no model response, and Cline's own guard at five identical calls kept
// as an agent halt (evidence of a loop, not a tool answer).

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli } from '../cli/helpers.js';

interface Session {
  format: string;
  agent?: string;
  turns: number;
  rounds: number;
  tool_calls: number;
  usage: Record<string, number>;
  entries: { round: number; kind: string; after_stop: boolean }[];
  agent_halts?: { turn: number; round: number; reason: string }[];
}

let session: Session;
beforeAll(async () => {
  ensureBuilt();
  const r = await runCli(['analyze', join(ROOT, 'fixtures/cline/loop-halt.messages.json'), '--format', 'json']);
  expect(r.stderr).toBe('');
  const report = JSON.parse(r.stdout);
  expect(report.sessions).toHaveLength(1);
  session = report.sessions[0];
});

describe('format cline', () => {
  it('one turn (the [SYSTEM] re-prompt is Cline\'s, not the user\'s) of five rounds; the display-only notice is no round', () => {
    expect([session.format, session.agent, session.turns, session.rounds, session.tool_calls]).toEqual(['cline', 'cline', 1, 5, 5]);
  });

  it('the same failing command (success false) is a repeated batch, noted at 2 and stopped at 3', () => {
    const verdicts = session.entries.filter((e) => !e.after_stop).map((e) => `${e.round} ${e.kind}`);
    expect(verdicts.slice(0, 2)).toEqual(['2 repeated_batch', '3 repeated_batch']);
  });

  it('keeps Cline\'s own guard halting the run as an agent halt after the fifth call', () => {
    expect(session.agent_halts).toEqual([{ turn: 1, round: 5, reason: 'cline loop detection' }]);
  });

  it('reads the prompt whole: metrics\' input leaves out cache reads and writes', () => {
    expect(session.usage).toMatchObject({ requests: 5, cache_read_tokens: 20000, cache_write_tokens: 500, output_tokens: 75 });
  });
});
