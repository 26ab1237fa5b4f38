// Drives the built CLI the way a user or a CI job does: its argv, its streams, its exit code.
// Everything in test/cli goes through here, so the dist/ build is what is tested, not the sources.
// A run is the built `main` called in this worker unless it needs a process of its own (see
// `needsProcess`): a Node start and the bundle's load cost ~0.3 CPU-s a run, most of what a small
// case costs, and the suite ran the CLI ~600 times (issue 57 item 6).

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Writable } from 'node:stream';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EnforceSaved, LedgerReport, RoundUsage, SessionCost, SessionUsage } from '../../src/ledger/types.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'loopledger.js');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Merged over the base environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** The working directory (default: the repository). */
  cwd?: string;
}

/** The parent's environment minus anything that would steer colour (vitest itself may set
 *  FORCE_COLOR), plus NO_COLOR=1 and a fixed SOURCE_DATE_EPOCH unless a test says otherwise. */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['FORCE_COLOR', 'NO_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'COLUMNS']) delete env[k];
  env['NO_COLOR'] = '1';
  // --format otlp stamps its records with the run's time: pinned, so two runs compare byte for byte.
  env['SOURCE_DATE_EPOCH'] = '1700000000';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** The raw child, for tests that play with the streams themselves (a reader closing early). */
export function spawnCli(args: readonly string[], options: Pick<RunOptions, 'env' | 'cwd'> = {}): ChildProcessWithoutNullStreams {
  ensureBuiltOnce();
  return spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env: cliEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
}

/** The hook commands a person types, which take their project folder as an argument of main's (CliIO.cwd). */
const HOOK_SETUP = ['install', 'uninstall', 'doctor'];

/**
 * Why `args` with `options` must run as a process of its own, or null when the built `main` can
 * run them here. `main` takes its streams and environment as arguments; what it takes from the
 * process itself is stdin (`-`, the guard's payload), the working directory, and what Node reads
 * at its start (NODE_OPTIONS, the time zone, the locale). LOOPLEDGER_TEST_PROCESSES=1 makes every
 * run a process, as before.
 */
export function needsProcess(args: readonly string[], options: RunOptions = {}): string | null {
  if (options.stdin !== undefined && options.stdin !== '') return 'it reads stdin';
  if (args.includes('-') || args.some((a) => a.startsWith('--output-file=-') || a === '-o-')) return 'it reads or writes a standard stream by name';
  const hookSetup = args[0] === 'hook' && HOOK_SETUP.includes(args[1] ?? '');
  if (args[0] === 'hook' && !hookSetup) return 'the guard reads its payload from stdin';
  // hook install|uninstall|doctor take their folder from main's io (CliIO.cwd); any other command reads paths from the process's.
  if (options.cwd !== undefined && resolvePath(options.cwd) !== process.cwd() && !hookSetup) return 'it runs in another directory';
  return environmentNeedsProcess(options.env);
}

/** Why any run given `env` needs a process of its own, whatever its arguments, or null. */
export function environmentNeedsProcess(env: RunOptions['env'] = {}): string | null {
  if (process.env['LOOPLEDGER_TEST_PROCESSES'] === '1') return 'LOOPLEDGER_TEST_PROCESSES=1';
  const startup = Object.keys(env).find((k) => /^(NODE_|UV_|TZ$|LANG$|LC_)/.test(k));
  return startup === undefined ? null : `${startup} is read when Node starts`;
}

type Main = (argv: readonly string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv; cwd?: string }) => Promise<number>;
let builtMain: Promise<Main> | null = null;

/** A stream that keeps what is written to it, as a pipe read to its end would. */
function collector(): { stream: Writable; bytes(): Buffer; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, encoding, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk);
      done();
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks), text: () => Buffer.concat(chunks).toString('utf8') };
}

/**
 * The built CLI's `main` (dist/cli.js, what bin/loopledger.js runs) called in this worker with
 * `env` as its whole environment; the caller sees to what `needsProcess` names.
 */
export async function runBuiltMain(args: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<RunResult & { stdoutBytes: Buffer }> {
  ensureBuiltOnce();
  builtMain ??= import(pathToFileURL(join(ROOT, 'dist', 'cli.js')).href).then((m: { main: Main }) => m.main);
  const main = await builtMain;
  const stdout = collector();
  const stderr = collector();
  const code = await main(args, { stdout: stdout.stream, stderr: stderr.stream, env, ...(cwd === undefined ? {} : { cwd: resolvePath(cwd) }) });
  return { code, signal: null, stdout: stdout.text(), stdoutBytes: stdout.bytes(), stderr: stderr.text() };
}

/** Run the CLI with `args`: in this worker where it can (`needsProcess`), else as a process of its own. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return needsProcess(args, options) === null ? runBuiltMain(args, cliEnv(options.env), options.cwd) : runProcess(args, options);
}

/** Run the built binary as a process of its own. */
export function runProcess(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, options);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    child.stdin.end(options.stdin ?? '');
  });
}

