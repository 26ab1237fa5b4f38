// Cline's messages.json (fixtures/cline, modelled on the recording in fixtures/agents/cline-3.0.65;
// where the halt notice sits is modelled on the display-only error Cline wrote in a failed run):
// a command's `success: false` as its failure, Cline's `[SYSTEM]` re-prompt as no user turn, a
// display-only notice as no model response, and Cline's own guard at five identical calls kept
// as an agent halt (evidence of a loop, not a tool answer).

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';
import type { SessionLedger } from '../../src/ledger/types.js';

type Session = SessionLedger;

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

// Cline 3.0.65 stores a hook's `context` (the live guard's steer) as a user message of its own
// (`<hook_context source="PostToolUse" …>`, displayRole system), seen in a live run: it is part of
// the turn it steers, so steers left unheeded add up in that turn as offline as live.
describe('format cline: a hook\'s context', () => {
  const tmp = scratch('loopledger-cline-context-');
  afterAll(() => tmp.cleanup());

  it('is no user turn', async () => {
    const context = (id: string) => ({ id: `c${id}`, role: 'user', content: [{ type: 'text', text: `<hook_context source="PostToolUse" tool_name="run__commands" tool_call_id="${id}">\nLoop detection: your visible output shows a repeating pattern.\n</hook_context>` }], metadata: { userRunSpan: 0, displayRole: 'system' } });
    const messages: object[] = [{ id: 'u', role: 'user', content: [{ type: 'text', text: 'Read the file.' }] }];
    for (const id of ['call_1', 'call_2', 'call_3']) {
      messages.push({ id: `a${id}`, role: 'assistant', content: [{ type: 'text', text: 'Checking again.' }, { type: 'tool_use', id, name: 'run_commands', input: { commands: [`echo ${id}`] } }] });
      messages.push({ id: `r${id}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: id, name: 'run_commands', content: [{ query: `echo ${id}`, result: id, success: true }] }] });
      messages.push(context(id));
    }
    const file = tmp.write('s.messages.json', JSON.stringify({ version: 1, agent: 'cline', sessionId: 's', messages, system_prompt: 'You are Cline.' }));
    const r = await runCli(['analyze', file, '--format', 'json']);
    expect(JSON.parse(r.stdout).sessions[0]).toMatchObject({ turns: 1, rounds: 3 });
  });
});
