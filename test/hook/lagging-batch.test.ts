// Issue 29 (e): Claude Code runs a parallel batch's calls as their blocks stream in and writes its
// transcript from a queue drained every 100 ms (2.1.328), so a batch's first PreToolUse can come
// before the transcript shows the batch whole, or at all, and before it shows the previous
// batch's answers. Here that lag is played exactly: the hook's payloads for the third identical
// batch while the transcript lacks it, then the transcript catching up. The third batch must be
// refused at the first call that shows it whole, and the hook's verdicts must be the ones
// `analyze` reads in the finished transcript, round for round.

import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/index.js';
import { scratch } from '../cli/helpers.js';
import { denied, ended, type HookRun } from './agents.js';
import { inProcess } from './inprocess.js';

const tmp = scratch('loopledger-hook-lag-');
afterAll(() => tmp.cleanup());

interface Entry {
  turn: number;
  round: number;
  detector: string;
  kind: string;
  strike: { count: number } | null;
  intervention: { enforce: string };
  after_stop: boolean;
}

/** One verdict as both sides can state it (as test/agents/harness.mjs states it). */
const verdict = (e: Entry) => `turn ${e.turn} round ${e.round} ${e.detector}/${e.kind} strike ${e.strike?.count ?? '-'} enforce:${e.intervention.enforce}`;
const live = (entries: Entry[]) => [...new Set(entries.filter((e) => !e.after_stop).map(verdict))];

const COMMANDS = ['cat missing.txt', 'cat also-missing.txt'];
const failure = (cmd: string) => `Exit code 1\ncat: ${cmd.slice(4)}: No such file or directory`;

/** A Claude Code 2.1.328 session: its transcript lines, and its hook payloads run in-process. */
class Session {
  readonly id: string;
  readonly stateDir: string;
  readonly transcript: string;
  private n = 0;

  constructor(name: string) {
    this.id = `1a90${name.padStart(4, '0')}-0000-4000-8000-000000000029`;
    this.stateDir = join(tmp.dir, `state-${name}`);
    this.transcript = join(tmp.dir, `${this.id}.jsonl`);
    writeFileSync(this.transcript, '');
  }

  private line(extra: Record<string, unknown>): Record<string, unknown> {
    this.n += 1;
    return { parentUuid: null, isSidechain: false, userType: 'external', cwd: tmp.dir, sessionId: this.id, version: '2.1.328', uuid: `u-${this.n}`, timestamp: '2026-12-02T15:32:08.000Z', ...extra };
  }

  write(records: readonly Record<string, unknown>[]): void {
    appendFileSync(this.transcript, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }

  user(text: string): Record<string, unknown> {
    return this.line({ type: 'user', message: { role: 'user', content: text } });
  }

  /** One content block of an assistant message: Claude Code writes each as its own line. */
  block(msg: string, block: Record<string, unknown>): Record<string, unknown> {
    return this.line({ type: 'assistant', message: { id: msg, type: 'message', role: 'assistant', model: 'claude-opus-5-5', content: [block], stop_reason: null, usage: { input_tokens: 100, output_tokens: 10 } } });
  }

  toolUse(msg: string, id: string, cmd: string): Record<string, unknown> {
    return this.block(msg, { type: 'tool_use', id, name: 'Bash', input: { command: cmd, description: 'run it' } });
  }

  result(id: string, content: string): Record<string, unknown> {
    return this.line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: true }] } });
  }

  hook(payload: Record<string, unknown>): Promise<HookRun> {
    const stdin = JSON.stringify({ session_id: this.id, transcript_path: this.transcript, cwd: tmp.dir, permission_mode: 'default', ...payload });
    return inProcess(['claude-code', '--mode', 'enforce', '--state-dir', this.stateDir], stdin);
  }

  pre(id: string, cmd: string): Promise<HookRun> {
    return this.hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: cmd, description: 'run it' }, tool_use_id: id });
  }

  postFailure(id: string, cmd: string): Promise<HookRun> {
    return this.hook({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: cmd, description: 'run it' }, tool_use_id: id, error: failure(cmd), is_interrupt: false });
  }

  /** The hook's own ledger file: its decisions' entries, and the call ids of the rounds it counted. */
  ledger(): { entries: Entry[]; counted: string[] } {
    const file = readdirSync(this.stateDir).find((f) => f.endsWith('.ledger.jsonl'))!;
    const records = readFileSync(join(this.stateDir, file), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; entry?: Entry; tool_calls?: { id: string }[] });
    return {
      entries: records.flatMap((r) => (r.type === 'decision' && r.entry ? [r.entry] : [])),
      counted: records.flatMap((r) => (r.type === 'assistant' ? (r.tool_calls ?? []).map((c) => c.id) : [])),
    };
  }
}

