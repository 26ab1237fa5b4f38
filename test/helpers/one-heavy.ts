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

/** Runs `work` while no other test process runs one of the heavy cases (`lock`: for this file's own test). */
export async function oneHeavyCaseAtATime<T>(work: () => Promise<T>, lock = LOCK): Promise<T> {
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
  try {
    writeFileSync(join(lock, 'pid'), String(process.pid));
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
