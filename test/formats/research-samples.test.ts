// The real transcripts in ../shared/research-samples, read end to end (reader, detection,
// adapter) when the folder exists. They are not the project's and are never copied into it.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { ingestFile } from '../../src/formats/ingest.js';
import { RecordingSink } from '../helpers/record.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const samples = path.resolve(repoRoot, '../shared/research-samples');

async function read(rel: string) {
  const sink = new RecordingSink();
  const summary = await ingestFile(path.join(samples, rel), sink);
  const byId = new Map(sink.sessions.map((s) => [s.info.id, s]));
  return { summary, sessions: sink.sessions, byId };
}

const calls = (s: { rounds: { calls: unknown[] }[] }) => s.rounds.reduce((n, r) => n + r.calls.length, 0);

const ccDir = path.join(samples, 'claude-code');
describeWith('research-samples', 'research samples: claude-code', () => {
  const MAIN = 'c45af7b1-cb7c-4e51-93db-8cbb250a877a';

  it('every file is detected as claude-code and read without malformed lines', async () => {
    for (const f of readdirSync(ccDir).sort()) {
      const { summary } = await read(`claude-code/${f}`);
      expect(summary.format, f).toBe('claude-code');
      expect(summary.error, f).toBeUndefined();
      expect(summary.skipped, f).toEqual([]);
    }
  });

  it('fasthooks main transcript: 10 tool calls in 12 rounds (lines sharing message.id), 5 turns', async () => {
    const { sessions } = await read('claude-code/oneryalcin_fasthooks_sample_main_transcript.jsonl');
    expect(sessions).toHaveLength(1);
    const s = sessions[0]!;
    expect(s.info).toMatchObject({ id: MAIN, parent: null, format: 'claude-code' });
    expect(s.rounds).toHaveLength(12);
    expect(calls(s)).toBe(10);
    // real prompts only: the compact summary, the isMeta caveat, /compact and its stdout are not turns
    expect(s.turns).toEqual([1, 2, 3, 4, 5]);
    // the parallel batches: Write+Write and Read+Bash+Bash under one message id each
    expect(s.rounds.map((r) => r.calls.map((c) => c.name).join('+')).filter((b) => b.includes('+'))).toEqual(['Write+Write', 'Read+Bash+Bash']);
    expect(s.rounds.flatMap((r) => r.answers ?? []).filter((a) => a.isError)).toHaveLength(2);
    expect(s.rounds.every((r) => r.answers !== null)).toBe(true);
    expect(s.rounds.every((r) => r.thinking.length === 1 && !r.thinking[0]!.opaque)).toBe(true);
    expect(s.rounds.every((r) => r.model === 'claude-haiku-4-5-20251001' && r.usage?.reasoningTokens === null)).toBe(true);
  });

  it('fasthooks sidechain file: its own session naming the main session as parent', async () => {
    const { sessions } = await read('claude-code/oneryalcin_fasthooks_sample_agent_sidechain.jsonl');
    expect(sessions.map((s) => [s.info.id, s.info.parent])).toEqual([[`${MAIN}/agent-af1ff21`, MAIN]]);
    expect(sessions[0]!.turns).toEqual([1]); // the "Warmup" prompt
    expect(sessions[0]!.rounds).toHaveLength(1);
  });

  it('agent-sessions 2.1.x fixture: dozens of side record types skipped quietly, the conversation read', async () => {
    const { sessions, byId } = await read('claude-code/jazzyalex_agent-sessions_claude_small.jsonl');
    expect(sessions.map((s) => [s.info.id, s.info.parent])).toEqual([
      ['ses_stage0_small/sidechain', 'ses_stage0_small'],
      ['ses_stage0_small', null],
      ['[trimmed for fixture]', null],
    ]);
    const side = byId.get('ses_stage0_small/sidechain')!;
    // the compact summary is not a turn; three assistant lines without message.id are three rounds
    expect(side.turns).toEqual([1]);
    expect(side.rounds.map((r) => r.text)).toEqual(["I'll list files.", 'Done.', 'Partial reply']);
    const main = byId.get('ses_stage0_small')!;
    expect(main.rounds[0]!.answers).toEqual([{ content: 'a.txt\nb.txt\n', isError: false }]);
    // the queued_command attachment in prompt mode is the user stepping in: a second turn
    expect(main.turns).toEqual([1, 2]);
    // the <synthetic> API-error line is no round; the `fallback` block adds nothing
    const trimmed = byId.get('[trimmed for fixture]')!;
    expect(trimmed.rounds.every((r) => r.model !== '<synthetic>')).toBe(true);
    expect(calls(trimmed)).toBe(1);
  });
});

const codexDir = path.join(samples, 'codex');
describeWith('research-samples', 'research samples: codex', () => {
  it('every file is detected as codex and read without malformed lines', async () => {
    for (const f of readdirSync(codexDir).sort()) {
      const { summary } = await read(`codex/${f}`);
      expect(summary.format, f).toBe('codex');
      expect(summary.error, f).toBeUndefined();
      expect(summary.skipped, f).toEqual([]);
    }
  });

  it('agent-sessions 0.146 rollout: the first thread read once, the trimmed sub-threads as one more session', async () => {
    const { sessions, byId } = await read('codex/jazzyalex_agent-sessions_codex_small.jsonl');
    // Every later session_meta carries the same trimmed id (and names itself as parent), so
    // they are one thread, not its own child.
    expect(sessions.map((s) => [s.info.id, s.info.parent])).toEqual([
      ['019fc8be-3658-7ca3-9e29-000000000000', null],
      ['[trimmed for fixture]', null],
    ]);
    const first = byId.get('019fc8be-3658-7ca3-9e29-000000000000')!;
    // the user message logged as event_msg and response_item is one turn
    expect(first.turns).toEqual([1]);
    expect(first.rounds).toHaveLength(2);
    const [batch, reply] = first.rounds;
    expect(batch!.calls.map((c) => c.name)).toEqual(['shell', 'shell', 'tool_search', 'web_search']);
    // custom_tool_call keeps its free-text input; function_call arguments are parsed
    expect(batch!.calls[0]!.arguments).toBe('{"command":["ls"]}');
    expect(batch!.calls[1]!.arguments).toEqual({ command: ['ls'] });
    // the hosted web search never returns an item: the batch's answers are unknown
    expect(batch!.answers).toBeNull();
    expect(batch!.usage).toEqual({ inputTokens: 16341, outputTokens: 81, reasoningTokens: 63, cacheReadTokens: 3584 });
    expect(batch!.thinking).toHaveLength(1); // reasoning logged twice, counted once
    expect(reply!.text).toBe('Found 2 files.'); // agent_message logged twice, counted once
    expect(batch!.model).toBe('gpt-5.6-luna');
  });
});