const refusalAnswer = (run: HookRun) =>
  `PreToolUse:Bash hook error: ${(JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput.permissionDecisionReason}`;

/**
 * What the transcript holds when the third batch's first PreToolUse reads it: `nothing` of the
 * batch (the queue not drained since its blocks came), or its `first` call only (a drain fell
 * between its two blocks). Either way the second batch's answers are not written yet.
 */
describe.each(['nothing', 'first'] as const)('a parallel batch repeated, the transcript lagging (%s of the third batch shown at its first call)', (shown) => {
  it('the third batch is refused at the first call that shows it whole, and the verdicts are analyze’s', async () => {
    const s = new Session(shown);
    s.write([s.user('Read missing.txt and fix it.')]);
    const ids = (b: number) => COMMANDS.map((_, c) => `toolu_b${b}c${c}`);
    const lagged: Record<string, unknown>[] = [];

    for (const b of [1, 2]) {
      const [a, c] = ids(b) as [string, string];
      s.write([...lagged.splice(0), s.toolUse(`msg_${b}`, a, COMMANDS[0]!), s.toolUse(`msg_${b}`, c, COMMANDS[1]!)]);
      const pres = [await s.pre(a, COMMANDS[0]!), await s.pre(c, COMMANDS[1]!)];
      expect(pres.map((r) => denied(r, 'claude-code')), `batch ${b} runs`).toEqual([false, false]);
      await s.postFailure(a, COMMANDS[0]!);
      await s.postFailure(c, COMMANDS[1]!);
      // The answers reach the transcript only later (the batch after them is already running).
      lagged.push(s.result(a, failure(COMMANDS[0]!)), s.result(c, failure(COMMANDS[1]!)));
    }

    const [a3, b3] = ids(3) as [string, string];
    const blocks = [s.toolUse('msg_3', a3, COMMANDS[0]!), s.toolUse('msg_3', b3, COMMANDS[1]!)];
    if (shown === 'first') s.write([...lagged.splice(0), blocks[0]!]);
    const first = await s.pre(a3, COMMANDS[0]!);
    // Nothing tells the hook yet that a second call belongs to this batch: it runs.
    expect(denied(first, 'claude-code')).toBe(false);
    const second = await s.pre(b3, COMMANDS[1]!);
    expect(denied(second, 'claude-code'), 'the second call, which makes the batch whole, is refused').toBe(true);
    expect(ended(second), 'and the turn ended').toBe(true);
    // The first call had already started: its answer lands, and is no occurrence.
    await s.postFailure(a3, COMMANDS[0]!);

    // The transcript catches up: the second batch's answers, the third batch, its answers as
    // Claude Code records them (the refusal as the refused call's result).
    s.write([...lagged.splice(0), ...(shown === 'first' ? [blocks[1]!] : blocks), s.result(a3, failure(COMMANDS[0]!)), s.result(b3, refusalAnswer(second))]);
    // The user's next turn: the hook reads the whole transcript before its first call.
    s.write([s.user('Go on.'), s.toolUse('msg_4', 'toolu_next', 'ls')]);
    await s.pre('toolu_next', 'ls');

    const hook = s.ledger();
    const report = await audit([s.transcript]);
    const offline = live(report.sessions.flatMap((x) => x.entries as unknown as Entry[]));
    expect(offline).toEqual(['turn 1 round 2 tool_batch/repeated_batch strike 2 enforce:noted', 'turn 1 round 3 tool_batch/repeated_batch strike 3 enforce:stop']);
    expect(live(hook.entries), 'the live guard and analyze of the transcript agree, round for round').toEqual(offline);
    // The two batches that ran are the only occurrences: the refused one is in no round.
    expect(hook.counted).toEqual([...ids(1), ...ids(2)]);
  });
});

/** A Codex 0.169.0 session: its rollout shows a batch before it runs, in its own terms. */
class CodexSession {
  readonly id = '1a90c0de-0000-4000-8000-000000000029';
  readonly stateDir = join(tmp.dir, 'state-codex');
  readonly rollout = join(tmp.dir, `rollout-2026-12-02T15-53-00-${this.id}.jsonl`);

