// GitHub Copilot CLI's events.jsonl (fixtures/copilot, modelled on the recording in
// fixtures/agents/copilot-1.0.102): failure read from the exit code where `success` is true, a
// hook's denial (`success: false`) as a failed answer, a sub-agent's events (`parentToolCallId`)
// as a child session, the user's abort as an interrupt, usage from `session.usage_record`.

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import type { TranscriptSink } from '../../src/model/transcript.js';
import { ensureBuilt, ROOT, runCli } from '../cli/helpers.js';

interface Session {
  id: string;
  agent?: string;
  parent: string | null;
  project: string | null;
  rounds: number;
  tool_calls: number;
  usage: Record<string, number>;
  interrupts?: { turn: number; round: number }[];
}

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
