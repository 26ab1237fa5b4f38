import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../../src/formats/claude-code.js';
import { codexAdapter } from '../../src/formats/codex.js';
import { jsonl, parseWith } from '../helpers/record.js';

const SID = '3d9f6a21-8c4e-4b17-9e02-5a7c1f8b6d40';
const repoRoot = path.resolve(import.meta.dirname, '../..');

// Minimal Claude Code records, shaped like the real ones (one content block per line).
function user(content: unknown, extra: Record<string, unknown> = {}) {
  return { parentUuid: null, isSidechain: false, userType: 'external', sessionId: SID, type: 'user', message: { role: 'user', content }, uuid: `u-${Math.random()}`, timestamp: '2026-01-05T10:00:00.000Z', ...extra };
}
function assistant(id: string, block: unknown, extra: Record<string, unknown> = {}, usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 5 }) {
  return { parentUuid: null, isSidechain: false, userType: 'external', sessionId: SID, type: 'assistant', message: { model: 'claude-sonnet-4-5', id, type: 'message', role: 'assistant', content: [block], usage }, requestId: `req-${id}`, uuid: `a-${Math.random()}`, timestamp: '2026-01-05T10:00:01.000Z', ...extra };
}
const toolUse = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input });
const toolResult = (id: string, content: unknown, isError = false) => user([{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }]);

function parse(records: unknown[], filePath?: string) {
  return parseWith(claudeCodeAdapter, jsonl(records), filePath ? { path: filePath } : {});
}

