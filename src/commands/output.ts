// Where a payload goes: stdout, or a file written so that no reader ever sees half a report and
// no input is ever overwritten (SPEC "Bad input": refused by device and inode, hard links and
// symbolic links included; written to a temporary file in the same folder, then renamed).

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { LoopledgerError, UsageError } from '../errors.js';

/** A payload whole, or in pieces (a renderer that streams). */
export type Payload = string | Iterable<string> | AsyncIterable<string>;

/** `--output-file -` (and no --output-file at all) means stdout. */
export function isStdout(target: string | undefined): target is undefined | '-' {
  return target === undefined || target === '-';
}

/**
 * Refuse `target` when it is the same file as one of `inputs`: same device and inode, so a hard
 * link or a symbolic link to a transcript is caught as well as the transcript's own name.
 * A target that does not exist yet cannot be an input.
 */
export async function refuseInputAsOutput(target: string, inputs: readonly string[], flag = '--output-file'): Promise<void> {
  const out = await fs.stat(target).catch(() => null);
  if (out === null) return;
  for (const input of inputs) {
    if (input === '-') continue;
    const source = await fs.stat(input).catch(() => null);
    if (source !== null && source.dev === out.dev && source.ino === out.ino) {
      const how = input === target ? '' : ` (${input}, by another name)`;
      throw new UsageError(`${flag} ${target} is one of the inputs${how}; refusing to overwrite it`);
    }
  }
}

