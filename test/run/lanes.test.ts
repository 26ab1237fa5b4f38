// The default number of threads follows the machine (issue 59, item 4): the idle cores, less the
// main thread's share, bounded by memory (each lane counted at its heap cap, within half the RAM
// or the cgroup's limit and within what is free). Simulated machines go through the library's
// defaultLanes; this machine's choice and its reasons through the CLI's --verbose.

import { execFileSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ROOT, scratch, spawnCli, type Scratch } from '../robustness/helpers.js';
import type * as Library from '../../src/index.js';
import type { Machine } from '../../src/index.js';
import type * as LanesModule from '../../src/run/lanes.js';

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(join(ROOT, 'dist', rel)).href)) as T;

const GB = 2 ** 30;
const MB = 2 ** 20;
/** A lane's heap caps (src/run/file-pool.ts resourceLimits: old 1024 MB, young 4 MB). */
const LANE_CAP = 1028 * MB;
/** The reading thread's (src/run/reader-thread.ts: old 40 MB, young 8 MB). */
const READER_CAP = 48 * MB;
/** What `jobs` threads may hold beside the main thread: a lane and its reader for 2, a lane each from 3. */
const heldAtCaps = (jobs: number) => (jobs <= 1 ? 0 : jobs === 2 ? LANE_CAP + READER_CAP : jobs * LANE_CAP);

/** A file of `bytes` bytes, sparse: only its size counts toward the default lanes. */
function sizedFile(path: string, bytes: number): string {
  writeFileSync(path, '');
  truncateSync(path, bytes);
  return path;
}

let lib: typeof Library;
let lanesModule: typeof LanesModule;
let tmp: Scratch;
/** A 32 MB input (sparse: only its size counts), large enough for any number of lanes. */
let big: string;

beforeAll(async () => {
  ensureBuilt();
  lib = await load<typeof Library>('index.js');
  tmp = scratch('loopledger-lanes-');
  lanesModule = await load<typeof LanesModule>('run/lanes.js');
  big = sizedFile(join(tmp.dir, 'big.jsonl'), 32 * MB);
});

afterAll(() => tmp?.cleanup());

const lanes = (machine: Machine) => lib.defaultLanes([big], machine);
const roomy = { freeBytes: 1024 * GB, totalBytes: 1024 * GB };

describe('the default number of threads on simulated machines', () => {
  // Issue 59, item 4: "Let the default follow the idle cores, bounded by memory (each lane's heap
  // cap times lanes within a stated share of RAM), tested with a simulated machine". Issue 30:
  // "make the default the fastest setting on the machine it runs on": two threads (a lane reading
  // in a thread of its own) were faster even on a busy machine, so two cores always get two.
  it('follows the idle cores: no longer stops at three on a large machine', () => {
    expect(lanes({ cores: 1, load: 0, ...roomy })).toBe(1);
    expect(lanes({ cores: 2, load: 0, ...roomy })).toBe(2);
    expect(lanes({ cores: 4, load: 0, ...roomy })).toBe(4);
    expect(lanes({ cores: 8, load: 0, ...roomy })).toBe(8);
    // The main thread's share (3.5% of a core per lane) takes one core of 16.
    expect(lanes({ cores: 16, load: 0, ...roomy })).toBe(15);
    // One main thread keeps up with 28 lanes (1 / 3.5%): more would add memory, not speed.
    expect(lanes({ cores: 64, load: 0, ...roomy })).toBe(28);
    // With no memory described, the cores alone.
    expect(lanes({ cores: 16, load: 0 })).toBe(15);
  });

  it('leaves the busy cores to others, but keeps two threads on two cores or more', () => {
    expect(lanes({ cores: 16, load: 8, running: 8, ...roomy })).toBe(8);
    expect(lanes({ cores: 16, load: 15, running: 15, ...roomy })).toBe(2);
    expect(lanes({ cores: 16, load: 40, ...roomy })).toBe(2);
    expect(lanes({ cores: 2, load: 7.5, ...roomy })).toBe(2);
    // A load this tool's own previous run left (nothing runnable now) leaves the cores idle.
    expect(lanes({ cores: 16, load: 12, running: 0, ...roomy })).toBe(15);
  });

  it('holds the lanes at their heap caps within half the RAM, the cgroup limit and what is free', () => {
    // 16 GB of RAM: 8 GB for lanes of 1028 MB is 7 of them.
    expect(lanes({ cores: 64, load: 0, freeBytes: 15 * GB, totalBytes: 16 * GB })).toBe(7);
    // 3 GB free of 64: 3 lanes would hold 3084 MB at their caps, so two threads (1076 MB).
    expect(lanes({ cores: 16, load: 0, freeBytes: 3 * GB, totalBytes: 64 * GB })).toBe(2);
    // A CI container of 4 GB on a large host: 2 GB for lanes, two threads.
    expect(lanes({ cores: 16, load: 0, freeBytes: 100 * GB, totalBytes: 128 * GB, cgroupLimitBytes: 4 * GB })).toBe(2);
    // One of 2 GB: 1 GB does not hold a lane and its reader (1076 MB), so this thread alone.
    expect(lanes({ cores: 4, load: 0, freeBytes: 100 * GB, totalBytes: 128 * GB, cgroupLimitBytes: 2 * GB })).toBe(1);
    expect(lanes({ cores: 8, load: 0, freeBytes: 0, totalBytes: 8 * GB })).toBe(1);
  });

  const machine = fc.record({
    cores: fc.integer({ min: 1, max: 256 }),
    load: fc.oneof(fc.double({ min: 0, max: 300, noNaN: true }), fc.constant(Number.NaN)),
    running: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
    freeBytes: fc.option(fc.double({ min: 0, max: 2048 * GB, noNaN: true }), { nil: undefined }),
    totalBytes: fc.option(fc.double({ min: 256 * MB, max: 2048 * GB, noNaN: true }), { nil: undefined }),
    cgroupLimitBytes: fc.option(fc.double({ min: 64 * MB, max: 2048 * GB, noNaN: true }), { nil: undefined }),
  });
  const defined = (m: Machine): Machine => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as unknown as Machine;

  it('is within [1, cores], and its lanes at their heap caps fit the memory budget (property)', () => {
    fc.assert(
      fc.property(machine, (raw) => {
        const m = defined(raw);
        const jobs = lanes(m);
        expect(jobs).toBeGreaterThanOrEqual(1);
        expect(jobs).toBeLessThanOrEqual(m.cores);
        const usable = Math.min(m.totalBytes ?? Infinity, m.cgroupLimitBytes ?? Infinity);
        const budget = Math.min(usable / 2, m.freeBytes ?? Infinity);
        expect(heldAtCaps(jobs)).toBeLessThanOrEqual(budget);
      }),
    );
  });

  it('never more threads for a busier machine or less memory (property)', () => {
    fc.assert(
      fc.property(machine, fc.double({ min: 0, max: 50, noNaN: true }), fc.integer({ min: 0, max: 50 }), fc.double({ min: 0, max: 1, noNaN: true }), (raw, moreLoad, moreRunning, keep) => {
        const m = defined(raw);
        const jobs = lanes(m);
        const load = Number.isNaN(m.load) ? moreLoad : m.load + moreLoad;
        const busier = { ...m, load, ...(m.running === undefined ? {} : { running: m.running + moreRunning }) };
        expect(lanes(busier)).toBeLessThanOrEqual(jobs);
        const poorer = { ...m, freeBytes: (m.freeBytes ?? 2048 * GB) * keep };
        expect(lanes(poorer)).toBeLessThanOrEqual(jobs);
      }),
    );
  });
});

