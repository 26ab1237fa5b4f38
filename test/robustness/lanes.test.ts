// A lane of `--jobs` (src/run/file-pool.ts) whose worker dies must lose no file and hang on none:
// the file it died on is analyzed on this thread, and a new worker takes the lane's next files
// (after two deaths in a row, this thread takes them). The lanes run from dist/, with a worker
// module that dies on the files named for it (test/robustness/workers/dying-lane.mjs).

import { copyFileSync, mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnostics, ensureBuilt, FIXTURES, ROOT, scratch, within, type Scratch } from './helpers.js';
import type * as Audit from '../../src/run/audit.js';
import type * as FilePool from '../../src/run/file-pool.js';
import type * as Options from '../../src/run/options.js';

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(join(ROOT, 'dist', rel)).href)) as T;
const DYING_LANE = new URL('./workers/dying-lane.mjs', import.meta.url);

let audit: typeof Audit;
let pool: typeof FilePool;
let tmp: Scratch;

const FIXTURE_FILES = [
  'claude-code/looping-test-fix.jsonl',
  'claude-code/calm-readme-update.jsonl',
  'claude-code/stream-json-flaky-drain.jsonl',
  'codex/rollout-2026-02-20T16-41-09-0199a1c4-7e21-7b30-9d4f-5c8e2a6b1d37.jsonl',
];

beforeAll(async () => {
  ensureBuilt();
  audit = await load('run/audit.js');
  pool = await load('run/file-pool.js');
  tmp = scratch('loopledger-lanes-');
});

afterAll(() => tmp?.cleanup());

/** A file of `bytes` bytes, sparse: only its size counts toward the default lanes. */
function sizedFile(path: string, bytes: number): string {
  writeFileSync(path, '');
  truncateSync(path, bytes);
  return path;
}

/** A fixture copied under a new name (the dying worker reads the name). */
function copy(fixture: string, name: string): string {
  const to = join(tmp.dir, name);
  copyFileSync(join(FIXTURES, fixture), to);
  return to;
}

const collect = () => diagnostics();

async function oneThread(files: readonly string[]) {
  const here = collect();
  const results: Options.FileLedger[] = [];
  for (const f of files) results.push(await audit.auditFile(f, { ...here.options, jobs: 1 }));
  return { json: JSON.stringify(results), said: here.said };
}

async function inLanes(files: readonly string[], jobs: number) {
  const lanes = collect();
  const results = await within(60_000, pool.auditInWorkers(files, jobs, lanes.options, audit.auditFile, false, DYING_LANE), `${jobs} lane(s)`);
  return { json: JSON.stringify(results), said: lanes.said, paths: results.map((r) => r.input.path) };
}

describe('a lane whose worker dies', () => {
  it('an exit or an uncaught exception: the file is analyzed here, the next ones by a new worker', async () => {
    const files = [
      ...FIXTURE_FILES.map((f) => join(FIXTURES, f)),
      copy(FIXTURE_FILES[0]!, 'a-die-exit.jsonl'),
      copy(FIXTURE_FILES[1]!, 'b-die-throw.jsonl'),
      copy(FIXTURE_FILES[3]!, 'c-die-exit.jsonl'),
    ];
    const expected = await oneThread(files);
    for (const jobs of [1, 2, 3]) {
      const got = await inLanes(files, jobs);
      expect(got.paths).toEqual(files);
      expect(got.json, `${jobs} lane(s)`).toBe(expected.json);
      expect(got.said, `${jobs} lane(s)`).toEqual(expected.said);
    }
  }, 120_000);

  it('workers that die on every file: after two in a row, the lane\'s files are analyzed here', async () => {
    const files = FIXTURE_FILES.map((f, i) => copy(f, `${i}-die-throw.jsonl`));
    const expected = await oneThread(files);
    const got = await inLanes(files, 1);
    expect(got.json).toBe(expected.json);
    expect(got.said).toEqual(expected.said);
  }, 120_000);
});

