// Issue 27.20: 100k empty files took `stores` 8.7 s and analyze 78 s, nearly all of it waiting:
// an awaited stat per file through libuv's thread pool in the walk, then an open and a worker
// round trip per file in the run. An empty file now costs about a stat: the walk stats
// synchronously, and a regular file of 0 bytes is reported without being opened or sent to a lane.

import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import { audit, emptyFileLedger } from '../../src/run/audit.js';
import { scratch } from '../cli/helpers.js';
import { FIXTURES, runMain } from './helpers.js';

const tmp = scratch('loopledger-empty-');
const MANY = 20_000;
const many = join(tmp.dir, 'many');

beforeAll(() => {
  for (let d = 0; d < MANY / 1000; d++) {
    mkdirSync(join(many, `p${d}`), { recursive: true });
    for (let i = 0; i < 1000; i++) writeFileSync(join(many, `p${d}`, `s${i}.jsonl`), '');
  }
}, 120_000);
afterAll(() => tmp.cleanup());

const NO_SINK = { session() {}, turn() {}, round() {}, end() {} };

describe('an empty file, short-cut, is what reading it gives', () => {
  it('emptyFileLedger = ingestFile of an empty file, key for key (the ledger prints it)', async () => {
    const file = tmp.write('empty.jsonl', '');
    expect(JSON.stringify(emptyFileLedger(file).input)).toBe(JSON.stringify(await ingestFile(file, NO_SINK)));
  });

  it('the same ledger on one thread and in lanes, empty files among transcripts, named or found', async () => {
    const dir = join(tmp.dir, 'mixed');
    mkdirSync(dir);
    for (const name of ['a.jsonl', 'c.json', 'e.traj']) writeFileSync(join(dir, name), '');
    writeFileSync(join(dir, 'b.jsonl'), readFileSync(join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl')));
    const named = join(dir, 'a.jsonl');
    const one = await audit([dir, named], { jobs: 1 });
    const lanes = await audit([dir, named], { jobs: 2 });
    expect(JSON.stringify(lanes)).toBe(JSON.stringify(one));
    expect(one.inputs.map((i) => [i.path, i.error])).toEqual([
      [named, 'empty file'],
      [join(dir, 'b.jsonl'), undefined],
    ]);
    expect(one.not_transcripts!.map((f) => [f.path, f.reason])).toEqual([
      [join(dir, 'c.json'), 'empty'],
      [join(dir, 'e.traj'), 'empty'],
    ]);
  });
});

describe(`${MANY} empty files cost about a stat each`, () => {
  // Generous bounds: before, 20k files took analyze ~16 s on a quiet machine (78 s for 100k) and
  // stores ~2 s; now both take about a second, so only a return to a per-file round trip fails.
  it('analyze', async () => {
    const started = Date.now();
    const r = await runMain([many, '--jobs', '2'], { timeoutMs: 120_000 });
    const ms = Date.now() - started;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${MANY} files found in the directories are not a transcript (${MANY} empty)`);
    expect(ms).toBeLessThan(10_000);
  }, 120_000);

  it('stores', async () => {
    const home = join(tmp.dir, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    symlinkSync(many, join(home, '.claude', 'projects'));
    // `stores` finds the home by $HOME (os.homedir() reads it too).
    const original = process.env['HOME'];
    process.env['HOME'] = home;
    try {
      const started = Date.now();
      const r = await runMain(['stores', '--json'], { timeoutMs: 120_000 });
      const ms = Date.now() - started;
      expect(r.code, r.stderr).toBe(0);
      const claude = (JSON.parse(r.stdout) as { stores: { agent: string; files: number; sessions: number }[] }).stores[0]!;
      expect(claude).toMatchObject({ agent: 'claude-code', files: MANY, sessions: 0 });
      expect(ms).toBeLessThan(10_000);
    } finally {
      process.env['HOME'] = original;
    }
  }, 120_000);
});
