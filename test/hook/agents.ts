// Fake agents for the live guard's tests: each writes its transcript in its own format, line by
// line as the real agent does, and calls `loopledger hook <agent>` with the payloads its hook
// contract documents (see src/hook/payload.ts for the sources). The binary is the built one.

import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, cliEnv, ensureBuiltOnce, environmentNeedsProcess } from '../cli/helpers.js';

const BIN = join(ROOT, 'bin', 'loopledger.js');

export type AgentName = 'claude-code' | 'gemini' | 'codex';

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

type RunBuiltHook = (argv: readonly string[], io: { stdout: { write(s: string): unknown }; stderr: { write(s: string): unknown }; env: NodeJS.ProcessEnv; readStdin: () => string; cwd: string }) => Promise<number>;
let builtHook: Promise<RunBuiltHook> | null = null;

/**
 * The built guard (dist/hook/main.js, what `loopledger hook <agent>` runs) called in this worker
 * with the payload as its stdin: the guard keeps its state in files, so calls made one after
 * another see what a process per call would. Calls made at once race on the guard's lock, which
 * waits synchronously: those need processes (`runHookProcess`).
 */
export function runHook(args: readonly string[], stdin: string, env: Record<string, string> = {}): Promise<HookRun> {
  if (environmentNeedsProcess(env) !== null) return runHookProcess(args, stdin, env);
  ensureBuiltOnce();
  builtHook ??= import(pathToFileURL(join(ROOT, 'dist', 'hook', 'main.js')).href).then((m: { runHook: RunBuiltHook }) => m.runHook);
  return builtHook.then(async (run) => {
    let stdout = '';
    let stderr = '';
    const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env: cliEnv(env), readStdin: () => stdin, cwd: ROOT };
    const code = await run(args, io);
    return { code, stdout, stderr };
  });
}

/** Run the built binary as the agent does: a process per call, one JSON payload on stdin, stdout read back. */
export function runHookProcess(args: readonly string[], stdin: string, env: Record<string, string> = {}): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'hook', ...args], { cwd: ROOT, env: cliEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
  });
}

export interface ToolUse {
  name: string;
  input: Record<string, unknown>;
  /** What the tool returns; `error` makes it a failure. */
  output: string;
  error?: boolean;
}

export interface RoundSpec {
  text?: string;
  thinking?: string;
  calls: ToolUse[];
}

/** What the hook answered for one call. */
interface CallOutcome {
  pre: HookRun;
  /** null when the call was refused (the agent never runs it). */
  post: HookRun | null;
}

export interface RoundOutcome {
  calls: CallOutcome[];
}

export interface FakeAgentOptions {
  dir: string;
  session: string;
  mode: 'off' | 'telemetry' | 'enforce';
  /**
   * `ahead`: the transcript shows each response before its hooks fire (the usual case);
   * `behind`: it is written only after the hooks (the lag SPEC warns of): stdin is then the
   * only source for the newest calls; `text-first` (Gemini CLI 0.61.0, as recorded in
   * test/agents): a response's text is written before its calls run, and the calls are added to
   * that message only after their AfterTool hooks.
   */
  transcript?: 'ahead' | 'behind' | 'text-first';
  stateDir: string;
  extraArgs?: string[];
  /** How the hook is run: the built guard (`runHook`) by default; tests of semantics run src/ in-process. */
  runner?: (args: readonly string[], stdin: string) => Promise<HookRun>;
  /** Send no transcript_path (Codex allows null). */
  noTranscript?: boolean;
}

export function denied(run: HookRun, agent: AgentName): boolean {
  if (run.stdout.trim() === '') return false;
  const o = JSON.parse(run.stdout) as Record<string, unknown>;
  if (agent === 'gemini') return o.decision === 'deny';
  const h = o.hookSpecificOutput as Record<string, unknown> | undefined;
  return h?.permissionDecision === 'deny';
}

/** The reason of a deny, which Claude Code and Codex record as the refused call's answer. */
function denyReason(run: HookRun): string {
  const h = (JSON.parse(run.stdout) as { hookSpecificOutput?: { permissionDecisionReason?: string } }).hookSpecificOutput;
  return h?.permissionDecisionReason ?? '';
}

/** The output ends the turn (`continue: false`). */
export function ended(run: HookRun | null): boolean {
  if (!run || run.stdout.trim() === '') return false;
  return (JSON.parse(run.stdout) as Record<string, unknown>).continue === false;
}

