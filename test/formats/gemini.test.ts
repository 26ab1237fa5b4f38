import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiAdapter } from '../../src/formats/gemini.js';
import { TranscriptBuilder } from '../../src/model/builder.js';
import { jsonl, parseWith, RecordingSink } from '../helpers/record.js';

const fixture = (name: string) => fs.readFileSync(path.resolve(__dirname, '../../fixtures/gemini', name), 'utf8');

const meta = { sessionId: 'sess-1', projectHash: 'abc', startTime: '2026-01-01T00:00:00Z', lastUpdated: '2026-01-01T00:00:00Z', kind: 'main' };
const userRec = (id: string, text: string) => ({ id, timestamp: '2026-01-01T00:00:01Z', type: 'user', content: [{ text }] });
const shell = (id: string, command: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: 'run_shell_command',
  args: { command },
  status: 'executing',
  ...extra,
});
const result = (id: string, output: string) => [{ functionResponse: { id, name: 'run_shell_command', response: { output } } }];

describe('gemini adapter', () => {
  describe('legacy JSON session', () => {
    it('reads messages, thoughts, tool calls with their results and tokens (thoughts = reasoning)', () => {
      const { sessions } = parseWith(geminiAdapter, fixture('session-2026-03-01T09-00-9a8b7c6d.json'), {
        mode: 'document',
        path: 'session-2026-03-01T09-00-9a8b7c6d.json',
      });
      const s = sessions[0]!;
      expect(s.info.id).toBe('9a8b7c6d-1111-4222-8333-944455556666');
      // info notices and the /stats slash command are not turns
      expect(s.turns).toEqual([1, 2]);
      expect(s.rounds.map((r) => r.turn)).toEqual([1, 1, 2]);
      const [first] = s.rounds;
      expect(first!.thinking).toEqual([{ text: 'Reading the entry point\nOpen app.py to answer precisely.', opaque: false }]);
      expect(first!.calls).toEqual([{ id: 'read_file-1', name: 'read_file', arguments: { absolute_path: '/work/app.py' } }]);
      expect(first!.answers).toEqual([{ content: 'def main():\n    serve(port=8080)\n', isError: false }]);
      // Google bills thoughts as output: 18 + 40.
      expect(first!.usage).toEqual({ inputTokens: 4100, outputTokens: 58, reasoningTokens: 40, cacheReadTokens: 0 });
      expect(first!.model).toBe('gemini-2.5-flash');
    });
  });

  describe('JSONL session with $set records', () => {
    it('the last copy of a message id wins', () => {
      const text = jsonl([
        meta,
        userRec('u1', 'build it'),
        { $set: { lastUpdated: 'x' } },
        { id: 'g1', type: 'gemini', content: '', toolCalls: [shell('c1', 'npm run build')] },
        { id: 'g1', type: 'gemini', content: '', tokens: { input: 5, output: 2, thoughts: 9 }, toolCalls: [shell('c1', 'npm run build')] },
        {
          id: 'g1',
          type: 'gemini',
          content: 'built',
          tokens: { input: 5, output: 2, thoughts: 9 },
          toolCalls: [shell('c1', 'npm run build', { status: 'success', result: result('c1', 'ok') })],
        },
        { $set: { lastUpdated: 'y' } },
      ]);
      const { sessions } = parseWith(geminiAdapter, text, { path: 'chats/session-x.jsonl' });
      const s = sessions[0]!;
      expect(s.info.id).toBe('sess-1');
      expect(s.rounds).toHaveLength(1);
      const [round] = s.rounds;
      expect(round!.text).toBe('built');
      expect(round!.answers).toEqual([{ content: 'ok', isError: false }]);
      expect(round!.usage).toEqual({ inputTokens: 5, outputTokens: 11, reasoningTokens: 9 });
      // the round starts where the message first appeared
      expect(round!.line).toBe(4);
    });

    it('two whole documents with the same session id, one per line, are two sessions, neither lost', () => {
      // Found by test/robustness/cli.property.test.ts: the second one's events went to the ended first
      // session ("event for unknown or ended session; ignored") and its messages were dropped.
      const doc = (text: string) => ({ sessionId: 'same', messages: [{ type: 'user', content: text }, { type: 'gemini', content: `re: ${text}` }] });
      const { sessions } = parseWith(geminiAdapter, jsonl([doc('first'), doc('second')]), { path: 'chats/session-x.jsonl' });
      expect(sessions.map((x) => x.info.id)).toEqual(['same', 'same#2']);
      expect(sessions.map((x) => x.rounds.map((r) => r.text))).toEqual([['re: first'], ['re: second']]);
    });

    it('a call still executing in the last copy has unknown answers', () => {
      const text = jsonl([meta, userRec('u1', 'go'), { id: 'g1', type: 'gemini', content: '', toolCalls: [shell('c1', 'sleep 100')] }]);
      const { sessions } = parseWith(geminiAdapter, text);
      expect(sessions[0]!.rounds[0]!.answers).toBeNull();
    });

    it('streams with one message of look-ahead: a round is released when another id arrives', () => {
      const sink = new RecordingSink();
      const builder = new TranscriptBuilder(sink, 'chats/s.jsonl', 'gemini');
      const parser = geminiAdapter.open({ path: 'chats/s.jsonl', builder, skip: () => {} });
      const rounds = () => sink.sessions[0]?.rounds.length ?? 0;
      parser.push(meta, 1);
      parser.push(userRec('u1', 'go'), 2);
      parser.push({ id: 'g1', type: 'gemini', content: 'a' }, 3);
      parser.push({ id: 'g1', type: 'gemini', content: 'a, rewritten' }, 4);
      expect(rounds()).toBe(0); // g1 may still be rewritten
      parser.push({ id: 'g2', type: 'gemini', content: 'b' }, 5);
      expect(rounds()).toBe(1);
      // Gemini CLI never rewrites an older message; if something does, the released round stands.
      parser.push({ id: 'g1', type: 'gemini', content: 'late copy' }, 6);
      parser.end();
      builder.end();
      expect(sink.sessions[0]!.rounds.map((r) => r.text)).toEqual(['a, rewritten', 'b']);
    });

    it('$set.messages (context rewrite) and $rewindTo do not erase rounds that happened', () => {
      const text = jsonl([
        meta,
        userRec('u1', 'one'),
        { id: 'g1', type: 'gemini', content: 'first answer' },
        { $set: { messages: [{ id: 's', type: 'user', content: '<state_snapshot>summary</state_snapshot>' }] } },
        { $rewindTo: 'u1' },
        userRec('u2', 'two'),
        { id: 'g2', type: 'gemini', content: 'second answer' },
      ]);
      const { sessions } = parseWith(geminiAdapter, text);
      expect(sessions[0]!.rounds.map((r) => [r.turn, r.text])).toEqual([
        [1, 'first answer'],
        [2, 'second answer'],
      ]);
    });

    it('reads the looping fixture: the same failing build four times', () => {
      const { sessions } = parseWith(geminiAdapter, fixture('session-2026-03-02T10-15-6f1c2d3e.jsonl'));
      const s = sessions[0]!;
      expect(s.rounds).toHaveLength(5);
      const builds = s.rounds.slice(0, 4);
      expect(builds.every((r) => r.calls[0]!.name === 'run_shell_command' && r.answers![0]!.isError)).toBe(true);
      expect(new Set(builds.map((r) => JSON.stringify(r.calls[0]!.arguments))).size).toBe(1);
      expect(builds.map((r) => r.line)).toEqual([4, 8, 12, 16]);
    });

    it('a sub-agent recording names the parent session from its folder', () => {
      const text = jsonl([{ ...meta, sessionId: 'child-1', kind: 'subagent' }, userRec('u', 'task'), { id: 'g', type: 'gemini', content: 'ok' }]);
      const { sessions } = parseWith(geminiAdapter, text, { path: '/h/.gemini/tmp/p/chats/parent-9/child-1.jsonl' });
      expect(sessions[0]!.info).toMatchObject({ id: 'parent-9/child-1', parent: 'parent-9' });
    });
  });

  describe('/chat save checkpoint', () => {
    it('user/model contents: the setup preamble is not a turn, functionResponse parts answer, thought parts are thinking', () => {
      const { sessions } = parseWith(geminiAdapter, fixture('checkpoint-refactor.json'), { mode: 'document', path: 'checkpoint-refactor.json' });
      const s = sessions[0]!;
      expect(s.info.id).toBe('checkpoint-refactor');
      expect(s.turns).toEqual([1, 2]);
      expect(s.rounds).toHaveLength(3);
      const tool = s.rounds[1]!;
      expect(tool.thinking).toEqual([{ text: 'A grep over src for TODO will find them.', opaque: false }]);
      expect(tool.calls).toEqual([{ id: 'grep-1', name: 'search_file_content', arguments: { pattern: 'TODO', path: 'src' } }]);
      expect(tool.answers![0]!.content).toContain('src/a.ts:12');
    });

    it('responses without ids find their call by name; {history: [...]} is accepted', () => {
      const doc = {
        history: [
          { role: 'user', parts: [{ text: 'go' }] },
          { role: 'model', parts: [{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'b', response: { error: 'boom' } } }, { functionResponse: { name: 'a', response: { output: 'fine' } } }] },
        ],
      };
      const { sessions } = parseWith(geminiAdapter, JSON.stringify(doc), { mode: 'document' });
      expect(sessions[0]!.turns).toEqual([1]);
      expect(sessions[0]!.rounds[0]!.answers).toEqual([
        { content: 'fine', isError: false },
        { content: 'boom', isError: true },
      ]);
    });
  });

  it('detects all three layouts and not other formats', () => {
    const doc = (value: unknown) => ({ mode: 'document' as const, fileName: 'f.json', value });
    expect(geminiAdapter.detect(doc(JSON.parse(fixture('session-2026-03-01T09-00-9a8b7c6d.json'))))).toBe(1);
    expect(geminiAdapter.detect(doc(JSON.parse(fixture('checkpoint-refactor.json'))))).toBeGreaterThanOrEqual(0.9);
    expect(geminiAdapter.detect({ mode: 'jsonl', fileName: 'f.jsonl', records: [meta] })).toBeGreaterThanOrEqual(0.9);
    expect(geminiAdapter.detect(doc([{ role: 'user', content: 'x' }, { role: 'assistant', content: 'y' }]))).toBe(0);
    expect(geminiAdapter.detect({ mode: 'jsonl', fileName: 'f.jsonl', records: [{ type: 'user', sessionId: 's', uuid: 'u', message: {} }] })).toBe(0);
    expect(geminiAdapter.detect({ mode: 'jsonl', fileName: 'f.jsonl', records: [{ type: 'user', text: 'hi' }] })).toBe(0);
  });

  it('never throws on odd shapes', () => {
    const text = ['5', JSON.stringify(meta), '{"id":"g","type":"gemini","toolCalls":[null,{"result":[null,{"functionResponse":null}]}],"thoughts":[1,{}]}'].join('\n');
    const { sessions, skipped } = parseWith(geminiAdapter, text);
    expect(skipped.map((s) => s.line)).toEqual([1]);
    expect(sessions[0]!.rounds[0]!.calls).toEqual([{ id: null, name: 'unknown', arguments: null }]);
  });
});
