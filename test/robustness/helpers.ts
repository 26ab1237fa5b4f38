// Shared by the robustness tests: the CLI run in-process (fast enough for property tests) and as
// the built binary (for the bad-input cases, where exit codes and real streams matter), scratch
// files under the OS temp directory, and the fixture corpus.

import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { FORMAT_NAMES } from '../../src/model/transcript.js';
import type { SkippedLine } from '../../src/read/skipped.js';
import { isConversationDir } from '../../src/read/conversation-dir.js';
import { scratchDir, type Scratch } from '../read/tmp.js';
import { ensureBuiltOnce, needsProcess, runBuiltMain } from '../cli/helpers.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = join(ROOT, 'fixtures');
export const BIN = join(ROOT, 'bin', 'loopledger.js');

export const ESC = '\u001b';

/** Rejects when `promise` has not settled after `ms`: a hang fails the test instead of stalling it. */
export async function within<T>(ms: number, promise: Promise<T>, what = 'run'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms (a hang?)`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

class Collector extends Writable {
  chunks: Buffer[] = [];
  isTTY = false;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    cb();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `main(argv)` in this process. With `stdin`, those chunks are what `-` reads: process.stdin is
 * swapped for the run because the CLI has no other way in, and the CLI is the thing under test.
 * `env` is the CLI's environment (NO_COLOR=1 alone by default).
 */
export async function runMain(
  argv: readonly string[],
  opts: { stdin?: readonly (Buffer | string)[]; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  // Loaded on first use, before the clock starts: most files that import these helpers only spawn
  // the binary, and a fresh worker evaluating the CLI's ~240 modules cost each of them ~0.45 CPU-s.
  const { main } = await import('../../src/cli.js');
  const stdout = new Collector();
  const stderr = new Collector();
  const original = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  if (opts.stdin) {
    const stream = Readable.from(opts.stdin.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
    Object.defineProperty(process, 'stdin', { value: stream, configurable: true, enumerable: true });
  }
  try {
    const code = await within(opts.timeoutMs ?? 10_000, main(argv, { stdout, stderr, env: opts.env ?? { NO_COLOR: '1' } }), `loopledger ${argv.join(' ')}`);
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    if (opts.stdin) Object.defineProperty(process, 'stdin', original);
  }
}

export interface SpawnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  ms: number;
}

/**
 * The built binary. `stdin`: bytes to send then close, or 'open' for a pipe that is never
 * written nor closed (a CLI that reads it would wait forever). Killed after `timeoutMs`. `nodeArgs`:
 * Node's own flags, before the script.
 */
export function spawnCli(
  args: readonly string[],
  opts: { stdin?: Buffer | string | 'open' | readonly Buffer[]; timeoutMs?: number; cwd?: string; nodeArgs?: readonly string[] } = {},
): Promise<SpawnResult> {
  ensureBuiltOnce();
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.stdin.on('error', () => {});
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), ms: Date.now() - started });
    });
    const input = opts.stdin;
    if (input === 'open') return;
    if (input === undefined) child.stdin.end();
    else if (typeof input === 'string' || Buffer.isBuffer(input)) child.stdin.end(input);
    else {
      // Written with pauses, so the reader really sees them as separate chunks.
      const parts = [...input];
      const next = () => {
        const part = parts.shift();
        if (part === undefined) child.stdin.end();
        else child.stdin.write(part, () => setTimeout(next, 2));
      };
      next();
    }
  });
}

/**
 * `spawnCli`'s result, from the built `main` called in this worker (test/cli/helpers.ts,
 * runBuiltMain) when the run needs no process of its own: no stdin, no other directory, no Node
 * flags. Otherwise, and with LOOPLEDGER_TEST_PROCESSES=1, the binary as a process.
 */
export async function runLoopledger(args: readonly string[], opts: Parameters<typeof spawnCli>[1] = {}): Promise<SpawnResult> {
  const inWorker = opts.stdin === undefined && opts.nodeArgs === undefined && (opts.cwd === undefined || opts.cwd === ROOT);
  if (!inWorker || needsProcess(args) !== null) return spawnCli(args, opts);
  const started = Date.now();
  const r = await runBuiltMain(args, { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined });
  return { code: r.code, signal: null, stdout: r.stdoutBytes, stderr: r.stderr, ms: Date.now() - started };
}

/** The built binary in a 48 MB V8 heap: a run that holds what it should stream aborts. */
export async function runCapped(args: string[], heapMb = 48): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await spawnCli(args, { nodeArgs: [`--max-old-space-size=${heapMb}`], timeoutMs: 600_000 });
  return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
}

// The binary runs dist/: one check for the whole suite, which rebuilds when dist/ is missing or
// older than src/ (this one only looked for dist/cli.js and built no bundle).
export { ensureBuilt } from '../cli/helpers.js';

export type { Scratch } from '../read/tmp.js';

export function scratch(prefix = 'loopledger-robust-'): Scratch {
  return scratchDir(prefix);
}

export interface Fixture {
  /** Relative to the repository root, e.g. fixtures/codex/rollout-….jsonl. */
  path: string;
  format: string;
  bytes: Buffer;
  /** JSON lines (as opposed to one JSON document). */
  jsonl: boolean;
}

/** Every transcript under fixtures/, in sorted order. */
export function fixtures(): Fixture[] {
  const out: Fixture[] = [];
  const walk = (dir: string) => {
    // An OpenHands V1 conversation folder is one input, not a file transcript per event.
    if (isConversationDir(readdirSync(dir, { withFileTypes: true }))) return;
    for (const name of readdirSync(dir).sort()) {
      // Hidden files (labels) are not transcripts; discovery skips them too.
      if (name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.jsonl?$/.test(name) && !name.endsWith('.meta.json')) {
        const rel = relative(ROOT, path);
        const format = rel.split(/[\\/]/).find((part) => (FORMAT_NAMES as readonly string[]).includes(part));
        const bytes = readFileSync(path);
        const jsonl = name.endsWith('.jsonl');
        // Pretty-printed objects one after another (an SDK's trace dump) are neither one document nor
        // JSON lines, so this record-by-record damage does not apply: test/formats/otel-bad-input.test.ts damages them.
        if (format && (jsonl || isOneDocument(bytes))) out.push({ path: rel, format, bytes, jsonl });
      }
    }
  };
  walk(FIXTURES);
  return out;
}

function isOneDocument(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

export { splitAt } from '../read/tmp.js';

/** Chunks of the given sizes, cycling through them (a size of 0 counts as 1). */
export function chunkBySizes(bytes: Buffer, sizes: readonly number[]): Buffer[] {
  const parts: Buffer[] = [];
  let at = 0;
  let i = 0;
  while (at < bytes.length) {
    const n = Math.max(1, sizes.length > 0 ? sizes[i++ % sizes.length]! : bytes.length);
    parts.push(bytes.subarray(at, at + n));
    at += n;
  }
  return parts;
}

/** Characters a terminal would obey: C0 except tab and newline, DEL, C1 (U+009B is a CSI). */
export const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** numRuns for a property: modest by default so the suite stays fast; ROBUSTNESS_SCALE=20 digs deeper. */
export function runs(n: number): number {
  const scale = Number(process.env['ROBUSTNESS_SCALE'] ?? '1');
  return Math.max(1, Math.round(n * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

/**
 * A transcript whose last tool result is 48 MB, past the reading thread's capped heap (40 MB: a
 * 32 MB record still reads there, 40 MB does not), after five identical failing batches that give
 * the ledger entries to compare. Written a megabyte at a time (the text needs no escaping): held
 * whole and stringified, the record cost the test's worker three copies of it before the ledger
 * read a byte (issue 31 item 6). A tool result rather than an assistant text: the text cost the
 * detectors 1.1 GB of RSS and 20 s, which proved nothing about the threads.
 */
export function writeHugeRecordTranscript(path: string): string {
  const unit = 'FAIL src/deploy.test.ts: the deployment is still pending; expected status ready. ';
  const stand = 'BIG-TEXT-STANDS-HERE';
  const records: unknown[] = [{ type: 'session', schema: 'loopledger-canonical/1', id: 'huge' }, { type: 'user', text: 'Run the tests until they pass.' }];
  for (let i = 0; i < 6; i++) {
    records.push({ type: 'assistant', text: '', tool_calls: [{ id: `c${i}`, name: 'run_tests', arguments: { path: 'src' } }] });
    records.push({ type: 'tool_result', id: `c${i}`, content: i === 5 ? stand : 'FAIL: 1 test failed', is_error: true });
  }
  const slice = unit.repeat(Math.ceil(2 ** 20 / unit.length));
  const fd = openSync(path, 'w');
  try {
    for (const r of records) {
      const [head, tail] = JSON.stringify(r).split(stand) as [string, string | undefined];
      writeSync(fd, head);
      if (tail !== undefined) {
        for (let n = 0; n < 48; n++) writeSync(fd, slice);
        writeSync(fd, tail);
      }
      writeSync(fd, '\n');
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

/** A run's diagnostics (and, asked, its progress) as lines, in the order they were said. */
export function diagnostics(withProgress = false): {
  said: string[];
  options: {
    onSkip: (path: string, s: SkippedLine) => void;
    onWarning: (m: string) => void;
    onProgress?: (done: number, total: number) => void;
  };
} {
  const said: string[] = [];
  return {
    said,
    options: {
      onSkip: (path, s) => said.push(`skip ${path}:${s.line}: ${s.reason}`),
      onWarning: (m) => said.push(`warning ${m}`),
      ...(withProgress ? { onProgress: (done: number, total: number) => said.push(`progress ${done}/${total}`) } : {}),
    },
  };
}
