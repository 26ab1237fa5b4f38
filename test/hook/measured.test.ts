// test/hook/measured.mjs, which the guard's and merge's memory bounds are read from, reports the
// peak RSS of the process it runs in, not that of the test worker it was forked from: on Linux
// getrusage's maxRSS keeps the parent's peak across exec, and a worker of ~220 MB made a ~100 MB
// guard fail its 200 MB bound (hook-long-word, once npm test's workers ran file after file).

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../cli/helpers.js';

describe('the measured peak RSS', () => {
  it.runIf(process.platform === 'linux')("is the child's own, however much the process that spawned it holds", () => {
    ensureBuilt();
    // 200 MB resident here (every page written) before the spawn.
    const held = Buffer.alloc(200 * 1024 * 1024, 1);
    const r = spawnSync(process.execPath, [join(ROOT, 'test', 'hook', 'measured.mjs'), '--version'], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const { maxRssKb } = JSON.parse(r.output[3] as string) as { maxRssKb: number };
    expect(held.length).toBe(200 * 1024 * 1024);
    // `loopledger --version` holds ~40-60 MB of its own.
    expect(maxRssKb).toBeGreaterThan(10 * 1024);
    expect(maxRssKb).toBeLessThan(150 * 1024);
  });
});
