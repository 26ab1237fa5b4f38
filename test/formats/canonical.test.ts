import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { canonicalAdapter } from '../../src/formats/canonical.js';
import { toCanonicalRecords } from './canonical-records.js';
import { anthropicAdapter } from '../../src/formats/anthropic.js';
import { chatgptAdapter } from '../../src/formats/chatgpt.js';
import { geminiAdapter } from '../../src/formats/gemini.js';
import { openaiAdapter } from '../../src/formats/openai.js';
import type { FormatAdapter } from '../../src/formats/types.js';
import type { Round } from '../../src/model/transcript.js';
import { jsonl, parseWith } from '../helpers/record.js';

const fixturesDir = path.resolve(__dirname, '../../fixtures');
const read = (rel: string) => fs.readFileSync(path.join(fixturesDir, rel), 'utf8');

describe('canonical adapter', () => {
  it('reads sessions by header, rounds, thinking, usage, answers; header model is the default', () => {
    const { sessions } = parseWith(canonicalAdapter, read('canonical/sessions.jsonl'), { path: 'sessions.jsonl' });
    expect(sessions.map((s) => [s.info.id, s.turns.length, s.rounds.length, s.ended])).toEqual([
      ['canon-calm', 1, 2, true],
      ['canon-chanting', 2, 4, true],
    ]);
    const [calm, chanting] = sessions;
    expect(calm!.rounds[0]).toMatchObject({
      line: 3,
      calls: [{ id: 'c1', name: 'list_dir', arguments: { path: '.' } }],
      answers: [{ content: 'README.md\nsrc\npackage.json', isError: false }],
      usage: { inputTokens: 320, outputTokens: 14, reasoningTokens: 0 },
      model: 'example-model-1',
      timestamp: '2026-04-01T08:00:01Z',
    });
    expect(chanting!.rounds[1]!.thinking).toEqual([{ text: null, opaque: true }]);
    expect(new Set(chanting!.rounds.map((r) => r.text)).size).toBe(1);
  });

  it('without a header the file is one session named after it; meta user lines are not turns', () => {
    const text = jsonl([
      { type: 'user', text: 'injected', meta: true },
      { type: 'user', text: 'real' },
      { type: 'assistant', text: 'a', tool_calls: [{ id: null, name: 'f', arguments: '{"raw": string kept' }] },
      { type: 'tool_result', id: null, content: ['x', { text: 'y' }], is_error: true },
      { type: 'future_kind', anything: 1 },
    ]);
    const { sessions, skipped } = parseWith(canonicalAdapter, text, { path: 'dir/conv.jsonl' });
    expect(skipped).toEqual([]);
    expect(sessions.map((s) => s.info.id)).toEqual(['conv']);
    expect(sessions[0]!.turns).toEqual([1]);
    expect(sessions[0]!.rounds[0]!.calls[0]!.arguments).toBe('{"raw": string kept');
    expect(sessions[0]!.rounds[0]!.answers).toEqual([{ content: 'x\ny', isError: true }]);
  });

  it('a header names the parent of a sub-agent session', () => {
    const text = jsonl([
      { type: 'session', schema: 'loopledger-canonical/1', id: 'main' },
      { type: 'user', text: 'go' },
      { type: 'session', schema: 'loopledger-canonical/1', id: 'main/agent-1', parent: 'main' },
      { type: 'user', text: 'sub task' },
    ]);
    const { sessions } = parseWith(canonicalAdapter, text);
    expect(sessions.map((s) => s.info.parent)).toEqual([null, 'main']);
  });

  describe('round-trip: any adapter → canonical records → canonical adapter gives the same transcript', () => {
    const cases: [FormatAdapter, string][] = [
      [openaiAdapter, 'openai/calm-weather.json'],
      [openaiAdapter, 'openai/looping-leap-day.jsonl'],
      [openaiAdapter, 'openai/conversations.jsonl'],
      [anthropicAdapter, 'anthropic/looping-deploy.json'],
      [anthropicAdapter, 'anthropic/calm-rename.json'],
      [geminiAdapter, 'gemini/session-2026-03-02T10-15-6f1c2d3e.jsonl'],
      [geminiAdapter, 'gemini/session-2026-03-01T09-00-9a8b7c6d.json'],
      [geminiAdapter, 'gemini/checkpoint-refactor.json'],
      [chatgptAdapter, 'chatgpt/conversations.json'],
      [canonicalAdapter, 'canonical/sessions.jsonl'],
    ];
    const strip = (rounds: Round[]) => rounds.map(({ line: _line, ...rest }) => rest);
    for (const [adapter, rel] of cases) {
      it(rel, () => {
        const mode = rel.endsWith('.json') ? 'document' : 'jsonl';
        const original = parseWith(adapter, read(rel), { mode, path: rel });
        const records = original.sessions.flatMap((s) => toCanonicalRecords(s.info, s.turns.length, s.rounds));
        const again = parseWith(canonicalAdapter, jsonl(records), { path: 'roundtrip.jsonl' });
        expect(canonicalAdapter.detect({ mode: 'jsonl', fileName: 'roundtrip.jsonl', records: records.slice(0, 30) })).toBe(1);
        expect(again.sessions.map((s) => [s.info.id, s.info.parent, s.turns])).toEqual(
          original.sessions.map((s) => [s.info.id, s.info.parent, s.turns]),
        );
        again.sessions.forEach((s, i) => expect(strip(s.rounds)).toEqual(strip(original.sessions[i]!.rounds)));
      });
    }
  });

  it('usage: cache_read, cache_write and cache_write_1h are parts of input, never more than it', () => {
    const text = jsonl([
      { type: 'session', schema: 'loopledger-canonical/1', id: 'c' },
      { type: 'user', text: 'go' },
      { type: 'assistant', text: 'a', usage: { input: 1000, output: 10, reasoning: null, cache_read: 600, cache_write: 100, cache_write_1h: 50 } },
      { type: 'assistant', text: 'b', usage: { input: 100, output: 10, cache_read: 90, cache_write: 40 } },
    ]);
    const { sessions } = parseWith(canonicalAdapter, text, { path: 'c.jsonl' });
    expect(sessions[0]!.rounds.map((r) => r.usage)).toEqual([
      { inputTokens: 1000, outputTokens: 10, reasoningTokens: null, cacheReadTokens: 600, cacheWriteTokens: 100, cacheWrite1hTokens: 50 },
      // 90 read leaves 10 of the prompt that can have been written
      { inputTokens: 100, outputTokens: 10, reasoningTokens: null, cacheReadTokens: 90, cacheWriteTokens: 10 },
    ]);
  });

  it('detection: a schema header is certain; bare canonical records score below it; other formats score 0', () => {
    const probe = (records: unknown[]) => ({ mode: 'jsonl' as const, fileName: 'x.jsonl', records });
    expect(canonicalAdapter.detect(probe([{ type: 'session', schema: 'loopledger-canonical/1' }]))).toBe(1);
    expect(canonicalAdapter.detect(probe([{ type: 'user', text: 'a' }, { type: 'assistant', text: 'b' }]))).toBe(0.7);
    // Claude Code, Codex and Gemini records share type user/assistant but not the shape
    expect(canonicalAdapter.detect(probe([{ type: 'user', uuid: 'u', sessionId: 's', message: { role: 'user', content: 'x' } }]))).toBe(0);
    expect(canonicalAdapter.detect(probe([{ type: 'response_item', payload: {} }]))).toBe(0);
    expect(canonicalAdapter.detect(probe([{ id: 'u1', type: 'user', content: [{ text: 'x' }] }]))).toBe(0);
    expect(canonicalAdapter.detect({ mode: 'document', fileName: 'x.json', value: { type: 'user', text: 'x' } })).toBe(0);
  });

  it('never throws on odd shapes', () => {
    const text = ['1', '{"type":"assistant","thinking":[null,5,{"text":3}],"tool_calls":[null,{}],"usage":{"input":"x"}}', '{"type":"tool_result"}'].join('\n');
    const { sessions, skipped } = parseWith(canonicalAdapter, text);
    expect(skipped.map((s) => s.line)).toEqual([1]);
    expect(sessions[0]!.rounds[0]!.thinking).toEqual([{ text: null, opaque: true }]);
  });
});

