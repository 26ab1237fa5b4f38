// The hook's files under the state directory: one state file per session (written atomically),
// a lock per session (parallel tool calls of one session fire their hooks concurrently), the
// session's ledger (`<session>.ledger.jsonl`) and `errors.log`. Synchronous on purpose: a hook
// call is one short process, and sync I/O keeps it to one Node start.
//
// The state directory may be shared (a --state-dir under /tmp), so no file in it is trusted by
// name: every file is opened without following a symbolic link, must be a regular file of ours,
// and the directory itself is refused when someone else could swap its files (see checkStateDir).

import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readWholeFd } from './fd.js';

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

/** 0 where the platform has no such flag (Windows): the checks below are POSIX ones. */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const READ = constants.O_RDONLY | NOFOLLOW | NONBLOCK;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | NONBLOCK;
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;

/** A file or the directory under the state directory cannot be used safely: nothing is written to it. */
export class StateRefused extends Error {}

const uid = typeof process.getuid === 'function' ? process.getuid() : null;
/** Directories already created and checked by this process (a call checks its directory once). */
const checked = new Map<string, string | null>();

/**
 * Create `dir` (0700, parents too) or check the one that is there: it must be a directory owned
 * by this user (or root, as /tmp is), not writable by others unless sticky (then others cannot
 * rename or remove our files), and, if it is a symbolic link, one this user or root made.
 * Throws StateRefused saying which rule it breaks.
 */
export function ensureDir(dir: string): void {
  const known = checked.get(dir);
  if (known === null) return;
  if (known !== undefined) throw new StateRefused(known);
  const problem = stateDirProblem(dir);
  checked.set(dir, problem);
  if (problem !== null) throw new StateRefused(problem);
}

function stateDirProblem(dir: string): string | null {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    return `state directory ${dir}: ${(e as Error).message}`;
  }
  if (uid === null) return null;
  const link = lstatSync(dir);
  if (link.isSymbolicLink() && link.uid !== uid && link.uid !== 0) {
    return `state directory ${dir} is a symbolic link owned by uid ${link.uid}, not by you: refused`;
  }
  const st = link.isSymbolicLink() ? statSync(dir) : link;
  if (!st.isDirectory()) return `state directory ${dir} is not a directory`;
  if (st.uid !== uid && st.uid !== 0) return `state directory ${dir} is owned by uid ${st.uid}, not by you: refused`;
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) {
    return `state directory ${dir} is writable by others and not sticky (mode ${(st.mode & 0o7777).toString(8)}): refused (chmod go-w it)`;
  }
  return null;
}

/** An open file in the state directory must be a regular file of ours (not a planted one). */
function checkOwn(fd: number, path: string): void {
  const st = fstatSync(fd);
  if (!st.isFile()) throw new StateRefused(`${path} is not a regular file: refused`);
  if (uid !== null && st.uid !== uid) throw new StateRefused(`${path} is owned by uid ${st.uid}, not by you: refused`);
}