export function context(run: HookRun | null): string | null {
  if (!run || run.stdout.trim() === '') return null;
  const h = (JSON.parse(run.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput;
  return h?.additionalContext ?? null;
}

/** Common machinery: the transcript file, the payload base, the hook runs. */
export abstract class FakeAgent {
  readonly transcript: string;
  protected n = 0;
  readonly runs: HookRun[] = [];

  constructor(
    readonly agent: AgentName,
    protected readonly opts: FakeAgentOptions,
    file: string,
  ) {
    this.transcript = join(opts.dir, file);
    writeFileSync(this.transcript, '');
  }

  get session(): string {
    return this.opts.session;
  }

  protected write(records: readonly unknown[]): void {
    if (records.length > 0) appendFileSync(this.transcript, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }

  protected async hook(payload: Record<string, unknown>): Promise<HookRun> {
    const args = [this.agent, '--mode', this.opts.mode, '--state-dir', this.opts.stateDir, ...(this.opts.extraArgs ?? [])];
    const stdin = JSON.stringify({ session_id: this.opts.session, transcript_path: this.opts.noTranscript ? null : this.transcript, cwd: this.opts.dir, ...payload });
    const run = await (this.opts.runner ?? runHook)(args, stdin);
    this.runs.push(run);
    return run;
  }

  abstract user(text: string): void;
  /** One model response with its tool calls, run through the hooks. */
  abstract round(spec: RoundSpec): Promise<RoundOutcome>;
  /** The turn's final answer. */
  abstract finish(text: string): Promise<HookRun>;

  protected id(prefix: string): string {
    this.n += 1;
    return `${prefix}${this.n}`;
  }
}

/** Claude Code: one JSONL line per content block, results in user lines (hooks reference). */
class FakeClaude extends FakeAgent {
  private msg = 0;
  constructor(opts: FakeAgentOptions) {
    super('claude-code', opts, `${opts.session}.jsonl`);
  }

  private line(extra: Record<string, unknown>): Record<string, unknown> {
    return { parentUuid: null, isSidechain: false, userType: 'external', cwd: this.opts.dir, sessionId: this.opts.session, version: '2.1.34', uuid: this.id('u-'), ...extra };
  }

  private assistant(msgId: string, block: unknown): Record<string, unknown> {
    return this.line({ type: 'assistant', message: { model: 'claude-sonnet-4-5-20250929', id: msgId, type: 'message', role: 'assistant', content: [block] } });
  }

  user(text: string): void {
    this.write([this.line({ type: 'user', message: { role: 'user', content: text } })]);
  }

  async round(spec: RoundSpec): Promise<RoundOutcome> {
    const msgId = `msg_${++this.msg}`;
    const ids = spec.calls.map(() => this.id('toolu_'));
    const blocks: unknown[] = [];
    if (spec.thinking) blocks.push({ type: 'thinking', thinking: spec.thinking, signature: 'sig' });
    if (spec.text) blocks.push({ type: 'text', text: spec.text });
    spec.calls.forEach((c, i) => blocks.push({ type: 'tool_use', id: ids[i], name: c.name, input: c.input }));
    const lines = blocks.map((b) => this.assistant(msgId, b));
    const ahead = this.opts.transcript !== 'behind';
    if (ahead) this.write(lines);
    const outcome: RoundOutcome = { calls: [] };
    const results: unknown[] = [];
    // Claude Code asks PreToolUse for each call, then runs the allowed ones.
    const pres: HookRun[] = [];
    for (let i = 0; i < spec.calls.length; i++) {
      const c = spec.calls[i]!;
      pres.push(await this.hook({ hook_event_name: 'PreToolUse', tool_name: c.name, tool_input: c.input, tool_use_id: ids[i] }));
    }
    for (let i = 0; i < spec.calls.length; i++) {
      const c = spec.calls[i]!;
      const pre = pres[i]!;
      if (denied(pre, 'claude-code')) {
        results.push(this.line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: ids[i], content: `PreToolUse:${c.name} hook error: ${denyReason(pre)}`, is_error: true }] } }));
        outcome.calls.push({ pre, post: null });
        continue;
      }
      const result = this.line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: ids[i], content: c.output, is_error: c.error === true }] } });
      if (ahead) this.write([result]);
      else results.push(result);
      const post = c.error
        ? await this.hook({ hook_event_name: 'PostToolUseFailure', tool_name: c.name, tool_input: c.input, tool_use_id: ids[i], error: c.output, is_interrupt: false })
        : await this.hook({ hook_event_name: 'PostToolUse', tool_name: c.name, tool_input: c.input, tool_use_id: ids[i], tool_response: { stdout: c.output, stderr: '', interrupted: false } });
      outcome.calls.push({ pre, post });
    }
    if (!ahead) this.write([...lines, ...results]);
    else this.write(results);
    return outcome;
  }

  async finish(text: string): Promise<HookRun> {
    const line = this.assistant(`msg_${++this.msg}`, { type: 'text', text });
    if (this.opts.transcript !== 'behind') this.write([line]);
    const run = await this.hook({ hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: text });
    if (this.opts.transcript === 'behind') this.write([line]);
    return run;
  }
}

