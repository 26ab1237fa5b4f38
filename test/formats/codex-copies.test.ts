// Codex writes each response's reasoning and text twice (event_msg and response_item); in the
// 0.3x rollouts the events and the token_count come before the items (issue 54, item 2). Each
// response must be read once, with its own usage, from the first model call of the file on.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { codexAdapter } from '../../src/formats/codex.js';
import { jsonl, parseWith } from '../helpers/record.js';
import { ensureBuilt } from '../cli/helpers.js';

// It runs or reads the build: the build of src/ as it is now, even when this file runs alone.
beforeAll(() => ensureBuilt());

const repoRoot = path.resolve(import.meta.dirname, '../..');
const env = (type: string, payload: unknown) => ({ timestamp: '2025-09-19T09:02:27.915Z', type, payload });
const meta = env('session_meta', { id: '01996135-afde-7911-97f0-d863511eca56', cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.39.0' });
const user = (text: string) => env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const say = (text: string) => env('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const reason = (text: string) => env('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text }], content: null });
const call = (id: string, command: string) => env('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', command] }), call_id: id });
const out = (id: string, output: string) => env('response_item', { type: 'function_call_output', call_id: id, output: JSON.stringify({ output, metadata: { exit_code: 0 } }) });
const sayEvent = (message: string) => env('event_msg', { type: 'agent_message', message });
const reasonEvent = (text: string) => env('event_msg', { type: 'agent_reasoning', text });
const tokens = (output: number) =>
  env('event_msg', { type: 'token_count', info: { last_token_usage: { input_tokens: 1000 + output, cached_input_tokens: 0, output_tokens: output, reasoning_output_tokens: 0 } } });

/** One response the 0.3x way: its event copies, its token_count, then its items. */
const response039 = (n: number, thought: string, text: string) => [
  reasonEvent(thought),
  sayEvent(text),
  tokens(n),
  reason(thought),
  say(text),
  call(`c${n}`, `cat file${n}.txt`),
  out(`c${n}`, `contents of file ${n}`),
];

const records = [meta, user('read the three files'), ...response039(11, '**Reading file one**', 'Reading the first file.'), ...response039(22, '**Reading file two**', 'Now the second.'), ...response039(33, '**Reading file three**', 'And the third.'), reasonEvent('**Done**'), sayEvent('All read.'), tokens(44), reason('**Done**'), say('All read.')];

describe('codex: a response written as events, token_count, then items is one round', () => {
  it('the first model call of the file is one round with one thinking block, and each round keeps its own usage', () => {
    const rounds = parseWith(codexAdapter, jsonl(records)).sessions[0]!.rounds;
    expect(rounds.map((r) => r.text)).toEqual(['Reading the first file.', 'Now the second.', 'And the third.', 'All read.']);
    expect(rounds.map((r) => r.thinking.map((b) => b.text))).toEqual([['**Reading file one**'], ['**Reading file two**'], ['**Reading file three**'], ['**Done**']]);
    expect(rounds.map((r) => r.usage?.outputTokens)).toEqual([11, 22, 33, 44]);
    expect(rounds.map((r) => r.calls.length)).toEqual([1, 1, 1, 0]);
  });

  it('through the CLI: no thinking_stagnation and no finding at all on four different rounds', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'codex-copies-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'rollout-2025-09-19T09-02-12-01996135-afde-7911-97f0-d863511eca56.jsonl');
    writeFileSync(file, jsonl(records));
    const run = spawnSync(process.execPath, ['bin/loopledger.js', file, '--format', 'json'], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, XDG_CONFIG_HOME: dir, LOOPLEDGER_CONFIG: '' } });
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as { sessions: { rounds: number; entries: { kind: string }[] }[] };
    expect(report.sessions[0]!.rounds).toBe(4);
    expect(report.sessions[0]!.entries.map((e) => e.kind)).toEqual([]);
  });
});

const recording = path.resolve(repoRoot, '../shared/recordings/real/codex/vct_codex.jsonl');
describeWith('shared-recordings', 'codex 0.39 recording (vct_codex.jsonl): each response once', () => {
  it('the rounds carry the assistant items’ texts in order, once each, and the token_counts in order', () => {
    const lines = readFileSync(recording, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const records = lines.map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    // Counted from the file itself: every assistant response_item message, every token_count with figures.
    const itemTexts = records
      .filter((r) => r.type === 'response_item' && r.payload.type === 'message' && r.payload.role === 'assistant')
      .map((r) => (r.payload.content as { text: string }[]).map((c) => c.text).join('\n'));
    const outputs = records
      .filter((r) => r.type === 'event_msg' && r.payload.type === 'token_count' && r.payload.info)
      .map((r) => ((r.payload.info as Record<string, Record<string, number>>).last_token_usage!).output_tokens);
    const rounds = parseWith(codexAdapter, lines.join('\n')).sessions[0]!.rounds;
    expect(rounds.map((r) => r.text).filter((t) => t !== '')).toEqual(itemTexts);
    expect(rounds.map((r) => r.usage?.outputTokens ?? null).filter((n) => n !== null)).toEqual(outputs);
  });
});
