// The two-thread pipeline's case that needs half a gigabyte to show: a record too large for the
// reading thread's capped heap. It runs in vitest's `heavy` project (vitest.config.ts: any file
// that calls oneHeavyCaseAtATime), one file at a time after the others, so the suite's peak memory
// is this case alone, not this case beside four workers (issue 31, item 6). The other pipeline
// cases are in pipeline.test.ts.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneHeavyCaseAtATime } from '../helpers/one-heavy.js';
import { ensureBuilt, scratch, writeHugeRecordTranscript, type Scratch } from './helpers.js';
import { type Dist, loadDist, run } from './pipeline-run.js';

let dist: Dist;
let tmp: Scratch;

beforeAll(async () => {
  ensureBuilt();
  dist = await loadDist();
  tmp = scratch('loopledger-pipeline-huge-');
}, 120_000);

afterAll(() => tmp?.cleanup());

describe('two-thread pipeline, a record past the reading thread\'s heap', () => {
  it('a record too large for the worker\'s capped heap: the file is redone on one thread, same ledger', async () => {
    await oneHeavyCaseAtATime(async () => {
      // A 48 MB tool result, past the reading thread's capped heap (helpers.ts): the thread fails
      // and the file is read again here, so the answer is still the one-thread answer.
      const file = writeHugeRecordTranscript(join(tmp.dir, 'huge-record.jsonl'));
      expect(await dist.pipeline.worthPipelining(file)).toBe(true);
      // The reading thread gives up on it (null): what auditFile answers below is the redo here.
      expect(await dist.pipeline.ingestInWorker(file, { session() {}, turn() {}, round() {}, end() {} }, { inputFormat: 'auto' })).toBeNull();
      const one = await run(file, 'one thread');
      const auto = await run(file, 'auditFile');
      expect(JSON.parse(one.json).sessions[0].entries.length).toBeGreaterThan(0);
      expect(auto.json).toBe(one.json);
      expect(auto.diagnostics).toEqual(one.diagnostics);
    });
  }, 300_000);
});