  constructor() {
    writeFileSync(this.rollout, '');
    this.write([
      { type: 'session_meta', payload: { id: this.id, cwd: tmp.dir, originator: 'codex_exec', cli_version: '0.169.0', instructions: 'You are Codex.' } },
      { type: 'turn_context', payload: { cwd: tmp.dir, model: 'gpt-5-scripted', approval_policy: 'never' } },
      { type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read missing.txt and fix it.' }] } },
      { type: 'event_msg', payload: { type: 'user_message', message: 'Read missing.txt and fix it.', images: [] } },
    ]);
  }

  write(items: readonly Record<string, unknown>[]): void {
    appendFileSync(this.rollout, items.map((i) => `${JSON.stringify({ timestamp: '2026-12-02T15:53:00.000Z', ...i })}\n`).join(''));
  }

  call(id: string, cmd: string): Record<string, unknown> {
    return { type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd }), call_id: id } };
  }

  output(id: string, output: string): Record<string, unknown> {
    return { type: 'response_item', payload: { type: 'function_call_output', call_id: id, output } };
  }

  hook(payload: Record<string, unknown>): Promise<HookRun> {
    const stdin = JSON.stringify({ session_id: this.id, transcript_path: this.rollout, cwd: tmp.dir, model: 'gpt-5-scripted', permission_mode: 'bypassPermissions', turn_id: 'turn-1', ...payload });
    return inProcess(['codex', '--mode', 'enforce', '--state-dir', this.stateDir], stdin);
  }

  /** Codex's hook sees its shell tool as `Bash {command}`. */
  pre(id: string, cmd: string): Promise<HookRun> {
    return this.hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: cmd }, tool_use_id: id });
  }

  post(id: string, cmd: string): Promise<HookRun> {
    return this.hook({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: cmd }, tool_use_id: id, tool_response: failure(cmd) });
  }
}

describe('a parallel batch repeated in Codex, the rollout showing each batch before it runs as exec_command calls', () => {
  it('the third batch, shown by the rollout in the terms the hook gives stdin, is refused whole at its first call', async () => {
    const s = new CodexSession();
    const ids = (b: number) => COMMANDS.map((_, c) => `call_b${b}c${c}`);
    const runs: HookRun[][] = [];
    for (const b of [1, 2, 3]) {
      const [a, c] = ids(b) as [string, string];
      s.write([s.call(a, COMMANDS[0]!), s.call(c, COMMANDS[1]!), { type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 100, output_tokens: 10 } } } }]);
      // Both calls start before either answers (Codex runs them side by side).
      const pres = [await s.pre(a, COMMANDS[0]!), await s.pre(c, COMMANDS[1]!)];
      runs.push(pres);
      if (b < 3) {
        expect(pres.map((r) => denied(r, 'codex')), `batch ${b} runs`).toEqual([false, false]);
        await s.post(a, COMMANDS[0]!);
        await s.post(c, COMMANDS[1]!);
        s.write([s.output(a, `Process exited with code 1\nOutput:\n${failure(COMMANDS[0]!)}`), s.output(c, `Process exited with code 1\nOutput:\n${failure(COMMANDS[1]!)}`)]);
      }
    }
    const [a3, b3] = ids(3) as [string, string];
    const [first, second] = runs[2]! as [HookRun, HookRun];
    // The hook names Codex's `Bash {command}` as its rollout does (`exec_command {cmd}`), so the
    // batch the rollout shows is the repeat at its first call, and every call of it is denied.
    expect(denied(first, 'codex'), 'the first call is refused before it runs').toBe(true);
    expect(denied(second, 'codex'), 'the second call is refused before it runs').toBe(true);
    const refusal = (r: HookRun) => (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput.permissionDecisionReason;
    s.write([s.output(a3, `Command blocked by PreToolUse hook: ${refusal(first)}`), s.output(b3, `Command blocked by PreToolUse hook: ${refusal(second)}`)]);
    await s.hook({ hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'I stopped.' });

    const records = readFileSync(join(s.stateDir, readdirSync(s.stateDir).find((f) => f.endsWith('.ledger.jsonl'))!), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; entry?: Entry });
    const hook = records.flatMap((r) => (r.type === 'decision' && r.entry ? [r.entry] : []));
    const report = await audit([s.rollout]);
    const offline = live(report.sessions.flatMap((x) => x.entries as unknown as Entry[]));
    expect(offline).toEqual(['turn 1 round 2 tool_batch/repeated_batch strike 2 enforce:noted', 'turn 1 round 3 tool_batch/repeated_batch strike 3 enforce:stop']);
    expect(live(hook), 'the live guard and analyze of the rollout agree, round for round').toEqual(offline);
  });
});
