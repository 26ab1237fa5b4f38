import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatgptAdapter } from '../../src/formats/chatgpt.js';
import { parseWith } from '../helpers/record.js';

const fixture = (name: string) => fs.readFileSync(path.resolve(__dirname, '../../fixtures/chatgpt', name), 'utf8');

interface Msg {
  role: string;
  text?: string;
  recipient?: string;
  name?: string;
  content?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** A conversation whose mapping is a chain of `msgs` (plus optional extra nodes). */
function chain(id: string, msgs: Msg[], extra: Record<string, unknown> = {}, current?: string) {
  const mapping: Record<string, { id: string; message: unknown; parent: string | null; children: string[] }> = {
    root: { id: 'root', message: null, parent: null, children: [] },
  };
  let prev = 'root';
  msgs.forEach((m, i) => {
    const nid = `n${i}`;
    mapping[prev]!.children.push(nid);
    mapping[nid] = {
      id: nid,
      parent: prev,
      children: [],
      message: {
        id: nid,
        author: { role: m.role, name: m.name ?? null, metadata: {} },
        create_time: 1767225600 + i,
        content: m.content ?? { content_type: 'text', parts: [m.text ?? ''] },
        metadata: m.metadata ?? {},
        recipient: m.recipient ?? 'all',
      },
    };
    prev = nid;
  });
  Object.assign(mapping, extra);
  return { title: id, conversation_id: id, mapping, current_node: current ?? prev };
}

describe('chatgpt adapter', () => {
  it('one file, many conversations: one session each, id from conversation_id (or id)', () => {
    const convs = [
      chain('c-1', [{ role: 'user', text: 'a' }, { role: 'assistant', text: 'b' }]),
      { ...chain('ignored', [{ role: 'user', text: 'c' }, { role: 'assistant', text: 'd' }]), conversation_id: undefined, id: 'c-2' },
      chain('c-3', [{ role: 'user', text: 'e' }]),
    ];
    const { sessions } = parseWith(chatgptAdapter, JSON.stringify(convs, null, 2), { mode: 'document', path: 'conversations.json' });
    expect(sessions.map((s) => [s.info.id, s.turns.length, s.rounds.length, s.ended])).toEqual([
      ['c-1', 1, 1, true],
      ['c-2', 1, 1, true],
      ['c-3', 1, 0, true],
    ]);
  });

  it('reads the path up from current_node: a branch off the path is ignored', () => {
    const { sessions } = parseWith(chatgptAdapter, fixture('conversations.json'), { mode: 'document', path: 'conversations.json' });
    const calm = sessions[0]!;
    expect(calm.info.id).toBe('6a0c1f2e-0000-4000-8000-00000000c0a1');
    expect(calm.rounds.map((r) => r.text)).not.toContain('Leaves fall (a first draft that was regenerated).');
    expect(calm.turns).toEqual([1, 2]);
    // thoughts, recap and answer are one response: one round with its thinking
    expect(calm.rounds).toHaveLength(2);
    expect(calm.rounds[1]!.thinking).toEqual([{ text: 'Seasonal imagery\nUse snow and stillness, 5-7-5.', opaque: false }]);
    expect(calm.rounds[1]!.model).toBe('o3');
  });

  it('choosing another current_node follows that branch instead', () => {
    const conv = chain('c', [{ role: 'user', text: 'q' }, { role: 'assistant', text: 'new' }], {
      alt: {
        id: 'alt',
        parent: 'n0',
        children: [],
        message: { id: 'alt', author: { role: 'assistant' }, content: { content_type: 'text', parts: ['old'] }, recipient: 'all' },
      },
    }, 'alt');
    const { sessions } = parseWith(chatgptAdapter, JSON.stringify([conv]), { mode: 'document' });
    expect(sessions[0]!.rounds.map((r) => r.text)).toEqual(['old']);
  });

  it('an assistant message whose recipient is not "all" is a tool call, answered by the next tool message', () => {
    const { sessions } = parseWith(chatgptAdapter, fixture('conversations.json'), { mode: 'document' });
    const looping = sessions[1]!;
    expect(looping.rounds).toHaveLength(5);
    const runs = looping.rounds.slice(0, 4);
    for (const r of runs) {
      expect(r.calls).toHaveLength(1);
      expect(r.calls[0]!.name).toBe('python');
      expect(r.calls[0]!.arguments).toContain("groupby('region')");
      expect(r.answers).toEqual([{ content: expect.stringContaining("KeyError: 'revenue'"), isError: true }]);
    }
    expect(looping.rounds[4]!.calls).toEqual([]);
  });

  it('JSON tool arguments are parsed; hidden, system and blank messages are not turns or rounds; a call without a tool reply is unknown', () => {
    const conv = chain('c', [
      { role: 'system', text: '' },
      { role: 'assistant', text: '' },
      { role: 'user', text: 'ctx', metadata: { is_visually_hidden_from_conversation: true } },
      { role: 'user', content: { content_type: 'user_editable_context', user_profile: 'x' } },
      { role: 'user', text: 'look it up' },
      { role: 'assistant', recipient: 'web.run', text: '{"search_query":[{"q":"x"}]}' },
      { role: 'tool', name: 'web.run', text: 'results' },
      { role: 'assistant', recipient: 'bio', text: 'remember this' },
    ]);
    const { sessions } = parseWith(chatgptAdapter, JSON.stringify(conv), { mode: 'document' });
    const s = sessions[0]!;
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => r.calls)).toEqual([
      [{ id: 'n5', name: 'web.run', arguments: { search_query: [{ q: 'x' }] } }],
      [{ id: 'n7', name: 'bio', arguments: 'remember this' }],
    ]);
    expect(s.rounds.map((r) => r.answers)).toEqual([[{ content: 'results', isError: false }], null]);
  });

