import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openaiAdapter } from '../../src/formats/openai.js';
import { anthropicAdapter } from '../../src/formats/anthropic.js';
import { jsonl, parseWith } from '../helpers/record.js';

const fixture = (name: string) => fs.readFileSync(path.resolve(__dirname, '../../fixtures/openai', name), 'utf8');

const user = (content: string) => ({ role: 'user', content });
const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });

describe('openai adapter', () => {
  it('keeps a malformed arguments string raw instead of failing', () => {
    const { sessions, skipped } = parseWith(
      openaiAdapter,
      jsonl([
        user('go'),
        { role: 'assistant', content: null, tool_calls: [call('c1', 'shell', '{"cmd": "ls"'), call('c2', 'shell', '{"cmd":"pwd"}')] },
        { role: 'tool', tool_call_id: 'c1', content: 'bad args' },
        { role: 'tool', tool_call_id: 'c2', content: '/repo' },
      ]),
    );
    expect(skipped).toEqual([]);
    const [round] = sessions[0]!.rounds;
    expect(round!.calls.map((c) => c.arguments)).toEqual(['{"cmd": "ls"', { cmd: 'pwd' }]);
    expect(round!.answers).toEqual([
      { content: 'bad args', isError: false },
      { content: '/repo', isError: false },
    ]);
  });

  it('does not recurse into deeply nested arguments', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const { sessions } = parseWith(openaiAdapter, jsonl([user('x'), { role: 'assistant', tool_calls: [call('c1', 'f', deep)] }]));
    // Parsed or kept raw, the value is handed on untouched and nothing walks it.
    expect(sessions[0]!.rounds[0]!.calls).toHaveLength(1);
  });

  describe('containers', () => {
    const messages = [user('hi'), { role: 'assistant', content: 'hello' }, user('bye'), { role: 'assistant', content: 'ciao' }];

    it('a JSON array of messages is one session named after the file', () => {
      const { sessions } = parseWith(openaiAdapter, JSON.stringify(messages, null, 2), { mode: 'document', path: 'chats/a.json' });
      expect(sessions.map((s) => s.info.id)).toEqual(['a']);
      expect(sessions[0]!.turns).toEqual([1, 2]);
      expect(sessions[0]!.rounds.map((r) => r.text)).toEqual(['hello', 'ciao']);
    });

    it('{"messages": [...]} is one session, its model applied to the rounds', () => {
      const doc = JSON.stringify({ model: 'gpt-4o', messages });
      const { sessions } = parseWith(openaiAdapter, doc, { mode: 'document', path: 'b.json' });
      expect(sessions).toHaveLength(1);
      expect(sessions[0]!.rounds.map((r) => r.model)).toEqual(['gpt-4o', 'gpt-4o']);
    });

    it('a logged request/response pair appends the response as the last round with its usage', () => {
      const log = {
        request: { model: 'gpt-4o', messages: [user('2+2?')] },
        response: {
          model: 'gpt-4o-2024-08-06',
          created: 1767225600,
          choices: [{ index: 0, message: { role: 'assistant', content: '4' } }],
          usage: { prompt_tokens: 10, completion_tokens: 1, completion_tokens_details: { reasoning_tokens: 0 } },
        },
      };
      const { sessions } = parseWith(openaiAdapter, JSON.stringify(log), { mode: 'document' });
      const [round] = sessions[0]!.rounds;
      expect(round!.text).toBe('4');
      expect(round!.model).toBe('gpt-4o-2024-08-06');
      expect(round!.usage).toEqual({ inputTokens: 10, outputTokens: 1, reasoningTokens: 0 });
      expect(round!.timestamp).toBe('2026-01-01T00:00:00.000Z');
    });

    it('JSONL with one conversation per line: each line its own session, id from file name and line', () => {
      const text = jsonl([{ messages }, messages]);
      const { sessions } = parseWith(openaiAdapter, text, { path: 'logs/convs.jsonl' });
      expect(sessions.map((s) => s.info.id)).toEqual(['convs:1', 'convs:2']);
      expect(sessions.every((s) => s.ended && s.rounds.length === 2)).toBe(true);
      expect(sessions[1]!.rounds[0]!.line).toBe(2);
    });

    it('JSONL with one message per line: the whole file is one session with source lines', () => {
      const { sessions } = parseWith(openaiAdapter, jsonl(messages), { path: 'm.jsonl' });
      expect(sessions.map((s) => s.info.id)).toEqual(['m']);
      expect(sessions[0]!.rounds.map((r) => [r.turn, r.line])).toEqual([
        [1, 2],
        [2, 4],
      ]);
    });
  });

  it('reads reasoning_content, reasoning (string or object) and encrypted reasoning_details as thinking', () => {
    const { sessions } = parseWith(
      openaiAdapter,
      jsonl([
        user('q'),
        { role: 'assistant', content: 'a', reasoning_content: 'think 1' },
        { role: 'assistant', content: 'b', reasoning: 'think 2' },
        { role: 'assistant', content: 'c', reasoning: { summary: [{ type: 'summary_text', text: 'think 3' }] } },
        {
          role: 'assistant',
          content: 'd',
          reasoning: 'duplicate of the details',
          reasoning_details: [{ type: 'reasoning.text', text: 'think 4' }, { type: 'reasoning.encrypted', data: 'xyz' }],
        },
      ]),
    );
    expect(sessions[0]!.rounds.map((r) => r.thinking)).toEqual([
      [{ text: 'think 1', opaque: false }],
      [{ text: 'think 2', opaque: false }],
      [{ text: 'think 3', opaque: false }],
      [
        { text: 'think 4', opaque: false },
        { text: null, opaque: true },
      ],
    ]);
  });

  it('answers legacy function_call by the next function message, and a call left unanswered gives null answers', () => {
    const { sessions } = parseWith(
      openaiAdapter,
      jsonl([
        user('q'),
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"k":1}' } },
        { role: 'function', name: 'lookup', content: 'v' },
        { role: 'assistant', content: null, tool_calls: [call('c9', 'lookup', '{}')] },
        user('never mind'),
      ]),
    );
    const [first, second] = sessions[0]!.rounds;
    expect(first!.calls).toEqual([{ id: null, name: 'lookup', arguments: { k: 1 } }]);
    expect(first!.answers).toEqual([{ content: 'v', isError: false }]);
    expect(second!.answers).toBeNull();
    expect(sessions[0]!.turns).toEqual([1, 2]);
  });

  it('system and developer messages are not turns; usage carries reasoning tokens', () => {
    const { sessions } = parseWith(openaiAdapter, fixture('looping-leap-day.jsonl'), { path: 'looping-leap-day.jsonl' });
    const s = sessions[0]!;
    expect(s.turns).toEqual([1]);
    expect(s.rounds).toHaveLength(7);
    expect(s.rounds[0]!.usage).toEqual({ inputTokens: 880, outputTokens: 64, reasoningTokens: 31 });
    // The loop: the same run_tests call (keys in another order) answered by the same failure.
    const runs = s.rounds.slice(2, 6);
    expect(runs.every((r) => r.calls[0]!.name === 'run_tests' && r.answers![0]!.content.includes('1 failed'))).toBe(true);
  });

  it('reads the calm fixture and the per-conversation fixture', () => {
    const calm = parseWith(openaiAdapter, fixture('calm-weather.json'), { mode: 'document', path: 'calm-weather.json' });
    expect(calm.sessions[0]!.rounds.map((r) => r.calls.length)).toEqual([1, 0, 0]);
    expect(calm.sessions[0]!.turns).toEqual([1, 2]);
    const convs = parseWith(openaiAdapter, fixture('conversations.jsonl'), { path: 'conversations.jsonl' });
    expect(convs.sessions.map((s) => [s.info.id, s.rounds.length])).toEqual([
      ['conversations:1', 1],
      ['conversations:2', 4],
    ]);
  });

  it('never throws on odd shapes: primitives are reported, unknown objects skipped quietly', () => {
    const text = ['42', '"text"', '{"role":"assistant","content":{"weird":true},"tool_calls":[null,{"function":null}]}', '{"meta":1}'].join('\n');
    const { sessions, skipped } = parseWith(openaiAdapter, text);
    expect(skipped.map((s) => s.line)).toEqual([1, 2]);
    expect(sessions[0]!.rounds[0]!.calls).toEqual([{ id: null, name: 'unknown', arguments: null }]);
  });

  it('detects OpenAI by tool_calls / tool role and leaves Anthropic blocks alone', () => {
    const oa = { mode: 'jsonl' as const, fileName: 'x.jsonl', records: [user('a'), { role: 'assistant', tool_calls: [call('c', 'f', '{}')] }] };
    expect(openaiAdapter.detect(oa)).toBeGreaterThan(anthropicAdapter.detect(oa));
    const an = {
      mode: 'document' as const,
      fileName: 'x.json',
      value: { messages: [user('a'), { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }] },
    };
    expect(openaiAdapter.detect(an)).toBe(0);
    const plain = { mode: 'document' as const, fileName: 'x.json', value: [user('a'), { role: 'assistant', content: 'b' }] };
    expect(openaiAdapter.detect(plain)).toBeGreaterThan(anthropicAdapter.detect(plain));
    expect(openaiAdapter.detect({ mode: 'jsonl', fileName: 'x', records: [{ type: 'user', message: { role: 'user', content: 'x' } }] })).toBe(0);
  });
});