describe('the default number of lanes', () => {
  // Issue 30: "make the default the fastest setting on the machine it runs on". Two threads (a
  // lane reading in a thread of its own) cost ~1.1x one thread's CPU and were faster even on a
  // busy machine, so two cores always get two; a third lane costs an isolate of its own, so only
  // an idle core makes it pay: the idle cores (cores less the one-minute load, rounded, the load
  // counted only as far as others' threads are runnable now), at most three (each a heap of its own).
  it('is two threads on two cores or more, three on three idle cores, through the library (defaultLanes)', async () => {
    const { defaultLanes } = await load<{ defaultLanes: typeof Audit.defaultLanes }>('index.js');
    // Large enough for two threads (32 MB; three lanes start at 8 MB: the test below).
    const big = sizedFile(join(tmp.dir, 'lanes-big.jsonl'), 32 * 1024 * 1024);
    const cases: [cores: number, load: number, lanes: number][] = [
      [2, 0, 2],
      [2, 0.4, 2],
      [2, 0.6, 2],
      [2, 1.5, 2],
      [2, 7.5, 2],
      [1, 0, 1],
      [4, 0, 3],
      [4, 1.2, 3],
      [4, 2.6, 2],
      [8, 4.4, 3],
      [2, Number.NaN, 2],
    ];
    for (const [cores, load, lanes] of cases) expect(defaultLanes([big], { cores, load }), `${cores} cores at load ${load}`).toBe(lanes);
    // The load counts only as far as others' threads are runnable now: a load this tool's own
    // previous run left (a benchmark's runs back to back) no longer makes an idle machine one lane.
    const now: [cores: number, load: number, running: number, lanes: number][] = [
      [2, 2.0, 0, 2],
      [2, 1.9, 1, 2],
      [2, 7.5, 9, 2],
      [2, 0.3, 4, 2],
      [4, 3.0, 1, 3],
      [4, 3.0, 2, 2],
      [4, 9.0, 9, 2],
      [1, 9.0, 9, 1],
      [8, 4.4, 0, 3],
      [2, Number.NaN, 1, 2],
      [2, 2.0, Number.NaN, 2],
    ];
    for (const [cores, load, running, lanes] of now) expect(defaultLanes([big], { cores, load, running }), `${cores} cores at load ${load}, ${running} running`).toBe(lanes);
    // The machine it runs on, when none is given: within the bounds whatever its load.
    const here = defaultLanes([big]);
    expect(here).toBeGreaterThanOrEqual(1);
    expect(here).toBeLessThanOrEqual(Math.min(3, availableParallelism()));
    expect(pool.defaultJobs({ cores: 3, load: 0 })).toBe(3);
  });

  it('never more lanes for a busier machine, always min(2, cores) to min(3, cores) (property)', () => {
    const machine = fc.record({
      cores: fc.integer({ min: 1, max: 64 }),
      load: fc.oneof(fc.double({ min: 0, max: 100, noNaN: true }), fc.constant(Number.NaN)),
      running: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(machine, fc.double({ min: 0, max: 10, noNaN: true }), fc.integer({ min: 0, max: 10 }), (m, moreLoad, moreRunning) => {
        const lanes = pool.defaultJobs(m);
        expect(lanes).toBeGreaterThanOrEqual(Math.min(2, m.cores));
        expect(lanes).toBeLessThanOrEqual(Math.min(3, m.cores));
        const load = Number.isNaN(m.load) ? moreLoad : m.load + moreLoad;
        const busier = { cores: m.cores, load, ...(m.running === undefined ? {} : { running: m.running + moreRunning }) };
        expect(pool.defaultJobs(busier)).toBeLessThanOrEqual(lanes);
      }),
    );
  });

  it('reads, on Linux, how many of other processes\' threads are runnable now', () => {
    const machine = pool.currentMachine();
    expect(machine.cores).toBe(availableParallelism());
    if (process.platform === 'linux') {
      expect(Number.isInteger(machine.running)).toBe(true);
      expect(machine.running).toBeGreaterThanOrEqual(0);
    }
  });

  it('is one thread for an input under 8 MB in all (lanes cost more to start than they save), else the idle cores', () => {
    const idle = { cores: 3, load: 0 };
    const cores = 3;
    const dir = join(tmp.dir, 'sizes');
    mkdirSync(join(dir, 'conversation'), { recursive: true });
    const small = join(dir, 'small.jsonl');
    writeFileSync(small, '{}\n');
    const big = sizedFile(join(dir, 'big.jsonl'), 8 * 1024 * 1024);
    const half = sizedFile(join(dir, 'half.jsonl'), 4 * 1024 * 1024 + 1);
    const otherHalf = sizedFile(join(dir, 'other-half.jsonl'), 4 * 1024 * 1024 + 1);
    expect(audit.defaultLanes([small], idle)).toBe(1);
    expect(audit.defaultLanes([small, join(FIXTURES, FIXTURE_FILES[0]!)], idle)).toBe(1);
    expect(audit.defaultLanes([big], idle)).toBe(cores);
    // The sizes add up: two files just over half the bound each are over it.
    expect(audit.defaultLanes([half], idle)).toBe(1);
    expect(audit.defaultLanes([half, otherHalf], idle)).toBe(cores);
    // A folder input counts its files; stdin has no size to go by.
    writeFileSync(join(dir, 'conversation', 'event-1.json'), '{}');
    expect(audit.defaultLanes([join(dir, 'conversation')], idle)).toBe(1);
    expect(audit.defaultLanes(['-'], idle)).toBe(cores);
  });

  it('takes its two threads (one lane reading in a thread of its own) for a store from 32 MB in all, as for a file alone (issue 30, item 4)', () => {
    // On two cores one thread was 3-8% faster up to 24 MB of real-shaped store, tied at 32 MB.
    const dir = join(tmp.dir, 'two-threads');
    mkdirSync(dir, { recursive: true });
    const sized = (name: string, mb: number) => sizedFile(join(dir, name), mb * 1024 * 1024);
    const store16 = [sized('a.jsonl', 8), sized('b.jsonl', 8)];
    const store32 = [...store16, sized('c.jsonl', 16)];
    const twoCores = { cores: 2, load: 0 };
    const twoOfFour = { cores: 4, load: 2, running: 2 };
    expect(audit.defaultLanes(store16, twoCores)).toBe(1);
    expect(audit.defaultLanes(store16, twoOfFour)).toBe(1);
    expect(audit.defaultLanes([...store16, sized('almost.jsonl', 16 - 1 / 1024)], twoCores)).toBe(1);
    expect(audit.defaultLanes(store32, twoCores)).toBe(2);
    expect(audit.defaultLanes(store32, twoOfFour)).toBe(2);
    // Three lanes, each analyzing whole files on an idle core, still start at 8 MB.
    expect(audit.defaultLanes(store16, { cores: 3, load: 0 })).toBe(3);
  });
});