/** Our temporary files beside an output: `.NAME.PID-HEX.tmp` (so a sweep can tell ours from anyone else's). */
function tempName(name: string): string {
  return `.${name}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

/** The writer's pid when `file` is `PREFIX PID-HEX SUFFIX`, a name only our temps have; else null. */
function ourTempPid(file: string, prefix: string, suffix: string): number | null {
  if (!file.startsWith(prefix) || !file.endsWith(suffix) || file.length <= prefix.length + suffix.length) return null;
  const m = /^(\d+)-[0-9a-f]{8}$/.exec(file.slice(prefix.length, -suffix.length));
  return m ? Number(m[1]) : null;
}

/**
 * A temp left by a run that was killed (SIGKILL, a power cut) is only swept once it is this old:
 * another run may be writing the same report right now, and no report takes this long to write
 * once rendered, so an older one is a leftover.
 */
export const STALE_TEMP_MS = 10 * 60 * 1000;

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove our stale temps in `dir` named `PREFIX PID-HEX SUFFIX`: only our naming, only older than
 * STALE_TEMP_MS, only of a process that is gone (`-o`'s `.NAME.…tmp`, merge's spill files).
 */
export async function sweepStaleTemps(dir: string, prefix: string, suffix: string): Promise<void> {
  const files = await fs.readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  for (const file of files) {
    const pid = ourTempPid(file, prefix, suffix);
    if (pid === null || alive(pid)) continue;
    const path = join(dir, file);
    const st = await fs.lstat(path).catch(() => null);
    if (st === null || !st.isFile() || now - st.mtimeMs < STALE_TEMP_MS) continue;
    await fs.rm(path, { force: true }).catch(() => {});
  }
}

/**
 * Temps being written now. A signal must end a run at once, whatever the main thread is doing: a
 * handler in JavaScript only runs when the thread is free, and a synchronous stretch (a long
 * render) kept it waiting 35 s. So signals keep their default action (the kernel ends the process
 * at once, and a shell sees 128 + n), and a small watchdog process beside us removes the temp once
 * our end of its pipe closes: at a signal, at SIGKILL or out of memory too. It runs in a session of
 * its own, so the Ctrl-C that reaches our process group does not end it first.
 */
function watchTemp(temp: string): (() => void) | null {
  if (process.platform === 'win32') return null;
  try {
    const watcher = spawn('/bin/sh', ['-c', 'IFS= read -r done; [ "$done" = kept ] || rm -f -- "$1"', 'loopledger-temp-watcher', temp], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    // No /bin/sh: the run goes on; a later run sweeps a temp left by a kill (sweepStaleTemps).
    watcher.on('error', () => {});
    watcher.stdin.on('error', () => {});
    watcher.unref();
    (watcher.stdin as unknown as { unref?: () => void }).unref?.();
    return () => watcher.stdin.end('kept\n');
  } catch {
    return null;
  }
}

/** Where no watchdog can run (Windows): removed by a handler, then the process exits as the signal says. */
const handledTemps = new Set<string>();
const SIGNAL_EXIT: Readonly<Record<'SIGINT' | 'SIGTERM' | 'SIGHUP', number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

function onSignal(signal: keyof typeof SIGNAL_EXIT): void {
  for (const temp of handledTemps) rmSync(temp, { force: true });
  handledTemps.clear();
  // The conventional 128 + signal number, as a shell reports a process the signal ended.
  process.exit(SIGNAL_EXIT[signal]);
}

function handleSignals(temp: string): () => void {
  const signals = Object.keys(SIGNAL_EXIT) as (keyof typeof SIGNAL_EXIT)[];
  if (handledTemps.size === 0) for (const s of signals) process.on(s, onSignal);
  handledTemps.add(temp);
  return () => {
    handledTemps.delete(temp);
    // Without a temp to remove, a signal keeps its default meaning.
    if (handledTemps.size === 0) for (const s of signals) process.off(s, onSignal);
  };
}

/**
 * `temp` (a file of ours: `-o`'s temp, merge's spill) removed if the run is ended by a signal; the
 * function returned stops that once the temp is renamed or removed. Call it before creating `temp`.
 */
export function removeOnSignal(temp: string): () => void {
  const absolute = resolve(temp);
  return watchTemp(absolute) ?? handleSignals(absolute);
}

/**
 * Write `payload` to `target` atomically: into a temporary file beside the real file (the target
 * of a symbolic link, so the link stays a link), then renamed over it. Missing parent folders are
 * created. An existing file keeps its permissions. Ended by a signal (SIGINT, SIGTERM, SIGHUP, even
 * SIGKILL), the temporary file is removed (removeOnSignal); one left all the same (no /bin/sh, a
 * power cut) is swept by a later run.
 */
export async function writeFileAtomically(target: string, payload: Payload): Promise<void> {
  const real = await fs.realpath(target).catch(() => target);
  const existing = await fs.stat(real).catch(() => null);
  // A device or a pipe (`-o /dev/null`, a FIFO) is written into: renaming over it would replace
  // the device with a regular file (as root, /dev/null for the whole machine).
  if (existing !== null && !existing.isFile() && !existing.isDirectory()) {
    await writeInto(target, real, payload);
    return;
  }
  const dir = dirname(real);
  const temp = join(dir, tempName(basename(real)));
  let handle: fs.FileHandle | null = null;
  let release = () => {};
  try {
    await fs.mkdir(dir, { recursive: true });
    await sweepStaleTemps(dir, `.${basename(real)}.`, '.tmp');
    const mode = (await fs.stat(real).catch(() => null))?.mode;
    release = removeOnSignal(temp);
    handle = await fs.open(temp, 'wx', mode === undefined ? 0o666 : mode & 0o7777);
    for await (const piece of pieces(payload)) await handle.write(piece);
    // open() is subject to the umask: an existing report keeps exactly the mode it had.
    if (mode !== undefined) await handle.chmod(mode & 0o7777);
    await handle.close();
    handle = null;
    await fs.rename(temp, real);
  } catch (e) {
    await handle?.close().catch(() => {});
    await fs.rm(temp, { force: true }).catch(() => {});
    throw new LoopledgerError(`cannot write ${target}: ${(e as Error).message}`);
  } finally {
    release();
  }
}

async function writeInto(target: string, real: string, payload: Payload): Promise<void> {
  let handle: fs.FileHandle | null = null;
  try {
    handle = await fs.open(real, 'w');
    for await (const piece of pieces(payload)) await handle.write(piece);
    await handle.close();
    handle = null;
  } catch (e) {
    await handle?.close().catch(() => {});
    throw new LoopledgerError(`cannot write ${target}: ${(e as Error).message}`);
  }
}

async function* pieces(payload: Payload): AsyncIterable<string> {
  if (typeof payload === 'string') {
    yield payload;
    return;
  }
  for await (const piece of payload as AsyncIterable<string>) yield piece;
}