describe('the cgroup memory limit (what a container or a CI job allows)', () => {
  /** A file system of these files only; any other path cannot be read. */
  const files = (tree: Record<string, string>) => (path: string) => {
    const text = tree[path];
    if (text === undefined) throw new Error(`ENOENT: ${path}`);
    return text;
  };

  it('reads cgroup v2 memory.max, the lowest on the path from the process\'s group up to the root', () => {
    const read = files({
      '/proc/self/cgroup': '0::/ci/job-7/step\n',
      '/sys/fs/cgroup/ci/job-7/step/memory.max': 'max\n',
      '/sys/fs/cgroup/ci/job-7/memory.max': '4294967296\n',
      '/sys/fs/cgroup/ci/memory.max': '8589934592\n',
    });
    expect(lanesModule.cgroupMemoryLimit(read)).toBe(4 * GB);
    // Under a cgroup namespace the process sees its own group as the root.
    expect(lanesModule.cgroupMemoryLimit(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/memory.max': '2147483648\n' }))).toBe(2 * GB);
  });

  it('reads cgroup v1 memory.limit_in_bytes; "max", v1\'s "no limit" and nothing readable are no limit', () => {
    const v1 = '4:memory:/process_api/abc\n3:cpuset:/\n';
    expect(lanesModule.cgroupMemoryLimit(files({ '/proc/self/cgroup': v1, '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n' }))).toBeUndefined();
    expect(lanesModule.cgroupMemoryLimit(files({ '/proc/self/cgroup': v1, '/sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes': '1073741824\n' }))).toBe(GB);
    expect(lanesModule.cgroupMemoryLimit(files({ '/proc/self/cgroup': '0::/a\n', '/sys/fs/cgroup/a/memory.max': 'max\n' }))).toBeUndefined();
    expect(lanesModule.cgroupMemoryLimit(files({}))).toBeUndefined();
  });

  it('holds the default on a simulated CI container: 2 GB allows no lane, 4 GB two threads', () => {
    const host = { cores: 4, load: 0, freeBytes: 60 * GB, totalBytes: 64 * GB };
    expect(lanes({ ...host, cgroupLimitBytes: 2 * GB })).toBe(1);
    expect(lanes({ ...host, cgroupLimitBytes: 4 * GB })).toBe(2);
    expect(lanes(host)).toBe(4);
  });
});

describe('the default for the size of the input', () => {
  it('reads this machine: its cores, memory and, on Linux, how many of other processes\' threads are runnable now', () => {
    const machine = lanesModule.currentMachine();
    expect(machine.cores).toBe(availableParallelism());
    if (process.platform === 'linux') {
      expect(Number.isInteger(machine.running)).toBe(true);
      expect(machine.running).toBeGreaterThanOrEqual(0);
    }
    expect(machine.totalBytes).toBe(totalmem());
    expect(machine.freeBytes).toBeGreaterThan(0);
    // A cgroup limit is a number of bytes, never v1's "no limit" (2^63 rounded to a page).
    if (machine.cgroupLimitBytes !== undefined) expect(Number.isSafeInteger(machine.cgroupLimitBytes)).toBe(true);
  });

  it('is one thread for an input under 8 MB in all (lanes cost more to start than they save), else the idle cores', () => {
    const idle = { cores: 3, load: 0 };
    const cores = 3;
    const dir = join(tmp.dir, 'sizes');
    mkdirSync(join(dir, 'conversation'), { recursive: true });
    const small = join(dir, 'small.jsonl');
    writeFileSync(small, '{}\n');
    const eight = sizedFile(join(dir, 'big.jsonl'), 8 * 1024 * 1024);
    const half = sizedFile(join(dir, 'half.jsonl'), 4 * 1024 * 1024 + 1);
    const otherHalf = sizedFile(join(dir, 'other-half.jsonl'), 4 * 1024 * 1024 + 1);
    expect(lib.defaultLanes([small], idle)).toBe(1);
    expect(lib.defaultLanes([small, join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl')], idle)).toBe(1);
    expect(lib.defaultLanes([eight], idle)).toBe(cores);
    // The sizes add up: two files just over half the bound each are over it.
    expect(lib.defaultLanes([half], idle)).toBe(1);
    expect(lib.defaultLanes([half, otherHalf], idle)).toBe(cores);
    // A folder input counts its files; stdin has no size to go by.
    writeFileSync(join(dir, 'conversation', 'event-1.json'), '{}');
    expect(lib.defaultLanes([join(dir, 'conversation')], idle)).toBe(1);
    expect(lib.defaultLanes(['-'], idle)).toBe(cores);
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
    expect(lib.defaultLanes(store16, twoCores)).toBe(1);
    expect(lib.defaultLanes(store16, twoOfFour)).toBe(1);
    expect(lib.defaultLanes([...store16, sized('almost.jsonl', 16 - 1 / 1024)], twoCores)).toBe(1);
    expect(lib.defaultLanes(store32, twoCores)).toBe(2);
    expect(lib.defaultLanes(store32, twoOfFour)).toBe(2);
    // Three lanes, each analyzing whole files on an idle core, still start at 8 MB.
    expect(lib.defaultLanes(store16, { cores: 3, load: 0 })).toBe(3);
  });
});

describe('the default on this machine, through the CLI', () => {
  let store: string;

  beforeAll(() => {
    // The real-shaped store of the bench (long loops, sub-agents, compactions), ~40 MB: past the
    // 32 MB from which the default takes more than one thread.
    store = join(tmp.dir, 'store');
    mkdirSync(store);
    execFileSync(process.execPath, [join(ROOT, 'bench', 'real-store.mjs'), 'claude', store, '--files', '80', '--mb', '30'], { stdio: 'ignore' });
  }, 120_000);

  it('says under --verbose how many threads it took and why, and its JSON is byte-identical to --jobs 1 and to four lanes', async () => {
    const byDefault = await spawnCli([store, '--format', 'json', '--verbose'], { timeoutMs: 150_000 });
    const one = await spawnCli([store, '--format', 'json', '--verbose', '--jobs', '1'], { timeoutMs: 150_000 });
    expect(byDefault.code).not.toBe(2);
    expect(byDefault.code).toBe(one.code);
    const said = /(\d+) threads? by default \((\d+) cores?, \d+ idle;.*memory/.exec(byDefault.stderr);
    expect(said, byDefault.stderr).not.toBeNull();
    expect(Number(said![2])).toBe(availableParallelism());
    // Two threads on two cores or more, unless memory (a small container) allows no lane.
    if (availableParallelism() >= 2 && !byDefault.stderr.includes('memory allows no more')) expect(Number(said![1])).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(byDefault.stdout.toString('utf8')).summary.sessions).toBeGreaterThanOrEqual(80);
    expect(byDefault.stdout.equals(one.stdout)).toBe(true);
    // What the default takes on a larger machine, whole files in several lanes: the same bytes.
    const four = await spawnCli([store, '--format', 'json', '--verbose', '--jobs', '4'], { timeoutMs: 150_000 });
    expect(four.stdout.equals(one.stdout)).toBe(true);
    // --jobs 1 weighs no lanes and says nothing of them.
    expect(one.stderr).not.toMatch(/by default/);
  }, 180_000);

  it('says nothing of lanes for a small input, which stays on one thread', async () => {
    const r = await spawnCli([join(FIXTURES, 'claude-code'), '--format', 'json', '--verbose']);
    expect(r.code).not.toBe(2);
    expect(r.stderr).not.toMatch(/threads? by default/);
  });
});