  it('survives a cycle in the mapping and a dangling parent', () => {
    const conv = {
      id: 'cyc',
      current_node: 'b',
      mapping: {
        a: { id: 'a', parent: 'b', children: ['b'], message: { id: 'a', author: { role: 'user' }, content: { content_type: 'text', parts: ['hi'] } } },
        b: { id: 'b', parent: 'a', children: ['a'], message: { id: 'b', author: { role: 'assistant' }, content: { content_type: 'text', parts: ['yo'] } } },
      },
    };
    const dangling = { id: 'dang', mapping: { x: { id: 'x', parent: 'missing', children: [], message: null } } };
    const { sessions } = parseWith(chatgptAdapter, JSON.stringify([conv, dangling]), { mode: 'document' });
    expect(sessions.map((s) => [s.info.id, s.rounds.length])).toEqual([
      ['cyc', 1],
      ['dang', 0],
    ]);
  });

  it('detects conversations.json and nothing else', () => {
    const value = JSON.parse(fixture('conversations.json')) as unknown;
    expect(chatgptAdapter.detect({ mode: 'document', fileName: 'conversations.json', value })).toBe(1);
    expect(chatgptAdapter.detect({ mode: 'document', fileName: 'x.json', value: [{ role: 'user', content: 'x' }] })).toBe(0);
    expect(chatgptAdapter.detect({ mode: 'jsonl', fileName: 'x.jsonl', records: [{ type: 'user', text: 'x' }] })).toBe(0);
  });

  it('never throws on odd shapes', () => {
    const { sessions, skipped } = parseWith(chatgptAdapter, JSON.stringify([1, { mapping: { a: null, b: { message: { author: null, content: null } } } }]), {
      mode: 'document',
    });
    expect(skipped).toHaveLength(1);
    expect(sessions).toHaveLength(1);
  });

  // An export copied into itself (or joined from backups) repeats conversation ids: each copy is
  // its own session, numbered on. Finding the next free number by counting up from #2 made a file
  // of n copies cost n² (40 MB of them: 12 s, 4 s of it in that count; 200 MB: 640 s).
  it('20,000 conversations with one id: every one a session, numbered #2… in order, in linear time', () => {
    const one = chain('same', [{ role: 'user', text: 'a' }, { role: 'assistant', text: 'b' }]);
    const started = performance.now();
    const { sessions } = parseWith(chatgptAdapter, JSON.stringify(Array.from({ length: 20_000 }, () => one)), { mode: 'document', path: 'conversations.json' });
    const seconds = (performance.now() - started) / 1000;
    expect(sessions.map((s) => s.info.id)).toEqual(['same', ...Array.from({ length: 19_999 }, (_, i) => `same#${i + 2}`)]);
    // Counted up from #2 each time this was 200 million lookups; linear, well under a second.
    expect(seconds).toBeLessThan(10);
  });
});
