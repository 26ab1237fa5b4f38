// Issue 27.17: a shard read in pieces where one value spans many of them (a session holding a
// 32 MB string). The scanner once added each piece to the value's text so far, copying it again
// for every piece: read from stdin (64 KB pieces) a 48 MB value took 22 s against 3 s from a file
// (1 MB pieces); at 32 MB that copying is still ~10 s against ~2. Compared within one run, stdin
// and file now take about the same time. A merge holding such a value takes ~0.4 GB (0.6 at
// 48 MB), so this file runs in vitest's heavy project, alone (vitest.config.ts, issue 31 item 6);
// many short values in one piece and the memory per format are in merge-long-values.test.ts.

import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv } from '../cli/helpers.js';
import { oneHeavyCaseAtATime } from '../helpers/one-heavy.js';
import { BIN, ensureBuilt, ROOT, scratch } from './helpers.js';

const tmp = scratch('loopledger-merge-long-value-');
afterAll(() => tmp.cleanup());

const LONG_CHARS = 32 << 20;
let shard = '';

beforeAll(() => {
  ensureBuilt();
  const r = spawnSync(process.execPath, [BIN, 'fixtures/claude-code', '--format', 'json'], { cwd: ROOT, env: cliEnv(), encoding: 'utf8', maxBuffer: 1 << 28 });
  const ledger = JSON.parse(r.stdout) as { sessions: { entries: { evidence: Record<string, unknown> }[] }[] };
  const session = ledger.sessions.find((s) => s.entries.length > 0)!;
  session.entries[0]!.evidence['note'] = 'x'.repeat(LONG_CHARS);
  shard = join(tmp.dir, 'long.json');
  writeFileSync(shard, JSON.stringify(ledger, null, 2));
}, 60_000);

/** Seconds a merge of the shard takes, read from the file or from stdin (a pipe); its output checked. */
function timedMerge(viaStdin: boolean): number {
  const out = join(tmp.dir, viaStdin ? 'stdin.json' : 'file.json');
  const started = process.hrtime.bigint();
  // stdin through a pipe from cat, as a shell would give it: the shard is not held in this worker.
  const r = viaStdin
    ? spawnSync('sh', ['-c', 'cat "$1" | "$2" "$3" merge - --format json -o "$4"', 'sh', shard, process.execPath, BIN, out], { cwd: ROOT, env: cliEnv(), encoding: 'utf8' })
    : spawnSync(process.execPath, [BIN, 'merge', shard, '--format', 'json', '-o', out], { cwd: ROOT, env: cliEnv(), encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  expect(r.status, r.stderr).toBe(0);
  expect(statSync(out).size).toBeGreaterThan(LONG_CHARS);
  return seconds;
}

describe('a value spanning many pieces', () => {
  it('is read in time linear in its size: from stdin (64 KB pieces) no slower than from a file (1 MB pieces), within 3x', async () => {
    await oneHeavyCaseAtATime(async () => {
      const file = timedMerge(false);
      const stdin = timedMerge(true);
      expect(stdin, `stdin ${stdin.toFixed(2)} s, file ${file.toFixed(2)} s`).toBeLessThan(3 * file);
    });
  }, 180_000);
});
