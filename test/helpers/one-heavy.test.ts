// The heavy cases' turn-taking (one-heavy.ts): never two at once, and a lock left by a process
// that is gone does not stop the next one.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { oneHeavyCaseAtATime } from './one-heavy.js';

// A lock of this file's own: the suite's heavy cases may be holding the real one.
const dir = mkdtempSync(join(tmpdir(), 'loopledger-one-heavy-'));
const lock = join(dir, 'one-heavy.lock');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('oneHeavyCaseAtATime', () => {
  it('runs the cases one after the other, each given its result', async () => {
    let running = 0;
    let most = 0;
    const work = (n: number) => async () => {
      most = Math.max(most, ++running);
      await sleep(30);
      running--;
      return n;
    };
    expect(await Promise.all([1, 2, 3].map((n) => oneHeavyCaseAtATime(work(n), lock)))).toEqual([1, 2, 3]);
    expect(most).toBe(1);
  });

  it('a case that throws lets the next one go', async () => {
    await expect(oneHeavyCaseAtATime(() => Promise.reject(new Error('boom')), lock)).rejects.toThrow('boom');
    expect(await oneHeavyCaseAtATime(() => Promise.resolve('next'), lock)).toBe('next');
  });

  it("takes over a lock whose owner's process is gone", async () => {
    mkdirSync(lock);
    // Far above any pid Linux hands out (pid_max is at most 2^22).
    writeFileSync(join(lock, 'pid'), String(2 ** 30));
    expect(await oneHeavyCaseAtATime(() => Promise.resolve('taken'), lock)).toBe('taken');
  });
});