/** The newest modification time of the files below `dir` (0 where there are none). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Why dist/ does not hold a build of src/ as it is now, or null when it does. */
export function staleBuild(root = ROOT): string | null {
  const built = ['cli.js', 'loopledger.cjs', 'hook.cjs'].map((f) => join(root, 'dist', f));
  const missing = built.find((f) => !existsSync(f));
  if (missing) return `${missing} is missing`;
  const oldest = Math.min(...built.map((f) => statSync(f).mtimeMs));
  return newestMtime(join(root, 'src')) > oldest ? 'src/ changed after the last build' : null;
}

let checkedBuild = false;
/** Every run of the binary through the test helpers runs the build of src/ as it is now (checked once a process). */
export function ensureBuiltOnce(): void {
  if (checkedBuild) return;
  ensureBuilt();
  checkedBuild = true;
}

/**
 * For a `beforeAll`: `npm test` builds first, but an end-to-end file run alone after an edit would
 * test the old build. The build runs under a lock, so the workers of one run build once.
 */
export function ensureBuilt(): void {
  if (staleBuild() === null) return;
  const lock = join(ROOT, 'node_modules', '.loopledger-build.lock');
  const until = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > until) throw new Error(`the build lock ${lock} is still held after 5 minutes: remove it if no build is running`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    // Another worker may have built while this one waited.
    if (staleBuild() === null) return;
    const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}${r.stderr}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A scratch directory under the OS temp dir, removed by the returned cleanup. */
