// The few cases that hold hundreds of MB at once (a document read up to V8's string limit, a
// 50 MB line, a 256 MB merge) take turns across vitest's workers: the suite's peak memory is then
// the largest of them, not their sum when two files reach them together. (Two waiters finding
// the same stale lock may both go ahead: that costs memory once, never a result.)

import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const LOCK = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.tmp', 'one-heavy.lock');
/** A lock without its owner's pid this long was left by a process killed between the two steps. */
const ORPHAN_MS = 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the lock's owner is gone (killed, or finished without releasing). */
function stale(lock: string): boolean {
  try {
    return !alive(Number(readFileSync(join(lock, 'pid'), 'utf8')));
  } catch {
    const made = statSync(lock, { throwIfNoEntry: false });
    return made !== undefined && Date.now() - made.mtimeMs > ORPHAN_MS;
  }
}

/**
 * Waits until no other test process holds `lock`, takes it, and returns what lets it go: for a
 * turn that spans a file's beforeAll and afterAll (a browser, launched once for the file).
 */
export async function takeTurn(lock: string): Promise<() => void> {
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (stale(lock)) rmSync(lock, { recursive: true, force: true });
      else await sleep(250);
    }
  }
  writeFileSync(join(lock, 'pid'), String(process.pid));
  return () => rmSync(lock, { recursive: true, force: true });
}

/** Runs `work` while no other test process runs one of the heavy cases (`lock`: for this file's own test). */
export async function oneHeavyCaseAtATime<T>(work: () => Promise<T>, lock = LOCK): Promise<T> {
  const release = await takeTurn(lock);
  try {
    return await work();
  } finally {
    release();
  }
}

/**
 * The Chromium test files take turns: each browser is ~340 MB over its processes, and two at once
 * were the end-to-end phase's peak (1,085 MB with vitest beside them; issue 31 item 6).
 */
export const ONE_BROWSER_LOCK = join(dirname(LOCK), 'one-browser.lock');
