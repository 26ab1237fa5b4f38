// The two-thread pipeline's case that needs half a gigabyte to show: a record too large for the
// reading thread's capped heap. It runs in vitest's `heavy` project (vitest.config.ts: any file
// that calls oneHeavyCaseAtATime), one file at a time after the others, so the suite's peak memory
// is this case alone, not this case beside four workers (issue 31, item 6). The other pipeline
// cases are in pipeline.test.ts.

import { closeSync, openSync, writeSync } from 'node:fs';
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

  // Issue 53: a record just under the value bound (1,048,576 brackets and commas) builds tens of
  // MB of small objects, near the reading thread's capped heap, whose hand-back is keyed on
  // characters (a 9 MB line here): read there or redone here, the answer is the one-thread answer.
  it('a record of a million small values, just under the bound, in a file worth a reading thread: same ledger', async () => {
    await oneHeavyCaseAtATime(async () => {
      const file = join(tmp.dir, 'many-values.jsonl');
      const fd = openSync(file, 'w');
      try {
        const line = (r: unknown) => writeSync(fd, `${JSON.stringify(r)}\n`);
        line({ type: 'session', schema: 'loopledger-canonical/1', id: 'values' });
        line({ type: 'user', text: 'Load the points.' });
        // 34 MB of plain results first: a file this size alone is read in a thread of its own.
        for (let i = 0; i < 34; i++) {
          line({ type: 'assistant', text: '', tool_calls: [{ id: `p${i}`, name: 'cat', arguments: { path: `part${i}` } }] });
          line({ type: 'tool_result', id: `p${i}`, content: 'z'.repeat(1 << 20), is_error: false });
        }
        // 4 per element ({, [ and two commas): 1,040,000, under the bound.
        const points = Array.from({ length: 260_000 }, (_, i) => ({ xy: [i + 0.5, i + 1.5] }));
        for (let i = 0; i < 3; i++) {
          line({ type: 'assistant', text: '', tool_calls: [{ id: `v${i}`, name: 'plot', arguments: { points } }] });
          line({ type: 'tool_result', id: `v${i}`, content: 'Error: plot failed', is_error: true });
        }
      } finally {
        closeSync(fd);
      }
      expect(await dist.pipeline.worthPipelining(file)).toBe(true);
      const one = await run(file, 'one thread');
      const auto = await run(file, 'auditFile');
      const session = JSON.parse(one.json).sessions[0];
      expect(session.tool_calls).toBe(37);
      expect(session.entries.some((e: { kind: string }) => e.kind === 'repeated_batch')).toBe(true);
      expect(auto.json).toBe(one.json);
      expect(auto.diagnostics).toEqual(one.diagnostics);
    });
  }, 300_000);
});