export function scratch(prefix = 'loopledger-cli-'): { dir: string; write(name: string, text: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    write(name, text) {
      const p = join(dir, name);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
      return p;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// ---------------------------------------------------------------------------------------------
// Transcript generators: one small event list, written out in several input formats, so each
// CLI case is a few lines and the same case is checked through more than one parser.

export type Call = readonly [name: string, args?: Record<string, unknown>];

export type Event =
  | { user: string }
  /** One model response. `answers` aligned with `calls`; null leaves every call unanswered. */
  | { calls: readonly Call[]; answers: readonly string[] | null; text?: string }
  | { prose: string };

export const user = (text = 'next, please'): Event => ({ user: text });
export const prose = (text: string): Event => ({ prose: text });
export const batch = (calls: readonly Call[], answers: readonly string[] | null = calls.map(() => 'ok'), text?: string): Event =>
  text === undefined ? { calls, answers } : { calls, answers, text };

/** `n` occurrences of one batch with identical, changing (`out 1`, `out 2`…) or no answers. */
export function repeat(calls: readonly Call[], n: number, answers: 'same' | 'changing' | 'unknown'): Event[] {
  return Array.from({ length: n }, (_, i) =>
    batch(calls, answers === 'unknown' ? null : calls.map(() => (answers === 'same' ? 'out' : `out ${i + 1}`))),
  );
}

const jsonl = (records: readonly unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** Every transcript opens with a user turn, as real ones do; events never need to say so. */
function opened(events: readonly Event[]): Event[] {
  return 'user' in (events[0] ?? {}) ? [...events] : [user('please fix the build'), ...events];
}

export interface CanonicalSession {
  id: string;
  events: readonly Event[];
  model?: string;
}

/** loopledger's own JSONL (docs/canonical-format.md); many sessions per file. */
export function canonical(sessions: readonly CanonicalSession[]): string {
  const records: unknown[] = [];
  let n = 0;
  for (const s of sessions) {
    records.push({ type: 'session', schema: 'loopledger-canonical/1', id: s.id, parent: null, model: s.model ?? 'test-model' });
    for (const e of opened(s.events)) {
      if ('user' in e) records.push({ type: 'user', text: e.user });
      else if ('prose' in e) records.push({ type: 'assistant', text: e.prose });
      else {
        const ids = e.calls.map(() => `c${++n}`);
        records.push({
          type: 'assistant',
          text: e.text ?? '',
          tool_calls: e.calls.map(([name, args], i) => ({ id: ids[i], name, arguments: args ?? {} })),
        });
        e.answers?.forEach((content, i) => records.push({ type: 'tool_result', id: ids[i], content }));
      }
    }
  }
  return jsonl(records);
}

/** OpenAI Chat Completions, one message per line; the session is named after the file. Arguments
 *  are JSON strings, as the API sends them, written with the keys in the order given. */
export function openai(events: readonly Event[], model = 'gpt-4o'): string {
  const records: unknown[] = [{ role: 'system', content: 'You are a coding agent.' }];
  let n = 0;
  for (const e of opened(events)) {
    if ('user' in e) records.push({ role: 'user', content: e.user });
    else if ('prose' in e) records.push({ role: 'assistant', content: e.prose, model });
    else {
      const ids = e.calls.map(() => `call_${++n}`);
      records.push({
        role: 'assistant',
        content: e.text ?? '',
        model,
        tool_calls: e.calls.map(([name, args], i) => ({
          id: ids[i],
          type: 'function',
          function: { name, arguments: JSON.stringify(args ?? {}) },
        })),
      });
      e.answers?.forEach((content, i) => records.push({ role: 'tool', tool_call_id: ids[i], content }));
    }
  }
  return jsonl(records);
}

/** Claude Code session JSONL: one line per content block, tool results inside user lines. */
export function claudeCode(events: readonly Event[], sessionId = '0c1d2e3f-0000-4000-8000-000000000001'): string {
  const records: unknown[] = [];
  let n = 0;
  let parent: string | null = null;
  const base = () => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    const r = { parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/repo', sessionId, version: '2.1.34', uuid };
    parent = uuid;
    return r;
  };
  const model = 'claude-sonnet-4-5-20250929';
  const assistant = (id: string, block: unknown) => ({
    ...base(),
    type: 'assistant',
    message: { model, id, type: 'message', role: 'assistant', content: [block], usage: { input_tokens: 10, output_tokens: 5 } },
  });
  let m = 0;
  for (const e of opened(events)) {
    if ('user' in e) {
      records.push({ ...base(), type: 'user', message: { role: 'user', content: e.user } });
    } else if ('prose' in e) {
      records.push(assistant(`msg_${++m}`, { type: 'text', text: e.prose }));
    } else {
      const id = `msg_${++m}`;
      if (e.text) records.push(assistant(id, { type: 'text', text: e.text }));
      const ids = e.calls.map((_, i) => `toolu_${m}_${i}`);
      e.calls.forEach(([name, args], i) => records.push(assistant(id, { type: 'tool_use', id: ids[i], name, input: args ?? {} })));
      e.answers?.forEach((content, i) =>
        records.push({
          ...base(),
          type: 'user',
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: ids[i], content }] },
        }),
      );
    }
  }
  return jsonl(records);
}

// ---------------------------------------------------------------------------------------------
// The JSON ledger, typed just enough for the assertions.

export interface Strike {
  count: number;
  threshold: number;
  total: number;
  ceiling: number | null;
  read_only: boolean;
}

interface Entry {
  turn: number;
  round: number;
  line: number | null;
  detector: string;
  kind: string;
  confidence: number | null;
  strike: Strike | null;
  evidence: Record<string, unknown>;
  intervention: { off: string; telemetry: string; enforce: string };
  after_stop: boolean;
  reminder?: string;
  excerpts?: string[];
  round_usage?: RoundUsage;
}

export interface Session {
  id: string;
  path: string;
  format: string;
  parent: string | null;
  project?: string | null;
  model: string | null;
  started_at?: string | null;
  ended_at?: string | null;
  turns: number;
  rounds: number;
  tool_calls: number;
  usage?: SessionUsage;
  cost?: SessionCost;
  entries: Entry[];
  outcome: { enforce: { steers: number; stops: Array<{ turn: number; round: number; recovered_at?: number }>; saved?: EnforceSaved; cut?: EnforceSaved } };
}

export interface Ledger {
  schema: string;
  tool: { name: string; version: string };
  config: Record<string, unknown>;
  config_hash?: string;
  inputs: Array<{ path: string; format: string; sessions: number; lines: number; skipped: Array<{ line: number | null; reason: string }>; error?: string }>;
  pricing?: LedgerReport['pricing'];
  sessions: Session[];
  summary: {
    sessions: number;
    rounds: number;
    entries: number;
    skipped_lines: number;
    enforce: { sessions_stopped: number; sessions_steered: number; saved?: EnforceSaved & { unpriced_sessions: number; sessions?: number }; cut?: EnforceSaved & { unpriced_sessions: number; sessions?: number } };
    cost?: { usd: number | null; unpriced_sessions: number };
  };
}

export function parseLedger(r: RunResult): Ledger {
  try {
    return JSON.parse(r.stdout) as Ledger;
  } catch (e) {
    throw new Error(`stdout is not JSON (exit ${r.code}): ${(e as Error).message}\nstderr: ${r.stderr}\nstdout: ${r.stdout.slice(0, 400)}`);
  }
}