/** Codex: a rollout of {timestamp, type, payload} envelopes; the hook sees shell calls as Bash. */
class FakeCodex extends FakeAgent {
  private turnId = 0;
  constructor(opts: FakeAgentOptions) {
    super('codex', opts, `rollout-2026-01-01T00-00-00-${opts.session}.jsonl`);
    this.write([
      { timestamp: 't', type: 'session_meta', payload: { id: opts.session, cwd: opts.dir, originator: 'codex_cli_rs', cli_version: '0.146.0', instructions: 'You are Codex.' } },
    ]);
  }

  private env(type: string, payload: Record<string, unknown>): Record<string, unknown> {
    return { timestamp: '2026-01-01T00:00:00.000Z', type, payload };
  }

  user(text: string): void {
    this.turnId += 1;
    this.write([
      this.env('turn_context', { cwd: this.opts.dir, model: 'gpt-5-codex', approval_policy: 'on-request' }),
      this.env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }),
      this.env('event_msg', { type: 'user_message', message: text, images: [] }),
    ]);
  }

  async round(spec: RoundSpec): Promise<RoundOutcome> {
    const ids = spec.calls.map(() => this.id('call_'));
    const items: unknown[] = [];
    if (spec.thinking) items.push(this.env('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: spec.thinking }] }));
    if (spec.text) items.push(this.env('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: spec.text }] }));
    spec.calls.forEach((c, i) =>
      items.push(this.env('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: c.input.command }), call_id: ids[i] })),
    );
    items.push(this.env('event_msg', { type: 'token_count', info: { last_token_usage: { input_tokens: 100, output_tokens: 20 } } }));
    const ahead = this.opts.transcript !== 'behind';
    if (ahead) this.write(items);
    const outcome: RoundOutcome = { calls: [] };
    const outputs: unknown[] = [];
    for (let i = 0; i < spec.calls.length; i++) {
      const c = spec.calls[i]!;
      const turn_id = `turn-${this.turnId}`;
      const pre = await this.hook({ hook_event_name: 'PreToolUse', model: 'gpt-5-codex', permission_mode: 'default', turn_id, tool_name: 'Bash', tool_input: { command: c.input.command }, tool_use_id: ids[i] });
      if (denied(pre, 'codex')) {
        outputs.push(this.env('response_item', { type: 'function_call_output', call_id: ids[i], output: `Command blocked by PreToolUse hook: ${denyReason(pre)}` }));
        outcome.calls.push({ pre, post: null });
        continue;
      }
      const body = `Exit code: ${c.error ? 1 : 0}\nWall time: 0.${i + this.n} seconds\nOutput:\n${c.output}`;
      const out = this.env('response_item', { type: 'function_call_output', call_id: ids[i], output: body });
      if (ahead) this.write([out]);
      else outputs.push(out);
      const post = await this.hook({ hook_event_name: 'PostToolUse', model: 'gpt-5-codex', permission_mode: 'default', turn_id, tool_name: 'Bash', tool_input: { command: c.input.command }, tool_use_id: ids[i], tool_response: c.output });
      outcome.calls.push({ pre, post });
    }
    if (!ahead) this.write([...items, ...outputs]);
    else this.write(outputs);
    return outcome;
  }

  async finish(text: string): Promise<HookRun> {
    const items = [
      this.env('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }),
      this.env('event_msg', { type: 'token_count', info: { last_token_usage: { input_tokens: 100, output_tokens: 20 } } }),
    ];
    if (this.opts.transcript !== 'behind') this.write(items);
    const run = await this.hook({ hook_event_name: 'Stop', model: 'gpt-5-codex', permission_mode: 'default', turn_id: `turn-${this.turnId}`, stop_hook_active: false, last_assistant_message: text });
    if (this.opts.transcript === 'behind') this.write(items);
    return run;
  }
}

/** Gemini CLI: the JSONL recording, where a message is appended again each time it changes. */
class FakeGemini extends FakeAgent {
  constructor(opts: FakeAgentOptions) {
    super('gemini', opts, `session-${opts.session}.jsonl`);
    this.write([{ sessionId: opts.session, projectHash: 'f'.repeat(64), startTime: '2026-01-01T00:00:00.000Z', lastUpdated: '2026-01-01T00:00:00.000Z', kind: 'main' }]);
  }

  user(text: string): void {
    this.write([{ id: this.id('g-user-'), timestamp: '2026-01-01T00:00:00.000Z', type: 'user', content: [{ text }] }, { $set: { lastUpdated: '2026-01-01T00:00:01.000Z' } }]);
  }

  async round(spec: RoundSpec): Promise<RoundOutcome> {
    const id = this.id('g-model-');
    const callIds = spec.calls.map((c) => this.id(`${c.name}_`));
    const message = (calls: unknown[] | null) => ({
      id,
      timestamp: '2026-01-01T00:00:02.000Z',
      type: 'gemini',
      content: spec.text ?? '',
      thoughts: spec.thinking ? [{ subject: 'Thinking', description: spec.thinking }] : [],
      model: 'gemini-2.5-pro',
      tokens: { input: 100, output: 20, thoughts: 0 },
      ...(calls === null ? {} : { toolCalls: calls }),
    });
    const scheduled = spec.calls.map((c, i) => ({ id: callIds[i], name: c.name, args: c.input, status: 'executing' }));
    const ahead = this.opts.transcript === undefined || this.opts.transcript === 'ahead';
    if (ahead) this.write([message(scheduled)]);
    if (this.opts.transcript === 'text-first') this.write([message(null)]);
    const outcome: RoundOutcome = { calls: [] };
    const done: unknown[] = [];
    // Gemini CLI 0.61.0 runs every BeforeTool of a response's calls before their AfterTools.
    let early: HookRun[] | null = null;
    if (this.opts.transcript === 'text-first') {
      early = [];
      for (const c of spec.calls) early.push(await this.before(c));
    }
    for (let i = 0; i < spec.calls.length; i++) {
      const c = spec.calls[i]!;
      const pre = early?.[i] ?? (await this.before(c));
      if (denied(pre, 'gemini')) {
        done.push({ ...scheduled[i], status: 'error', resultDisplay: 'denied by hook' });
        outcome.calls.push({ pre, post: null });
        continue;
      }
      // The shell tool appends its process group id: different on every run.
      const llmContent = `Command: ${String(c.input.command)}\nOutput: ${c.output}\nProcess Group PGID: ${4000 + this.n}`;
      done.push({
        ...scheduled[i],
        status: c.error ? 'error' : 'success',
        result: [{ functionResponse: { id: callIds[i], name: c.name, response: c.error ? { error: llmContent } : { output: llmContent } } }],
        resultDisplay: c.output,
      });
      if (ahead) this.write([message([...done, ...scheduled.slice(done.length)])]);
      const post = await this.hook({
        hook_event_name: 'AfterTool',
        timestamp: '2026-01-01T00:00:04.000Z',
        tool_name: c.name,
        tool_input: c.input,
        tool_response: c.error ? { llmContent, returnDisplay: c.output, error: c.output } : { llmContent, returnDisplay: c.output },
      });
      outcome.calls.push({ pre, post });
    }
    this.write([message(done)]);
    return outcome;
  }

  private before(c: ToolUse): Promise<HookRun> {
    return this.hook({ hook_event_name: 'BeforeTool', timestamp: '2026-01-01T00:00:03.000Z', tool_name: c.name, tool_input: c.input });
  }

  async finish(text: string): Promise<HookRun> {
    const line = { id: this.id('g-model-'), timestamp: '2026-01-01T00:00:05.000Z', type: 'gemini', content: text, thoughts: [], model: 'gemini-2.5-pro', tokens: { input: 100, output: 20 } };
    if (this.opts.transcript !== 'behind') this.write([line]);
    const run = await this.hook({ hook_event_name: 'AfterAgent', prompt: 'fix it', prompt_response: text, stop_hook_active: false });
    if (this.opts.transcript === 'behind') this.write([line]);
    return run;
  }
}

export function fakeAgent(agent: AgentName, opts: FakeAgentOptions): FakeAgent {
  if (agent === 'claude-code') return new FakeClaude(opts);
  if (agent === 'codex') return new FakeCodex(opts);
  return new FakeGemini(opts);
}
