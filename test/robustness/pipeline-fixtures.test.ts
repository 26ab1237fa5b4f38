// Soak tier (npm run test:soak): every fixture, one thread against two (test/robustness/pipeline.test.ts keeps the generated large file's cases).
// The two-thread pipeline (src/run/reader-thread.ts) gives every fixture the ledger and diagnostics of
// the one-thread path, byte for byte (SPEC "Performance": "output byte-identical whatever the
// chunking/jobs"); through the build, where the reading thread's worker exists.

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, fixtures, ROOT } from './helpers.js';
import { loadDist, run } from './pipeline-run.js';

beforeAll(async () => {
  ensureBuilt();
  await loadDist();
});

describe('two-thread pipeline, every fixture', () => {
  it('gives every fixture the one-thread ledger and diagnostics', async () => {
    for (const f of fixtures()) {
      const file = join(ROOT, f.path);
      const one = await run(file, 'one thread');
      const two = await run(file, 'two threads');
      expect(two.json, f.path).toBe(one.json);
      expect(two.diagnostics, f.path).toEqual(one.diagnostics);
    }
    // ~15 s quiet; 120 s ran out at load 12 (a reading thread started for each of ~140 fixtures).
  }, 300_000);
});
