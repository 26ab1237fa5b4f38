// Files that several loopledger processes may rewrite at once (`config --write`, the labels file of
// `label`): each update reads the file, changes it and writes it back under a lock beside it, so
// two runs never both start from the same old file and one of them lose the other's change.

import { promises as fs } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { lock } from '../hook/store.js';
import { LoopledgerError } from '../errors.js';

/** How long a run waits for another one's update (each takes milliseconds) before it gives up. */
const LOCK_WAIT_MS = 30_000;
/** A lock older than this is a crashed run's (a dead holder's is taken over at once anyway). */
const LOCK_STALE_MS = 60_000;

/**
 * Run `update` (read, merge, write) with `FILE.lock` held, FILE being the real file behind a
 * symbolic link, so two names for one file share one lock. The lock holds our pid: a run that
 * died holding it (a signal, SIGKILL) does not block the next.
 */
export async function underFileLock<T>(file: string, update: () => Promise<T>): Promise<T> {
  const real = await fs.realpath(file).catch(() => resolve(file));
  let release: () => void;
  try {
    await fs.mkdir(dirname(real), { recursive: true });
    release = lock(`${real}.lock`, LOCK_WAIT_MS, LOCK_STALE_MS);
  } catch (e) {
    throw new LoopledgerError(`cannot lock ${file} for writing: ${(e as Error).message}`);
  }
  try {
    return await update();
  } finally {
    release();
  }
}
