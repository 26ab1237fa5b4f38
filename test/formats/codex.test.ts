import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../../src/formats/claude-code.js';
import { codexAdapter } from '../../src/formats/codex.js';
import { jsonl, parseWith } from '../helpers/record.js';

const TID = '0199b2e0-4a6c-7d18-b3f5-8e1a9c2d7f64';
const repoRoot = path.resolve(import.meta.dirname, '../..');

// Minimal rollout envelopes, shaped like Codex CLI's.
const env = (type: string, payload: unknown) => ({ timestamp: '2026-02-01T12:00:00.000Z', type, payload });
const meta = (payload: Record<string, unknown> = {}) => env('session_meta', { id: TID, cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.63.0', source: 'cli', ...payload });
const item = (payload: Record<string, unknown>) => env('response_item', payload);
const event = (payload: Record<string, unknown>) => env('event_msg', payload);
const userItem = (text: string) => item({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const userEvent = (text: string) => event({ type: 'user_message', message: text, images: [] });
const say = (text: string) => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const sayEvent = (text: string) => event({ type: 'agent_message', message: text });
const reason = (summary: string | null) => item({ type: 'reasoning', summary: summary ? [{ type: 'summary_text', text: summary }] : [], content: null, encrypted_content: 'gAAAAB…' });
const reasonEvent = (text: string) => event({ type: 'agent_reasoning', text });
const fcall = (id: string, args: unknown, name = 'shell') => item({ type: 'function_call', name, arguments: typeof args === 'string' ? args : JSON.stringify(args), call_id: id });
const fout = (id: string, output: unknown) => item({ type: 'function_call_output', call_id: id, output });
const tokens = (input: number, output: number, reasoning: number) =>
  event({ type: 'token_count', info: { total_token_usage: { input_tokens: input * 2, output_tokens: output * 2, reasoning_output_tokens: reasoning * 2 }, last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: output, reasoning_output_tokens: reasoning, total_tokens: input + output } } });

function parse(records: unknown[], filePath?: string) {
  return parseWith(codexAdapter, jsonl(records), filePath ? { path: filePath } : {});
}

describe('codex adapter', () => {
  it('text and reasoning appearing as both event_msg and response_item are counted once (either order)', () => {
    const { sessions } = parse([
      meta(),
      userItem('hi'),
      // event copies first, as Codex streams them
      reasonEvent('**Greeting**'),
      reason('**Greeting**'),
      sayEvent('Hello!'),
      say('Hello!'),
      tokens(100, 10, 4),
      userItem('again'),
      // item first, then the event copy
      reason('**Again**'),
      reasonEvent('**Again**'),
      say('Hello again!'),
      sayEvent('Hello again!'),
      tokens(120, 12, 5),
    ]);
    const rounds = sessions[0]!.rounds;
    expect(rounds.map((r) => r.text)).toEqual(['Hello!', 'Hello again!']);
    expect(rounds.map((r) => r.thinking)).toEqual([[{ text: '**Greeting**', opaque: false }], [{ text: '**Again**', opaque: false }]]);
  });

  it('event_msg text and reasoning are used only when no response_item copy exists', () => {
    const { sessions } = parse([meta(), userEvent('hi'), reasonEvent('thinking it over'), sayEvent('Hello from events only')]);
    const r = sessions[0]!.rounds;
    expect(r).toHaveLength(1);
    expect(r[0]!.text).toBe('Hello from events only');
    expect(r[0]!.thinking).toEqual([{ text: 'thinking it over', opaque: false }]);
  });

  it('a user message recorded as event_msg, response_item and item_completed is one turn', () => {
    const { sessions } = parse([
      meta(),
      userEvent('fix it'),
      userItem('fix it'),
      event({ type: 'item_completed', item: { type: 'UserMessage', id: 'u1', content: [{ type: 'text', text: 'fix it' }] } }),
      say('done'),
      userItem('thanks'),
      userEvent('thanks'),
      say('welcome'),
    ]);
    expect(sessions[0]!.turns).toEqual([1, 2]);
    expect(sessions[0]!.rounds.map((r) => r.turn)).toEqual([1, 2]);
  });

  it('injected environment_context, user_instructions and AGENTS.md user messages are not turns', () => {
    const { sessions } = parse([
      meta(),
      item({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>…</permissions instructions>' }] }),
      userItem('# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>'),
      userItem('<environment_context>\n  <cwd>/w</cwd>\n</environment_context>'),
      userItem('<user_instructions>\nterse\n</user_instructions>'),
      event({ type: 'user_message', message: '<environment_context>…</environment_context>', kind: 'environment_context' }),
      userItem('the real question'),
      say('answer'),
      userItem('<turn_aborted>\nThe user interrupted.\n</turn_aborted>'),
    ]);
    expect(sessions[0]!.turns).toEqual([1]);
  });

  it('per-round usage comes from token_count.last_token_usage, including reasoning_output_tokens', () => {
    const { sessions } = parse([
      meta(),
      userItem('go'),
      reason('r'),
      fcall('c1', { command: ['ls'] }),
      tokens(1000, 50, 30),
      fout('c1', 'a.txt'),
      event({ type: 'token_count', info: null, rate_limits: {} }),
      say('done'),
      tokens(1100, 20, 0),
      // a repeat (or the compaction request's count) must not overwrite the round's own
      tokens(9999, 9999, 9999),
    ]);
    expect(sessions[0]!.rounds.map((r) => r.usage)).toEqual([
      { inputTokens: 1000, outputTokens: 50, reasoningTokens: 30, cacheReadTokens: 0 },
      { inputTokens: 1100, outputTokens: 20, reasoningTokens: 0, cacheReadTokens: 0 },
    ]);
  });

  it('function_call arguments are a JSON string: parsed; a malformed one stays the raw string', () => {
    const { sessions, skipped } = parse([meta(), userItem('go'), fcall('c1', { command: ['ls', '-la'] }), fcall('c2', '{"command": ["ls"'), fout('c1', 'x'), fout('c2', 'y')]);
    expect(skipped).toEqual([]);
    expect(sessions[0]!.rounds[0]!.calls).toEqual([
      { id: 'c1', name: 'shell', arguments: { command: ['ls', '-la'] } },
      { id: 'c2', name: 'shell', arguments: '{"command": ["ls"' },
    ]);
  });

  it('custom_tool_call is a tool call whose free-text input is the argument', () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n';
    const { sessions } = parse([
      meta(),
      userItem('add a file'),
      item({ type: 'custom_tool_call', status: 'completed', call_id: 'p1', name: 'apply_patch', input: patch }),
      item({ type: 'custom_tool_call_output', call_id: 'p1', output: JSON.stringify({ output: 'Success. Updated the following files:\nA a.txt\n', metadata: { exit_code: 0, duration_seconds: 0.01 } }) }),
    ]);
    const r = sessions[0]!.rounds[0]!;
    expect(r.calls).toEqual([{ id: 'p1', name: 'apply_patch', arguments: patch }]);
    expect(r.answers).toEqual([{ content: 'Success. Updated the following files:\nA a.txt\n', isError: false }]);
  });

  it('local_shell_call is a tool call, answered by call_id', () => {
    const action = { type: 'exec', command: ['bash', '-lc', 'pwd'], working_directory: '/w' };
    const { sessions } = parse([
      meta(),
      userItem('where am i'),
      item({ type: 'local_shell_call', id: 'lsh_1', call_id: 'ls1', status: 'completed', action }),
      fout('ls1', '/w'),
    ]);
    expect(sessions[0]!.rounds[0]!.calls).toEqual([{ id: 'ls1', name: 'local_shell', arguments: action }]);
    expect(sessions[0]!.rounds[0]!.answers).toEqual([{ content: '/w', isError: false }]);
  });

  it('encrypted reasoning without a readable summary is opaque thinking', () => {
    const { sessions } = parse([meta(), userItem('go'), reason(null), say('ok')]);
    expect(sessions[0]!.rounds[0]!.thinking).toEqual([{ text: null, opaque: true }]);
  });

  it('a round is one model response: output items until their outputs come back or token_count closes it', () => {
    const { sessions } = parse([
      meta(),
      userItem('look around'),
      reason('plan'),
      fcall('c1', { command: ['ls'] }),
      fcall('c2', { command: ['pwd'] }),
      fout('c2', '/w'), // one output of the parallel batch recorded before the batch's last call
      fcall('c3', { command: ['date'] }),
      fout('c1', 'a'),
      fout('c3', 'today'),
      reason('next'),
      fcall('c4', { command: ['cat', 'a'] }),
      fout('c4', 'x'),
      say('done'),
    ]);
    const rounds = sessions[0]!.rounds;
    expect(rounds.map((r) => r.calls.map((c) => c.id))).toEqual([['c1', 'c2', 'c3'], ['c4'], []]);
    expect(rounds[0]!.answers?.map((a) => a.content)).toEqual(['a', '/w', 'today']);
  });

  it('an unanswered call of a closed round does not glue the following rounds together', () => {
    const { sessions } = parse([
      meta(),
      userItem('go'),
      fcall('lost', { command: ['sleep', '999'] }),
      tokens(10, 1, 0), // closed; its call is never answered (aborted)
      fcall('c2', { command: ['ls'] }),
      fout('c2', 'a'),
      fcall('c3', { command: ['pwd'] }), // no token_count in between: the answered batch ends the round
      fout('c3', '/w'),
    ]);
    expect(sessions[0]!.rounds.map((r) => r.calls.map((c) => c.id))).toEqual([['lost'], ['c2'], ['c3']]);
    expect(sessions[0]!.rounds[0]!.answers).toBeNull();
  });

  it('shell output noise (wall time) is dropped and a non-zero exit code marks the answer as an error', () => {
    const out = (wall: string) => `Exit code: 101\nWall time: ${wall} seconds\nOutput:\nerror: could not compile\nWall time: 9 seconds\n`;
    const { sessions } = parse([meta(), userItem('build'), fcall('c1', { command: ['cargo', 'build'] }), tokens(1, 1, 0), fout('c1', out('3.1')), fcall('c2', { command: ['cargo', 'build'] }), tokens(1, 1, 0), fout('c2', out('2.7'))]);
    const [a, b] = sessions[0]!.rounds;
    expect(a!.answers).toEqual([{ content: 'Exit code: 101\nOutput:\nerror: could not compile\nWall time: 9 seconds\n', isError: true }]);
    expect(b!.answers).toEqual(a!.answers);
    const legacy = parse([meta(), userItem('x'), fcall('c1', { command: ['false'] }), fout('c1', JSON.stringify({ output: 'boom', metadata: { exit_code: 1, duration_seconds: 0.2 } }))]);
    expect(legacy.sessions[0]!.rounds[0]!.answers).toEqual([{ content: 'boom', isError: true }]);
  });

  it('several session_meta lines are sub-threads: own sessions named <parent>/<thread>, naming the parent', () => {
    const child = '0199b2e0-aaaa-7d18-b3f5-000000000001';
    const other = '0199b2e0-cccc-7d18-b3f5-000000000003';
    // a sub-agent's rollout: its session_meta names the spawning thread
    const spawned = parse([
      meta({ id: child, parent_thread_id: TID, source: { subagent: { thread_spawn: { parent_thread_id: TID, depth: 1 } } } }),
      userItem('do x'),
      say('x done'),
    ]);
    expect(spawned.sessions.map((s) => [s.info.id, s.info.parent])).toEqual([[`${TID}/${child}`, TID]]);
    // two unrelated threads in one file, and a repeated session_meta switching back
    const { sessions } = parse([meta(), userItem('a'), say('a'), meta({ id: other }), userItem('b'), say('b'), meta(), userItem('c'), say('c')]);
    expect(sessions.map((s) => [s.info.id, s.info.parent])).toEqual([
      [TID, null],
      [other, null],
    ]);
    expect(sessions.map((s) => s.rounds.map((r) => r.text))).toEqual([['a', 'c'], ['b']]);
  });

  it('a forked rollout keeps the copied source history (with its session_meta) in the fork session', () => {
    const fork = '0199b2e0-bbbb-7d18-b3f5-000000000002';
    const { sessions } = parse([
      meta({ id: fork, forked_from_id: TID }),
      meta(), // the source thread's rollout, copied
      userItem('first question'),
      say('first answer'),
      userItem('try y instead'), // the fork's own turn
      say('y'),
    ]);
    expect(sessions.map((s) => [s.info.id, s.info.parent])).toEqual([[`${TID}/${fork}`, TID]]);
    expect(sessions[0]!.turns).toEqual([1, 2]);
    expect(sessions[0]!.rounds.map((r) => r.text)).toEqual(['first answer', 'y']);
  });

  it('a rollout without session_meta takes its thread id from the rollout file name', () => {
    const { sessions } = parse([userItem('hi'), say('yo')], `/x/rollout-2026-01-01T00-00-00-${TID}.jsonl`);
    expect(sessions[0]!.info.id).toBe(TID);
  });

  it('record types that carry no conversation are skipped quietly; tool events do not add calls', () => {
    const { sessions, skipped } = parse([
      meta(),
      env('turn_context', { model: 'gpt-5-codex', cwd: '/w' }),
      env('world_state', { full: true, state: {} }),
      env('compacted', { message: '', replacement_history: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'old' }] }] }),
      env('some_future_record', { a: 1 }),
      { not: 'an envelope' },
      userItem('go'),
      fcall('c1', { command: ['ls'] }),
      event({ type: 'exec_command_end', call_id: 'c1', stdout: 'a', exit_code: 0 }),
      event({ type: 'mcp_tool_call_end', call_id: 'c9', invocation: { server: 's', tool: 't', arguments: {} }, result: { Ok: { content: [] } } }),
      item({ type: 'ghost_snapshot', ghost_commit: { id: 'g' } }),
      fout('c1', 'a'),
    ]);
    expect(skipped).toEqual([]);
    expect(sessions[0]!.rounds).toHaveLength(1);
    expect(sessions[0]!.rounds[0]!.calls.map((c) => c.id)).toEqual(['c1']);
    expect(sessions[0]!.rounds[0]!.model).toBe('gpt-5-codex');
  });

  it('never throws on arbitrary records', () => {
    const payload = fc.oneof(
      fc.jsonValue(),
      fc.record({ type: fc.constantFrom('message', 'reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'function_call_output', 'user_message', 'agent_message', 'token_count', 'item_completed'), role: fc.constantFrom('user', 'assistant', 'developer'), content: fc.jsonValue(), summary: fc.jsonValue(), arguments: fc.jsonValue(), call_id: fc.jsonValue(), output: fc.jsonValue(), info: fc.jsonValue(), item: fc.jsonValue(), message: fc.jsonValue() }, { requiredKeys: ['type'] }),
    );
    const record = fc.oneof(fc.jsonValue(), fc.record({ timestamp: fc.jsonValue(), type: fc.constantFrom('session_meta', 'response_item', 'event_msg', 'turn_context'), payload }));
    fc.assert(
      fc.property(fc.array(record, { maxLength: 12 }), (records) => {
        expect(() => parse(records)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });

  it('detects Codex rollouts well above 0.5, and not Claude Code files', () => {
    const probe = (records: unknown[]) => ({ mode: 'jsonl' as const, fileName: 'x.jsonl', records });
    expect(codexAdapter.detect(probe([meta(), userItem('hi')]))).toBeGreaterThanOrEqual(0.9);
    expect(codexAdapter.detect(probe([userItem('hi'), say('yo')]))).toBeGreaterThan(0.5);
    expect(codexAdapter.detect(probe([{ type: 'message', role: 'user', content: 'hi' }]))).toBe(0);
    expect(claudeCodeAdapter.detect(probe([meta(), userItem('hi')]))).toBe(0);
  });
});

describe('codex fixtures', () => {
  const dir = path.join(repoRoot, 'fixtures/codex');
  const files = readdirSync(dir).sort();
  const read = (name: string) => parseWith(codexAdapter, readFileSync(path.join(dir, name), 'utf8'), { path: name });

  it('the looping rollout repeats the same failing shell call four times, identical answers despite wall time', () => {
    const { sessions, skipped } = read(files.find((f) => f.includes('0199a1c4'))!);
    expect(skipped).toEqual([]);
    const s = sessions[0]!;
    expect(s.info.id).toBe('0199a1c4-7e21-7b30-9d4f-5c8e2a6b1d37');
    expect(s.turns).toEqual([1, 2]);
    const loop = s.rounds.slice(0, 4);
    for (const r of loop) {
      expect(r.calls.map((c) => c.arguments)).toEqual(loop[0]!.calls.map((c) => c.arguments));
      expect(r.answers).toEqual(loop[0]!.answers);
      expect(r.answers![0]!.isError).toBe(true);
      expect(r.usage?.reasoningTokens).toBeGreaterThan(0);
    }
    expect(loop[3]!.thinking).toEqual([{ text: null, opaque: true }]);
    // the closing message streamed as event_msg and response_item appears once
    expect(s.rounds[4]!.text.match(/The build still fails/g)).toHaveLength(1);
  });

  it('the calm rollout: one turn, one parallel batch, one answer', () => {
    const { sessions } = read(files.find((f) => f.includes('0199a7f0'))!);
    const s = sessions[0]!;
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => r.calls.length)).toEqual([2, 0]);
    expect(s.rounds[0]!.answers?.every((a) => !a.isError)).toBe(true);
  });
});

describe('codex pre-envelope rollouts', () => {
  it('a 2025 rollout (header line, then bare response items) is detected and read', () => {
    const records = [
      { id: TID, timestamp: '2025-06-01T09:00:00.000Z', instructions: null, git: { branch: 'main' } },
      { record_type: 'state' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'run the tests' }] },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA…' },
      { type: 'function_call', id: 'fc_1', name: 'shell', arguments: '{"command":["npm","test"]}', call_id: 'call_1' },
      { record_type: 'state' },
      { type: 'function_call_output', call_id: 'call_1', output: JSON.stringify({ output: '1 failing', metadata: { exit_code: 1, duration_seconds: 1.5 } }) },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'One test fails.' }] },
    ];
    expect(codexAdapter.detect({ mode: 'jsonl', fileName: 'rollout.jsonl', records })).toBeGreaterThan(0.5);
    expect(claudeCodeAdapter.detect({ mode: 'jsonl', fileName: 'rollout.jsonl', records })).toBe(0);
    const { sessions, skipped } = parse(records);
    expect(skipped).toEqual([]);
    expect(sessions.map((s) => s.info.id)).toEqual([TID]);
    const s = sessions[0]!;
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => r.text)).toEqual(['', 'One test fails.']);
    expect(s.rounds[0]!.answers).toEqual([{ content: '1 failing', isError: true }]);
    expect(s.rounds[0]!.thinking).toEqual([{ text: null, opaque: true }]);
  });
});
