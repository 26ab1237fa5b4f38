// The two-thread pipeline's case that needs half a gigabyte to show: a record too large for the
// reading thread's capped heap. It runs in vitest's `heavy` project (vitest.config.ts: any file
// that calls oneHeavyCaseAtATime), one file at a time after the others, so the suite's peak memory
// is this case alone, not this case beside four workers (issue 31, item 6). The other pipeline
// cases are in pipeline.test.ts.

import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneHeavyCaseAtATime } from '../helpers/one-heavy.js';
import { ensureBuilt, scratch, type Scratch } from './helpers.js';
import { type Dist, loadDist, run } from './pipeline-run.js';

/** Stands for the 48 MB text in the record's JSON, split there to write the text in slices. */
const BIG = 'BIG-TEXT-STANDS-HERE';

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
      // A 48 MB tool result, past the worker's old-generation cap (40 MB: a 32 MB record still reads
      // there, 40 MB does not): the worker fails and the file is read again here, so the answer is
      // still the one-thread answer. A tool result rather than an assistant text: the text cost the
      // detectors here 1.1 GB of RSS and 20 s, which proved nothing about the pipeline (the test
      // suite's peak, issue 31 item 6); the result costs ~0.3 GB and 1.5 s. The repeated failing
      // batch before it gives the ledger entries to compare.
      const unit = 'FAIL src/deploy.test.ts: the deployment is still pending; expected status ready. ';
      const records: unknown[] = [{ type: 'session', schema: 'loopledger-canonical/1', id: 'huge' }, { type: 'user', text: 'Run the tests until they pass.' }];
      for (let i = 0; i < 6; i++) {
        records.push({ type: 'assistant', text: '', tool_calls: [{ id: `c${i}`, name: 'run_tests', arguments: { path: 'src' } }] });
        records.push({ type: 'tool_result', id: `c${i}`, content: i === 5 ? BIG : 'FAIL: 1 test failed', is_error: true });
      }
      // Written a megabyte at a time (the text needs no escaping): held whole and stringified, the
      // record cost this process three copies of it before the ledger read a byte.
      const file = join(tmp.dir, 'huge-record.jsonl');
      const fd = openSync(file, 'w');
      const slice = unit.repeat(Math.ceil(2 ** 20 / unit.length));
      for (const r of records) {
        if (r !== records.at(-1)) writeSync(fd, `${JSON.stringify(r)}\n`);
        else {
          const [head, tail] = JSON.stringify(r).split(BIG) as [string, string];
          writeSync(fd, head);
          for (let n = 0; n < 48; n++) writeSync(fd, slice);
          writeSync(fd, `${tail}\n`);
        }
      }
      closeSync(fd);
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
