// The hook's files under the state directory: one state file per session (written atomically),
// a lock per session (parallel tool calls of one session fire their hooks concurrently), the
// session's ledger (`<session>.ledger.jsonl`) and `errors.log`. Synchronous on purpose: a hook
// call is one short process, and sync I/O keeps it to one Node start.

import { createHash } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** SPEC: `--state-dir`, default `$XDG_STATE_HOME/loopledger`, else `~/.local/state/loopledger`. */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const xdg = env['XDG_STATE_HOME'];
  if (xdg && xdg.startsWith('/')) return join(xdg, 'loopledger');
  return join(env['HOME'] || homedir(), '.local', 'state', 'loopledger');
}

/**
 * A file name for a session id: the id itself when it is tame (Claude Code, Codex and Gemini use
 * UUIDs), else a cleaned prefix and a hash, so no id can climb out of the state directory.
 */
export function fileKey(id: string): string {
  if (/^[A-Za-z0-9._-]{1,100}$/.test(id) && !id.startsWith('.')) return id;
  const clean = id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '').slice(0, 60);
  return `${clean}-${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

export function readState(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  return JSON.parse(text);
}

/** Temp file and rename: a reader (or a crash) never sees half a state. */
export function writeState(path: string, state: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
  renameSync(tmp, path);
}

/** A lock older than this is a crashed holder's: taken over. Far above any hook call's duration. */
const STALE_LOCK_MS = 10_000;
/** How long to wait for the session's other hook call before giving up (and failing open). */
const LOCK_WAIT_MS = 4_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export class LockTimeout extends Error {}

/** Take `path` exclusively (O_EXCL); returns the release function. */
export function lock(path: string, waitMs = LOCK_WAIT_MS): () => void {
  const deadline = Date.now() + waitMs;
  let pause = 2;
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // Already taken over as stale: nothing to release.
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_LOCK_MS) {
        unlinkSync(path);
        continue;
      }
    } catch {
      continue; // released meanwhile
    }
    if (Date.now() >= deadline) throw new LockTimeout(`lock ${path} still held after ${waitMs} ms`);
    sleep(pause);
    pause = Math.min(pause * 2, 50);
  }
}

export function appendLines(path: string, records: readonly unknown[]): void {
  if (records.length === 0) return;
  appendFileSync(path, records.map((r) => JSON.stringify(r)).join('\n') + '\n', { mode: 0o600 });
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** errors.log is rotated at this size (one old copy kept): a broken setup must not fill a disk. */
const ERRORS_LOG_MAX = 1024 * 1024;

/** One line in `<dir>/errors.log`; never throws (there is nowhere left to report to). */
export function logError(dir: string, message: string): void {
  try {
    ensureDir(dir);
    const path = join(dir, 'errors.log');
    if (fileSize(path) > ERRORS_LOG_MAX) renameSync(path, `${path}.1`);
    const line = `${new Date().toISOString()} ${message.replace(/[\r\n]+/g, ' ').slice(0, 2000)}\n`;
    appendFileSync(path, line, { mode: 0o600 });
  } catch {
    // Fail open, silently.
  }
}
