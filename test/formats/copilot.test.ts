// GitHub Copilot CLI's events.jsonl (fixtures/copilot, modelled on the recording in
// fixtures/agents/copilot-1.0.102): failure read from the exit code where `success` is true, a
// hook's denial (`success: false`) as a failed answer, a sub-agent's events (`parentToolCallId`)
// as a child session, the user's abort as an interrupt, usage from `session.usage_record`.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import type { TranscriptSink } from '../../src/model/transcript.js';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';
import type { SessionLedger } from '../../src/ledger/types.js';

type Session = SessionLedger;

let sessions: Session[];
let failedAnswers: number;
beforeAll(async () => {
  ensureBuilt();
  const file = join(ROOT, 'fixtures/copilot/events-denied-subagent-abort.jsonl');
  const r = await runCli(['analyze', file, '--format', 'json']);
  expect(r.stderr).toBe('');
  sessions = JSON.parse(r.stdout).sessions;
  // Each answer's error flag as the reader set it.
  failedAnswers = 0;
  const sink: TranscriptSink = { session() {}, turn() {}, end() {}, round: (_id, round) => void (failedAnswers += (round.answers ?? []).filter((a) => a.isError).length) };
  await ingestFile(file, sink);
});

describe('format copilot', () => {
  it('reads the session with its project, and the sub-agent\'s events as a child session', () => {
    expect(sessions.map((s) => [s.id, s.agent, s.parent, s.project, s.rounds, s.tool_calls])).toEqual([
      ['5a1f0c2e-0000-4000-8000-000000000001', 'copilot', null, '/home/me/app', 3, 3],
      ['5a1f0c2e-0000-4000-8000-000000000001/call_task', 'copilot', '5a1f0c2e-0000-4000-8000-000000000001', '/home/me/app', 1, 1],
    ]);
  });

  it('a denied call (success false) and a command that exited 1 under success true are both failures', () => {
    expect(failedAnswers).toBe(2);
  });

  it('takes each request\'s usage from the usage record before its message, cache reads inside the prompt', () => {
    expect(sessions[0]!.usage).toMatchObject({ requests: 2, cache_read_tokens: 1500, output_tokens: 55, tokens: 4155 });
  });

  it('reads the user\'s abort as an interrupt of the round that ran', () => {
    expect(sessions[0]!.interrupts).toMatchObject([{ turn: 1, round: 3 }]);
  });
});

// The live guard's steer in Copilot CLI 1.0.102 is a postToolUse `additionalContext`, which Copilot
// appends to the result it stores: read back, the answers are the command's own, as the guard read
// them on stdin, so the same failing call steered along the way is still the same answer.
describe('format copilot: a postToolUse hook\'s guidance in a stored result', () => {
  const tmp = scratch('loopledger-copilot-guidance-');
  afterAll(() => tmp.cleanup());

  async function verdicts(guidance: boolean): Promise<string[]> {
    const session = '5a1f0c2e-0000-4000-8000-00000000000' + (guidance ? '2' : '3');
    const dir = join(tmp.dir, 'session-state', session);
    mkdirSync(dir, { recursive: true });
    const event = (type: string, data: object) => JSON.stringify({ type, data, id: `e-${type}-${Math.random()}`, timestamp: '2026-12-07T03:45:28.389Z', parentId: null });
    const lines = [event('session.start', { sessionId: session, producer: 'copilot-agent', copilotVersion: '1.0.102', context: { cwd: '/w' } }), event('user.message', { content: 'Read the file.' })];
    for (let i = 0; i < 3; i++) {
      const args = { command: 'cat missing.txt', description: 'read' };
      lines.push(event('assistant.message', { messageId: `m${i}`, model: 'mock-model', content: '', toolRequests: [{ toolCallId: `call_${i}`, name: 'bash', arguments: args }] }));
      const text = `cat: missing.txt: No such file or directory\n<shellId: ${i} completed with exit code 1>` + (guidance ? '\n\nTool "bash" succeeded. Additional guidance from postToolUse hooks:\nLoop detection: your tool calls shows a repeating pattern (same_error).' : '');
      lines.push(event('tool.execution_complete', { toolCallId: `call_${i}`, success: true, result: { content: text }, shellExecution: { exitCode: 1 } }));
    }
    writeFileSync(join(dir, 'events.jsonl'), lines.join('\n') + '\n');
    const r = await runCli(['analyze', join(dir, 'events.jsonl'), '--format', 'json']);
    return (JSON.parse(r.stdout).sessions[0].entries as { round: number; kind: string }[]).map((e) => `round ${e.round} ${e.kind}`);
  }

  it('is passed over: the same failing call answers the same, guidance or not', async () => {
    const plain = await verdicts(false);
    expect(plain).toContain('round 3 repeated_batch');
    expect(await verdicts(true)).toEqual(plain);
  });
});
