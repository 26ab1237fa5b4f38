import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../src/formats/anthropic.js';
import { openaiAdapter } from '../../src/formats/openai.js';
import { jsonl, parseWith } from '../helpers/record.js';

const fixture = (name: string) => fs.readFileSync(path.resolve(__dirname, '../../fixtures/anthropic', name), 'utf8');

describe('anthropic adapter', () => {
  it('thinking is text, redacted_thinking is opaque, empty thinking with a signature is opaque', () => {
    const doc = {
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'plan it', signature: 's1' },
            { type: 'redacted_thinking', data: 'EqQBCgIYAhIM' },
            { type: 'thinking', thinking: '', signature: 's2' },
            { type: 'text', text: 'done' },
          ],
        },
      ],
    };
    const { sessions } = parseWith(anthropicAdapter, JSON.stringify(doc), { mode: 'document' });
    const [round] = sessions[0]!.rounds;
    expect(round!.thinking).toEqual([
      { text: 'plan it', opaque: false },
      { text: null, opaque: true },
      { text: null, opaque: true },
    ]);
    expect(round!.text).toBe('done');
  });

  it('a user message of only tool_result blocks answers the round and is not a turn', () => {
    const { sessions } = parseWith(anthropicAdapter, fixture('calm-rename.json'), { mode: 'document', path: 'calm-rename.json' });
    const s = sessions[0]!;
    expect(s.info.id).toBe('calm-rename');
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => r.calls.map((c) => c.name))).toEqual([['read_file'], ['edit_file', 'grep'], []]);
    expect(s.rounds[1]!.answers).toEqual([
      { content: 'ok', isError: false },
      { content: 'no matches', isError: false },
    ]);
    expect(s.rounds[1]!.calls[0]!.arguments).toEqual({ path: 'utils.py', old: 'def fmt_ts(', new: 'def format_timestamp(' });
  });

  it('reads the looping fixture: the same failing deploy five times, is_error answers, usage, model', () => {
    const { sessions } = parseWith(anthropicAdapter, fixture('looping-deploy.json'), { mode: 'document', path: 'looping-deploy.json' });
    const s = sessions[0]!;
    expect(s.rounds).toHaveLength(6);
    const deploys = s.rounds.slice(0, 5);
    expect(deploys.every((r) => r.calls[0]!.name === 'deploy' && r.answers![0]!.isError)).toBe(true);
    expect(s.rounds[0]!.usage).toEqual({ inputTokens: 1200, outputTokens: 90, reasoningTokens: null });
    expect(s.rounds[0]!.model).toBe('claude-sonnet-4-5');
    expect(s.rounds[1]!.thinking).toEqual([{ text: null, opaque: true }]);
  });

  it('an unanswered tool_use gives null answers; tool_result blocks with content lists flatten to text', () => {
    const msgs = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'a', input: {} }, { type: 'tool_use', id: 't2', name: 'b', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'x' }, { type: 'text', text: 'y' }] }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't3', name: 'a', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't3', content: [{ type: 'text', text: 'x' }, { type: 'text', text: 'y' }] }] },
    ];
    const { sessions } = parseWith(anthropicAdapter, JSON.stringify(msgs), { mode: 'document' });
    expect(sessions[0]!.rounds.map((r) => r.answers)).toEqual([null, [{ content: 'x\ny', isError: false }]]);
  });

  it('server tools answer inside the assistant message; usage sums cached input', () => {
    const line = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-1',
      content: [
        { type: 'server_tool_use', id: 'srv1', name: 'web_search', input: { query: 'x' } },
        { type: 'web_search_tool_result', tool_use_id: 'srv1', content: [{ type: 'web_search_result', title: 'X', url: 'https://x' }] },
        { type: 'text', text: 'found it' },
      ],
      usage: { input_tokens: 10, cache_read_input_tokens: 90, cache_creation_input_tokens: 5, output_tokens: 7 },
    };
    const { sessions } = parseWith(anthropicAdapter, jsonl([{ role: 'user', content: 'search' }, line]));
    const [round] = sessions[0]!.rounds;
    expect(round!.calls[0]!.name).toBe('web_search');
    expect(round!.answers![0]!.isError).toBe(false);
    expect(round!.usage).toEqual({ inputTokens: 105, outputTokens: 7, reasoningTokens: null, cacheReadTokens: 90, cacheWriteTokens: 5 });
    expect(round!.model).toBe('claude-opus-4-1');
  });

  it('JSONL with one conversation per line gives one session per line', () => {
    const conv = { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [{ type: 'text', text: 'b' }] }] };
    const { sessions } = parseWith(anthropicAdapter, jsonl([conv, conv]), { path: 'x/batch.jsonl' });
    expect(sessions.map((s) => s.info.id)).toEqual(['batch:1', 'batch:2']);
  });

  it('is told apart from OpenAI by its blocks', () => {
    const probe = {
      mode: 'document' as const,
      fileName: 'a.json',
      value: JSON.parse(fixture('calm-rename.json')) as unknown,
    };
    expect(anthropicAdapter.detect(probe)).toBeGreaterThan(openaiAdapter.detect(probe));
    const oa = {
      mode: 'jsonl' as const,
      fileName: 'a.jsonl',
      records: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }],
    };
    expect(anthropicAdapter.detect(oa)).toBe(0);
    // A top-level system prompt beside messages is the Messages API's request shape.
    const req = { mode: 'document' as const, fileName: 'r.json', value: { system: 'be brief', messages: [{ role: 'user', content: 'hi' }] } };
    expect(anthropicAdapter.detect(req)).toBeGreaterThan(openaiAdapter.detect(req));
  });

  it('never throws on odd shapes', () => {
    const text = ['7', '{"role":"assistant","content":[null,{"type":"tool_use"},{"type":"thinking"}]}', '{"role":"user","content":[{"type":"tool_result"}]}'].join('\n');
    const { sessions, skipped } = parseWith(anthropicAdapter, text);
    expect(skipped.map((s) => s.line)).toEqual([1]);
    expect(sessions[0]!.rounds[0]!.calls).toEqual([{ id: null, name: 'unknown', arguments: null }]);
  });
});