describeWith('jq', 'the jq conversion in docs/canonical-format.md', () => {
  it('turns an OpenAI message array into canonical records that read the same as the openai adapter reads it', () => {
    const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/canonical-format.md'), 'utf8');
    const program = /```jq\n([\s\S]*?)```/.exec(doc)![1]!;
    const source = read('openai/looping-leap-day.jsonl');
    const messages = JSON.stringify(source.trim().split('\n').map((l) => JSON.parse(l) as unknown));
    const out = spawnSync('jq', ['-c', '--arg', 'id', 'looping-leap-day', program], { input: messages, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    const converted = parseWith(canonicalAdapter, out.stdout, { path: 'converted.jsonl' });
    const native = parseWith(openaiAdapter, source, { path: 'looping-leap-day.jsonl' });
    const strip = (rounds: Round[]) => rounds.map(({ line: _line, ...rest }) => rest);
    expect(converted.sessions[0]!.info.id).toBe('looping-leap-day');
    expect(converted.sessions[0]!.turns).toEqual(native.sessions[0]!.turns);
    expect(strip(converted.sessions[0]!.rounds)).toEqual(strip(native.sessions[0]!.rounds));
  });
});

describe('canonical: an empty session id or parent names nothing', () => {
  it('falls back to the file name and no parent', () => {
    const text = jsonl([
      { type: 'session', schema: 'loopledger-canonical/1', id: '', parent: '' },
      { type: 'user', text: 'go' },
      { type: 'assistant', text: 'done' },
    ]);
    const { sessions } = parseWith(canonicalAdapter, text, { path: 'runs/empty-id.jsonl' });
    expect(sessions.map((s) => [s.info.id, s.info.parent])).toEqual([['empty-id', null]]);
  });
});