describe('claude-code adapter', () => {
  it('one line per content block: lines sharing message.id are one round', () => {
    const { sessions } = parse([
      user('list the files and show the readme'),
      assistant('msg_1', { type: 'thinking', thinking: 'Two calls at once.', signature: 'x' }),
      assistant('msg_1', { type: 'text', text: 'Looking.' }),
      assistant('msg_1', toolUse('t1', 'Bash', { command: 'ls' })),
      assistant('msg_1', toolUse('t2', 'Read', { file_path: 'README.md' })),
      toolResult('t1', 'README.md'),
      toolResult('t2', '# hi'),
      assistant('msg_2', { type: 'text', text: 'Done.' }),
    ]);
    expect(sessions).toHaveLength(1);
    const rounds = sessions[0]!.rounds;
    expect(rounds).toHaveLength(2);
    expect(rounds[0]!.calls.map((c) => c.name)).toEqual(['Bash', 'Read']);
    expect(rounds[0]!.text).toBe('Looking.');
    expect(rounds[0]!.thinking).toEqual([{ text: 'Two calls at once.', opaque: false }]);
    expect(rounds[0]!.line).toBe(2);
    expect(rounds[1]!.text).toBe('Done.');
  });

  it('usage repeated on every line of a round is one request at the largest usage seen, never the sum (SPEC)', () => {
    const { sessions } = parse([
      user('go'),
      assistant('msg_1', { type: 'thinking', thinking: 't' }, {}, { input_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 8 }),
      assistant('msg_1', toolUse('t1', 'Bash', { command: 'ls' }), {}, { input_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 231 }),
    ]);
    // input_tokens leaves out the cache: the prompt is 3 + 100 + 20, of which 100 read and 20 written.
    expect(sessions[0]!.rounds[0]!.usage).toEqual({
      inputTokens: 123,
      outputTokens: 231,
      reasoningTokens: null,
      cacheReadTokens: 100,
      cacheWriteTokens: 20,
    });
  });

  it("a later, smaller copy of a request's usage does not replace the largest one", () => {
    const big = { input_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 231 };
    const { sessions } = parse([
      user('go'),
      assistant('msg_1', { type: 'text', text: 'a' }, {}, big),
      assistant('msg_1', toolUse('t1', 'Bash', { command: 'ls' }), {}, { ...big, output_tokens: 8 }),
    ]);
    expect(sessions[0]!.rounds[0]!.usage).toMatchObject({ inputTokens: 123, outputTokens: 231 });
  });

  it('one-hour cache writes are kept apart (cache_creation.ephemeral_1h_input_tokens)', () => {
    const { sessions } = parse([
      user('go'),
      assistant('msg_1', { type: 'text', text: 'a' }, {}, {
        input_tokens: 5,
        cache_creation_input_tokens: 300,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
        output_tokens: 9,
      }),
    ]);
    expect(sessions[0]!.rounds[0]!.usage).toEqual({
      inputTokens: 305,
      outputTokens: 9,
      reasoningTokens: null,
      cacheReadTokens: 0,
      cacheWriteTokens: 300,
      cacheWrite1hTokens: 200,
    });
  });

  it('a message id seen again after its round was released adds no usage: one request counts once', () => {
    const u = { input_tokens: 10, output_tokens: 5 };
    const { sessions } = parse([
      user('go'),
      assistant('msg_1', { type: 'text', text: 'a' }, {}, u),
      assistant('msg_2', { type: 'text', text: 'b' }, {}, u),
      assistant('msg_1', { type: 'text', text: 'a again' }, {}, u),
    ]);
    expect(sessions[0]!.rounds.map((r) => r.usage?.inputTokens ?? null)).toEqual([10, 10, null]);
  });

  it('reports thinking tokens where newer Claude Code logs them', () => {
    const { sessions } = parse([
      user('go'),
      assistant('msg_1', { type: 'thinking', thinking: 't' }, {}, { input_tokens: 3, output_tokens: 40, output_tokens_details: { thinking_tokens: 31 } }),
    ]);
    expect(sessions[0]!.rounds[0]!.usage?.reasoningTokens).toBe(31);
  });

  it('tool_result blocks in user lines answer the previous round, matched by tool_use_id', () => {
    const { sessions } = parse([
      user('run both'),
      assistant('msg_1', toolUse('t1', 'Bash', { command: 'cat missing' })),
      assistant('msg_1', toolUse('t2', 'Bash', { command: 'echo ok' })),
      // answered out of order, one as an error, one as a list of blocks
      toolResult('t2', [{ type: 'text', text: 'ok' }, { type: 'image', source: { type: 'base64', data: 'AAAA' } }]),
      toolResult('t1', 'cat: missing: No such file or directory', true),
    ]);
    expect(sessions[0]!.rounds[0]!.answers).toEqual([
      { content: 'cat: missing: No such file or directory', isError: true },
      { content: 'ok\n[image]', isError: false },
    ]);
  });

  it('a batch with an unanswered call has unknown (null) answers', () => {
    const { sessions } = parse([
      user('run both'),
      assistant('msg_1', toolUse('t1', 'Bash', { command: 'a' })),
      assistant('msg_1', toolUse('t2', 'Bash', { command: 'b' })),
      toolResult('t1', 'done'),
      user('never mind'),
    ]);
    expect(sessions[0]!.rounds[0]!.answers).toBeNull();
  });

  it('isMeta user lines are not turns', () => {
    const { sessions } = parse([
      user('Caveat: The messages below were generated by the user while running local commands.', { isMeta: true }),
      user('real question'),
      assistant('msg_1', { type: 'text', text: 'answer' }),
    ]);
    expect(sessions[0]!.turns).toEqual([1]);
  });

  it('slash-command and local-command-output lines are not turns', () => {
    const { sessions } = parse([
      user('fix the bug'),
      assistant('msg_1', { type: 'text', text: 'fixed' }),
      user('<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>'),
      user('<local-command-stdout>Compacted</local-command-stdout>'),
      user([{ type: 'text', text: '<bash-input>git status</bash-input>' }]),
      assistant('msg_2', { type: 'text', text: 'still here' }),
    ]);
    expect(sessions[0]!.turns).toEqual([1]);
    expect(sessions[0]!.rounds.map((r) => r.turn)).toEqual([1, 1]);
  });

  it('compact-summary lines are not turns', () => {
    const { sessions } = parse([
      user('first'),
      assistant('msg_1', { type: 'text', text: 'a' }),
      { type: 'system', subtype: 'compact_boundary', sessionId: SID, uuid: 's1', content: 'Conversation compacted', isMeta: false },
      user('This session is being continued from a previous conversation…', { isCompactSummary: true, isVisibleInTranscriptOnly: true }),
      assistant('msg_2', { type: 'text', text: 'b' }),
    ]);
    expect(sessions[0]!.turns).toEqual([1]);
  });

  it('interrupted lines are not turns', () => {
    const { sessions } = parse([
      user('go'),
      assistant('msg_1', toolUse('t1', 'Bash', { command: 'sleep 100' })),
      toolResult('t1', 'The user doesn\'t want to proceed with this tool use.', true),
      user([{ type: 'text', text: '[Request interrupted by user for tool use]' }]),
      user('[Request interrupted by user]'),
      user('try another way'),
      assistant('msg_2', { type: 'text', text: 'ok' }),
    ]);
    expect(sessions[0]!.turns).toEqual([1, 2]);
    expect(sessions[0]!.rounds.map((r) => r.turn)).toEqual([1, 2]);
  });

  it('a prompt queued while the agent works (queued_command attachment) opens a turn; other attachments do not', () => {
    const { sessions } = parse([
      user('run the tests until they pass'),
      assistant('msg_1', toolUse('t1', 'Bash', { command: 'npm test' })),
      { type: 'attachment', sessionId: SID, uuid: 'at1', attachment: { type: 'todo_reminder', content: [] } },
      toolResult('t1', '1 failing', true),
      { type: 'attachment', sessionId: SID, uuid: 'at2', attachment: { type: 'queued_command', prompt: 'stop, the fixture is missing', commandMode: 'prompt' } },
      assistant('msg_2', { type: 'text', text: 'Stopping.' }),
    ]);
    expect(sessions[0]!.turns).toEqual([1, 2]);
    expect(sessions[0]!.rounds.map((r) => r.turn)).toEqual([1, 2]);
    expect(sessions[0]!.rounds[0]!.answers).toEqual([{ content: '1 failing', isError: true }]);
  });

  it('a user line holding only tool results is not a turn; an image-only prompt is', () => {
    const { sessions } = parse([
      user('go'),
      assistant('msg_1', toolUse('t1', 'Bash', { command: 'ls' })),
      toolResult('t1', 'a'),
      assistant('msg_2', { type: 'text', text: 'ok' }),
      user([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }]),
      assistant('msg_3', { type: 'text', text: 'nice picture' }),
    ]);
    expect(sessions[0]!.turns).toEqual([1, 2]);
    expect(sessions[0]!.rounds.map((r) => r.turn)).toEqual([1, 1, 2]);
  });

  it('tool results on isMeta lines still answer their call', () => {
    const { sessions } = parse([
      user('go'),
      assistant('msg_1', toolUse('t1', 'Bash', { command: 'ls' })),
      { ...toolResult('t1', 'a.txt'), isMeta: true },
    ]);
    expect(sessions[0]!.rounds[0]!.answers).toEqual([{ content: 'a.txt', isError: false }]);
  });

  it('sidechain lines become their own session named <sessionId>/agent-<agentId>, naming the parent', () => {
    const side = { isSidechain: true, agentId: 'a1b2c3' };
    const { sessions } = parse([
      user('main prompt'),
      assistant('msg_1', toolUse('t1', 'Task', { prompt: 'search' })),
      user('search', side),
      assistant('msg_s1', { type: 'text', text: 'found it' }, side),
      toolResult('t1', 'found it'),
      assistant('msg_2', { type: 'text', text: 'the agent found it' }),
    ]);
    expect(sessions.map((s) => [s.info.id, s.info.parent])).toEqual([
      [SID, null],
      [`${SID}/agent-a1b2c3`, SID],
    ]);
    const main = sessions[0]!;
    expect(main.rounds).toHaveLength(2);
    expect(main.rounds[0]!.answers).toEqual([{ content: 'found it', isError: false }]);
    expect(sessions[1]!.rounds.map((r) => r.text)).toEqual(['found it']);
    expect(sessions[1]!.turns).toEqual([1]);
  });

  it('a sidechain without agentId is <sessionId>/sidechain; a sub-agent file alone still names its parent', () => {
    const a = parse([user('w', { isSidechain: true }), assistant('m', { type: 'text', text: 'x' }, { isSidechain: true })]);
    expect(a.sessions.map((s) => [s.info.id, s.info.parent])).toEqual([[`${SID}/sidechain`, SID]]);
    const b = parse([user('Warmup', { isSidechain: true, agentId: 'f00d' }), assistant('m', { type: 'text', text: 'ready' }, { isSidechain: true, agentId: 'f00d' })]);
    expect(b.sessions.map((s) => [s.info.id, s.info.parent])).toEqual([[`${SID}/agent-f00d`, SID]]);
  });

  it('record types that carry no conversation are skipped quietly, not as malformed', () => {
    const { sessions, skipped } = parse([
      { type: 'file-history-snapshot', messageId: 'm', snapshot: {}, isSnapshotUpdate: false },
      { type: 'summary', summary: 'x', leafUuid: 'u' },
      { type: 'system', subtype: 'stop_hook_summary', sessionId: SID, uuid: 's' },
      { type: 'progress', data: { type: 'hook_progress' }, toolUseID: 't', sessionId: SID },
      { type: 'queue-operation', operation: 'enqueue', sessionId: SID },
      { type: 'attachment', attachment: { type: 'todo_reminder' }, sessionId: SID, uuid: 'q' },
      { type: 'custom-title', customTitle: 't', sessionId: SID },
      { type: 'some-future-record', whatever: [1, 2, 3] },
      user('hello'),
      assistant('msg_1', { type: 'fallback', from: { model: 'a' }, to: { model: 'b' } }),
      assistant('msg_1', { type: 'text', text: 'hi' }),
    ]);
    expect(skipped).toEqual([]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.rounds.map((r) => r.text)).toEqual(['hi']);
  });

  it('thinking is text; redacted_thinking (and a signature-only thinking block) is opaque', () => {
    const { sessions } = parse([
      user('go'),
      assistant('msg_1', { type: 'thinking', thinking: 'plain reasoning', signature: 's' }),
      assistant('msg_1', { type: 'redacted_thinking', data: 'EmwKAhgBEgy…' }),
      assistant('msg_1', { type: 'thinking', thinking: '', signature: 's' }),
    ]);
    expect(sessions[0]!.rounds[0]!.thinking).toEqual([
      { text: 'plain reasoning', opaque: false },
      { text: null, opaque: true },
      { text: null, opaque: true },
    ]);
  });

  it('messages Claude Code makes up itself (model <synthetic>) are not model rounds', () => {
    const { sessions } = parse([
      user('go'),
      { ...assistant('msg_x', { type: 'text', text: 'API Error: 529 overloaded' }), isApiErrorMessage: true, message: { model: '<synthetic>', id: 'msg_x', role: 'assistant', content: [{ type: 'text', text: 'API Error: 529 overloaded' }] } },
      assistant('msg_1', { type: 'text', text: 'real' }),
    ]);
    expect(sessions[0]!.rounds.map((r) => r.text)).toEqual(['real']);
  });

  it('odd shapes never throw: a non-object line and a message-less user record are reported, the rest read', () => {
    const { sessions, skipped } = parse([42, { type: 'user', sessionId: SID }, user('hi'), assistant('m', { type: 'text', text: 'yo' })]);
    expect(skipped.map((s) => s.line)).toEqual([1, 2]);
    expect(sessions[0]!.rounds).toHaveLength(1);
  });

  it('never throws on arbitrary records', () => {
    const block = fc.oneof(fc.jsonValue(), fc.record({ type: fc.constantFrom('text', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'image'), id: fc.string(), tool_use_id: fc.string(), text: fc.jsonValue(), content: fc.jsonValue(), input: fc.jsonValue() }, { requiredKeys: ['type'] }));
    const record = fc.oneof(
      fc.jsonValue(),
      fc.record({ type: fc.constantFrom('user', 'assistant', 'system'), sessionId: fc.oneof(fc.string(), fc.jsonValue()), isSidechain: fc.jsonValue(), agentId: fc.jsonValue(), message: fc.record({ id: fc.jsonValue(), model: fc.jsonValue(), content: fc.oneof(fc.string(), fc.array(block)), usage: fc.jsonValue() }) }),
    );
    fc.assert(
      fc.property(fc.array(record, { maxLength: 12 }), (records) => {
        expect(() => parse(records)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });

  it('detects Claude Code JSONL well above 0.5, and not Codex rollouts', () => {
    const probe = (records: unknown[]) => ({ mode: 'jsonl' as const, fileName: 'x.jsonl', records });
    expect(claudeCodeAdapter.detect(probe([user('hi'), assistant('m', { type: 'text', text: 'yo' })]))).toBeGreaterThanOrEqual(0.9);
    expect(claudeCodeAdapter.detect(probe([{ type: 'file-history-snapshot', messageId: 'm', snapshot: {}, isSnapshotUpdate: false }]))).toBeGreaterThan(0.5);
    expect(claudeCodeAdapter.detect(probe([{ timestamp: 't', type: 'session_meta', payload: { id: 'x' } }]))).toBe(0);
    expect(claudeCodeAdapter.detect(probe([{ role: 'user', content: 'hi' }]))).toBe(0);
    expect(claudeCodeAdapter.detect({ mode: 'document', fileName: 'x.json', value: [user('hi')] })).toBe(0);
    expect(claudeCodeAdapter.detect({ mode: 'document', fileName: 'x.json', value: { messages: [] } })).toBe(0);
    expect(codexAdapter.detect(probe([user('hi'), assistant('m', { type: 'text', text: 'yo' })]))).toBe(0);
  });
});

describe('claude-code fixtures', () => {
  const read = (rel: string) => parseWith(claudeCodeAdapter, readFileSync(path.join(repoRoot, 'fixtures/claude-code', rel), 'utf8'), { path: rel });

  it('looping-test-fix: the same failing Read+Bash batch four times, then the user steps in', () => {
    const { sessions, skipped } = read('looping-test-fix.jsonl');
    expect(skipped).toEqual([]);
    expect(sessions).toHaveLength(1);
    const s = sessions[0]!;
    expect(s.turns).toEqual([1, 2]);
    expect(s.rounds).toHaveLength(7);
    const loop = s.rounds.slice(0, 4);
    for (const r of loop) {
      expect(r.turn).toBe(1);
      expect(r.calls.map((c) => [c.name, c.arguments])).toEqual(loop[0]!.calls.map((c) => [c.name, c.arguments]));
      expect(r.answers).toEqual(loop[0]!.answers);
      expect(r.answers![1]!.isError).toBe(true);
    }
    expect(s.rounds.slice(4).every((r) => r.turn === 2)).toBe(true);
  });

  it('calm-readme-update: one turn, a parallel batch, its Explore sub-agent in its own file', () => {
    const main = read('calm-readme-update.jsonl');
    expect(main.skipped).toEqual([]);
    expect(main.sessions).toHaveLength(1);
    expect(main.sessions[0]!.turns).toEqual([1]);
    expect(main.sessions[0]!.rounds.map((r) => r.calls.length)).toEqual([1, 2, 1, 0]);
    expect(main.sessions[0]!.rounds.every((r) => r.answers !== null)).toBe(true);
    const sub = read('calm-readme-update/subagents/agent-a3f9c21.jsonl');
    expect(sub.sessions.map((s) => [s.info.id, s.info.parent])).toEqual([[`${main.sessions[0]!.info.id}/agent-a3f9c21`, main.sessions[0]!.info.id]]);
  });

  it('the sub-agent manifest (agent-<id>.meta.json) is claimed as Claude Code and holds no session', () => {
    const text = readFileSync(path.join(repoRoot, 'fixtures/claude-code/calm-readme-update/subagents/agent-a3f9c21.meta.json'), 'utf8');
    expect(claudeCodeAdapter.detect({ mode: 'document', fileName: 'agent-a3f9c21.meta.json', value: JSON.parse(text) })).toBeGreaterThan(0.5);
    expect(claudeCodeAdapter.detect({ mode: 'jsonl', fileName: 'agent-a3f9c21.meta.json', records: [JSON.parse(text)] })).toBeGreaterThan(0.5);
    const parsed = parseWith(claudeCodeAdapter, text, { mode: 'document' });
    expect(parsed.sessions).toEqual([]);
    expect(parsed.skipped).toEqual([]);
  });
});

describe('tool result flattening', () => {
  it('is deterministic: text blocks joined, non-text parts as markers that keep their name', () => {
    const { sessions } = parse([
      user('go'),
      assistant('m', toolUse('t1', 'ToolSearch', { query: 'notebook' })),
      toolResult('t1', [{ type: 'tool_reference', tool_name: 'NotebookEdit' }, { type: 'text', text: 'found 1' }, { type: 'image', source: {} }]),
    ]);
    expect(sessions[0]!.rounds[0]!.answers).toEqual([{ content: '[tool_reference NotebookEdit]\nfound 1\n[image]', isError: false }]);
  });
});
