// Each agent's hook contract, as its documentation states it (the sources are cited next to each
// shape in src/hook/payload.ts and src/hook/respond.ts): what comes in, what goes out.

import { readFileSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PayloadError, parsePayload } from '../../src/hook/payload.js';
import { render, type Verdict } from '../../src/hook/respond.js';
import { fileKey, lock, LockTimeout } from '../../src/hook/store.js';
import { ensureBuilt, scratch } from '../cli/helpers.js';

// It runs or reads the build: the build of src/ as it is now, even when this file runs alone.
beforeAll(() => ensureBuilt());

const NOTHING: Verdict = Object.freeze({ deny: null, stop: null, context: null });
const verdict = (v: Partial<Verdict>): Verdict => ({ ...NOTHING, ...v });

describe('payloads', () => {
  it('Claude Code PreToolUse, PostToolUse, PostToolUseFailure and Stop (hooks reference examples)', () => {
    const base = { session_id: 'abc123', transcript_path: '/home/u/.claude/projects/p/abc123.jsonl', cwd: '/repo', permission_mode: 'default' };
    const pre = parsePayload('claude-code', JSON.stringify({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test', description: 'Run tests' }, tool_use_id: 'toolu_01ABC' }));
    expect(pre).toMatchObject({ kind: 'pre', sessionId: 'abc123', call: { id: 'toolu_01ABC', name: 'Bash', input: { command: 'npm test', description: 'Run tests' } }, answer: null });
    const post = parsePayload('claude-code', JSON.stringify({ ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: {}, tool_use_id: 'toolu_01ABC', tool_response: { stdout: 'ok', stderr: '' } }));
    expect(post.kind).toBe('post');
    expect(post.answer).toMatchObject({ content: '', isError: false });
    const failure = parsePayload('claude-code', JSON.stringify({ ...base, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: {}, tool_use_id: 'toolu_01ABC', error: 'exit 1', is_interrupt: false }));
    expect(failure.answer!.isError).toBe(true);
    const stop = parsePayload('claude-code', JSON.stringify({ ...base, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done.' }));
    expect(stop).toMatchObject({ kind: 'stop', finalText: 'Done.' });
    expect(parsePayload('claude-code', JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'startup' })).kind).toBe('other');
  });

  it('the same response digests the same, whatever the order of its keys', () => {
    const p = (response: unknown) =>
      parsePayload('claude-code', JSON.stringify({ session_id: 's', hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: {}, tool_use_id: 't', tool_response: response })).answer!.digest;
    expect(p({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(p({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(p({ a: 1 })).not.toBe(p({ a: 2 }));
  });

  it('Gemini CLI BeforeTool/AfterTool send no call id; the shell’s process group id is not part of the answer', () => {
    const at = (pgid: number) =>
      parsePayload('gemini', JSON.stringify({ session_id: 'g', transcript_path: '/t.json', hook_event_name: 'AfterTool', timestamp: 'now', tool_name: 'run_shell_command', tool_input: { command: 'make' }, tool_response: { llmContent: `Output: fail\nProcess Group PGID: ${pgid}`, returnDisplay: 'fail' } }));
    expect(at(1).call!.id).toBe('');
    expect(at(1).answer!.digest).toBe(at(2).answer!.digest);
    const after = parsePayload('gemini', JSON.stringify({ session_id: 'g', hook_event_name: 'AfterAgent', prompt: 'p', prompt_response: 'All done.', stop_hook_active: false }));
    expect(after).toMatchObject({ kind: 'stop', finalText: 'All done.' });
  });

  it('Codex PreToolUse / PostToolUse (generated schemas): transcript_path may be null, turn_id marks the turn', () => {
    const pre = parsePayload('codex', JSON.stringify({ session_id: 'c', turn_id: 'turn-1', transcript_path: null, cwd: '/r', hook_event_name: 'PreToolUse', model: 'gpt-5', permission_mode: 'default', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'call_1' }));
    expect(pre).toMatchObject({ kind: 'pre', transcriptPath: null, turnKey: 'turn-1' });
    // The rollout (fixtures/agents/codex-0.169.0) records the same call as `exec_command {"cmd":"cat missing.txt"}`.
    expect(pre.call).toEqual({ id: 'call_1', name: 'exec_command', input: { cmd: 'ls' } });
  });

  it('Codex: only a Bash call with a command string is renamed; other tools and shapes pass as sent', () => {
    const call = (tool_name: string, tool_input: unknown) =>
      parsePayload('codex', JSON.stringify({ session_id: 'c', hook_event_name: 'PreToolUse', tool_name, tool_input, tool_use_id: 'call_2' })).call;
    expect(call('Bash', { command: 'ls', timeout: 5 })).toEqual({ id: 'call_2', name: 'exec_command', input: { cmd: 'ls', timeout: 5 } });
    expect(call('Bash', { command: ['ls'] })).toEqual({ id: 'call_2', name: 'Bash', input: { command: ['ls'] } });
    expect(call('apply_patch', { command: 'x' })).toEqual({ id: 'call_2', name: 'apply_patch', input: { command: 'x' } });
    // Claude Code's Bash is its own transcript's name: never renamed.
    const claude = parsePayload('claude-code', JSON.stringify({ session_id: 'c', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't' }));
    expect(claude.call).toEqual({ id: 't', name: 'Bash', input: { command: 'ls' } });
  });

  it.each([
    ['', /not JSON/],
    ['[]', /not a JSON object/],
    ['{"session_id":"s"}', /without hook_event_name/],
    ['{"hook_event_name":"PreToolUse"}', /without session_id/],
    ['{"hook_event_name":"PreToolUse","session_id":"s"}', /without tool_name/],
  ])('rejects %j', (text, message) => {
    expect(() => parsePayload('claude-code', text)).toThrow(PayloadError);
    expect(() => parsePayload('claude-code', text)).toThrow(message);
  });
});

describe('answers', () => {
  const deny = 'refused: the third identical batch';
  const stop = 'loopledger (enforce): loop_detected';
  const context = 'Loop detection: your visible output shows a repeating pattern.';

  it('Claude Code: a stop denies the call and ends the turn (SPEC "Live guard")', () => {
    expect(JSON.parse(render('claude-code', 'PreToolUse', 'pre', verdict({ deny, stop }))!)).toEqual({
      continue: false,
      stopReason: stop,
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: deny },
    });
    expect(JSON.parse(render('claude-code', 'PostToolUse', 'post', verdict({ context }))!)).toEqual({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: context } });
    expect(JSON.parse(render('claude-code', 'PostToolUseFailure', 'post', verdict({ context }))!)).toEqual({ hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: context } });
    expect(JSON.parse(render('claude-code', 'PostToolUse', 'post', verdict({ stop, context }))!)).toEqual({ continue: false, stopReason: stop });
    // Stop's only decision ("block") would keep the agent going: nothing is ever said there.
    expect(render('claude-code', 'Stop', 'stop', verdict({ stop, context }))).toBeNull();
    expect(render('claude-code', 'PreToolUse', 'pre', NOTHING)).toBeNull();
  });

  it('Gemini CLI: decision deny with a reason, continue false to end the loop, AfterTool context', () => {
    expect(JSON.parse(render('gemini', 'BeforeTool', 'pre', verdict({ deny, stop }))!)).toEqual({ decision: 'deny', reason: deny, continue: false, stopReason: stop });
    expect(JSON.parse(render('gemini', 'AfterTool', 'post', verdict({ context }))!)).toEqual({ hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: context } });
    expect(render('gemini', 'BeforeTool', 'pre', verdict({ context }))).toBeNull();
  });

  it('Codex: never continue/stopReason at PreToolUse (rejected there, and the call would run)', () => {
    expect(JSON.parse(render('codex', 'PreToolUse', 'pre', verdict({ deny, stop }))!)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: deny },
    });
    expect(JSON.parse(render('codex', 'PostToolUse', 'post', verdict({ stop }))!)).toEqual({ continue: false, stopReason: stop });
    expect(JSON.parse(render('codex', 'PreToolUse', 'pre', verdict({ context }))!)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: context } });
  });
});

describe('the state directory', () => {
  it('file keys never leave the directory', () => {
    expect(fileKey('0c1d2e3f-0000-4000-8000-000000000001')).toBe('0c1d2e3f-0000-4000-8000-000000000001');
    for (const id of ['../../etc/passwd', '/abs/path', '..', '.hidden', 'a b', 'x'.repeat(300), 'é']) {
      const k = fileKey(id);
      expect(k).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
      expect(k.length).toBeLessThanOrEqual(100);
    }
    expect(fileKey('a/b')).not.toBe(fileKey('a_b'));
  });

  it('a lock is exclusive, waits, and a crashed holder’s lock is taken over', () => {
    const tmp = scratch('loopledger-hook-lock-');
    try {
      const path = join(tmp.dir, 's.lock');
      const release = lock(path);
      expect(() => lock(path, 50)).toThrow(LockTimeout);
      release();
      lock(path, 50)();
      // A stale lock (its holder died long ago) does not block.
      tmp.write('s.lock', '999999');
      const old = new Date(Date.now() - 60_000);
      utimesSync(path, old, old);
      lock(path, 50)();
    } finally {
      tmp.cleanup();
    }
  });
});

describe('the hook path loads no CLI', () => {
  it('dist/hook/main.js imports neither commander, chalk, cli-table3 nor price data', () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');
    const seen = new Set<string>();
    const bare = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      // Static imports only: the CLI's `hook` command reaches this module, not the reverse.
      for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]/gm)) {
        const spec = m[1]!;
        if (spec.startsWith('.')) walk(join(dirname(file), spec));
        else bare.add(spec.replace(/^node:/, ''));
      }
    };
    walk(join(root, 'hook', 'main.js'));
    // Node's own modules only: no package at all (commander, chalk, cli-table3, genai-prices…).
    expect([...bare].filter((s) => !isBuiltin(s))).toEqual([]);
    expect([...seen].some((f) => f.endsWith('cli.js'))).toBe(false);
  });

  it('dist/hook.cjs, the bundle the launcher runs, is one file that requires only Node\'s own modules', () => {
    const bundle = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'hook.cjs'), 'utf8');
    const specs = [...bundle.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]!);
    expect(specs.length).toBeGreaterThan(0);
    expect(specs.filter((s) => !s.startsWith('node:') && !isBuiltin(s))).toEqual([]);
    expect(bundle).not.toContain('commander');
  });
});