function openOwn(path: string, flags: number, mode = 0o600): number {
  let fd: number;
  try {
    fd = openSync(path, flags, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new StateRefused(`${path} is a symbolic link: refused (remove it)`);
    throw e;
  }
  try {
    checkOwn(fd, path);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return fd;
}

/** A state file is a few hundred KB at most (bounded memories); anything larger is not ours. */
const STATE_MAX_BYTES = 16 * 1024 * 1024;

/** The parsed state file, or null when there is none. Throws on an unreadable or unparsable one. */
export function readState(path: string): unknown {
  let fd: number;
  try {
    fd = openOwn(path, READ);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    if (size > STATE_MAX_BYTES) throw new Error(`${size} bytes, more than a state file ever holds`);
    return JSON.parse(readWholeFd(fd, size));
  } finally {
    closeSync(fd);
  }
}

function writeAllFd(fd: number, text: string): void {
  const data = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}

/** Temp file and rename: a reader (or a crash) never sees half a state. */
export function writeState(path: string, state: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  let fd: number;
  try {
    fd = openOwn(tmp, CREATE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    // A crashed call of the same pid left it (or someone planted it): removing a name never
    // touches what a link points to.
    unlinkSync(tmp);
    fd = openOwn(tmp, CREATE);
  }
  try {
    writeAllFd(fd, JSON.stringify(state));
  } finally {
    closeSync(fd);
  }
  // rename replaces whatever has the name (a planted link included) without following it.
  renameSync(tmp, path);
}

/**
 * A lock older than this is a crashed holder's: taken over. The agent kills a hook at 5 s, so no
 * live holder is older than that.
 */
const STALE_LOCK_MS = 6_000;
/** How long to wait for the session's other hook call before giving up (and failing open). */
const LOCK_WAIT_MS = 3_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Sleeps without spinning (the thread is parked, as a blocking read would be). */
export function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export class LockTimeout extends Error {}

/** Whether the lock at `path` can be taken over: its holder is gone or it is older than `staleMs`. */
function staleLock(path: string, staleMs: number): boolean {
  const st = lstatSync(path);
  if (!st.isFile()) {
    // A link or a directory under a lock's name is nobody's lock: waiting would not free it.
    throw new StateRefused(`lock ${path} is ${st.isSymbolicLink() ? 'a symbolic link' : st.isDirectory() ? 'a directory' : 'not a regular file'}: remove it`);
  }
  if (Date.now() - st.mtimeMs > staleMs) return true;
  let fd: number;
  try {
    fd = openSync(path, READ);
  } catch {
    return false;
  }
  let pid = 0;
  try {
    const b = Buffer.alloc(16);
    pid = Number(b.toString('utf8', 0, readSync(fd, b, 0, 16, 0)).trim());
  } finally {
    closeSync(fd);
  }
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    // ESRCH: no such process (a holder the agent killed at its timeout). EPERM: alive, not ours.
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Take `path` exclusively (O_EXCL); returns the release function. Never waits past `waitMs`. A lock
 * whose holder is gone, or older than `staleMs` (no live holder keeps it that long), is taken over.
 */
export function lock(path: string, waitMs = LOCK_WAIT_MS, staleMs = STALE_LOCK_MS): () => void {
  const deadline = Date.now() + Math.max(0, waitMs);
  let pause = 2;
  for (let attempt = 0; ; attempt++) {
    // Every path through the loop meets the deadline (a lock that keeps vanishing and coming back included).
    if (attempt > 0 && Date.now() >= deadline) throw new LockTimeout(`lock ${path} still held after ${waitMs} ms`);
    try {
      const fd = openSync(path, CREATE, 0o600);
      try {
        writeAllFd(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // Already taken over as stale: nothing to release.
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new StateRefused(`lock ${path}: ${(e as Error).message}`);
    }
    let stale = false;
    try {
      stale = staleLock(path, staleMs);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      continue; // released meanwhile: try again at once
    }
    if (stale) {
      try {
        unlinkSync(path);
        continue;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw new StateRefused(`stale lock ${path} cannot be removed: ${(e as Error).message}`);
      }
    }
    if (Date.now() >= deadline) continue;
    sleep(Math.min(pause, Math.max(1, deadline - Date.now())));
    pause = Math.min(pause * 2, 50);
  }
}

export function appendLines(path: string, records: readonly unknown[]): void {
  if (records.length === 0) return;
  const fd = openOwn(path, APPEND);
  try {
    writeAllFd(fd, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  } finally {
    closeSync(fd);
  }
}

function sizeOf(path: string): number {
  try {
    return lstatSync(path).size;
  } catch {
    return 0;
  }
}

/** errors.log is rotated at this size (one old copy kept): a broken setup must not fill a disk. */
const ERRORS_LOG_MAX = 1024 * 1024;

/**
 * One line in `<dir>/errors.log`; never throws (there is nowhere left to report to). Returns why
 * the line could not be written there (a refused directory, a planted log), else null, so the
 * caller can say it on stderr instead.
 */
export function logError(dir: string, message: string): string | null {
  try {
    ensureDir(dir);
    const path = join(dir, 'errors.log');
    // lstat and rename act on the name, never on a link's target.
    if (sizeOf(path) > ERRORS_LOG_MAX) renameSync(path, `${path}.1`);
    const fd = openOwn(path, APPEND);
    try {
      writeAllFd(fd, `${new Date().toISOString()} ${message.replace(/[\r\n]+/g, ' ').slice(0, 2000)}\n`);
    } finally {
      closeSync(fd);
    }
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
