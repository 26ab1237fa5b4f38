// How many threads a run takes: without --jobs, the idle cores bounded by memory (each lane counted
// at its heap cap); with --jobs N, N clamped to what the machine can hold. Both are pure functions
// of a machine description (currentMachine() reads this one), so any machine can be simulated.

import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, freemem, loadavg, totalmem } from 'node:os';
import { LANE_HEAP_CAP_MB } from './file-pool.js';
import { READER_HEAP_CAP_MB } from './reader-thread.js';

/** What the number of lanes is chosen from. */
export interface Machine {
  cores: number;
  /** The one-minute load average: runnable threads, others' included. */
  load: number;
  /**
   * Other processes' threads runnable right now (Linux: /proc/loadavg's count less this process's
   * own); absent where that cannot be read.
   */
  running?: number;
  /** Memory available now, in bytes (os.freemem(): Linux's MemAvailable). Absent: no memory bound. */
  freeBytes?: number;
  /** The machine's RAM, in bytes (os.totalmem()). */
  totalBytes?: number;
  /** The memory limit of this process's cgroup (a container's, a CI job's), where one is set. */
  cgroupLimitBytes?: number;
}

const MB = 2 ** 20;

export function currentMachine(): Machine {
  const running = runningElsewhere();
  const cgroupLimitBytes = cgroupMemoryLimit();
  return {
    cores: availableParallelism(),
    load: loadavg()[0] ?? 0,
    ...(running === undefined ? {} : { running }),
    freeBytes: freemem(),
    totalBytes: totalmem(),
    ...(cgroupLimitBytes === undefined ? {} : { cgroupLimitBytes }),
  };
}

/** Threads runnable now on the machine (the kernel's count, ourselves included) less this process's own. */
function runningElsewhere(): number | undefined {
  try {
    // "0.52 0.58 0.59 3/120 4242": the fourth field is runnable/all scheduling entities.
    const all = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[3]?.split('/')[0]);
    if (!Number.isFinite(all)) return undefined;
    let own = 0;
    for (const task of readdirSync('/proc/self/task')) {
      // The state follows the command name's closing parenthesis: "1234 (node) R ...".
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      if (stat[stat.lastIndexOf(')') + 2] === 'R') own += 1;
    }
    return Math.max(0, all - own);
  } catch {
    return undefined;
  }
}

/**
 * The memory limit of this process's cgroup, the lowest on its path up to the root (a container's
 * limit may sit on a parent of the process's own group): v2's memory.max, else v1's
 * memory.limit_in_bytes. "max", v1's "no limit" (2^63 rounded down to a page) and what cannot be
 * read: none. `read` gives a file's text or throws (the file system, unless a test gives one).
 */
export function cgroupMemoryLimit(read: (path: string) => string = (path) => readFileSync(path, 'utf8')): number | undefined {
  let groups: string;
  try {
    groups = read('/proc/self/cgroup');
  } catch {
    return undefined;
  }
  // "0::/path" is v2's one hierarchy; "4:memory:/path" v1's memory controller.
  const v2 = /^0::(\/.*)$/m.exec(groups)?.[1];
  const v1 = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(\/.*)$/m.exec(groups)?.[1];
  const files = [...upTo(v2, '/sys/fs/cgroup', 'memory.max'), ...upTo(v1, '/sys/fs/cgroup/memory', 'memory.limit_in_bytes')];
  let lowest: number | undefined;
  for (const file of files) {
    let bytes: number;
    try {
      bytes = Number(read(file).trim());
    } catch {
      continue;
    }
    if (Number.isSafeInteger(bytes) && bytes > 0) lowest = Math.min(lowest ?? bytes, bytes);
  }
  return lowest;
}

/** `file` in the group at `path` under `mount` and in each of its parents up to the mount's root. */
function upTo(path: string | undefined, mount: string, file: string): string[] {
  if (path === undefined) return [];
  const parts = path.split('/').filter((p) => p !== '');
  const files: string[] = [];
  for (let depth = parts.length; depth >= 0; depth--) files.push([mount, ...parts.slice(0, depth), file].join('/'));
  return files;
}

/**
 * The share of memory the default's lanes may take at their heap caps: of the RAM this process may
 * use (the machine's, or its cgroup's limit if lower), and never more than is free now. The rest
 * is the main thread's (it holds every file's ledger until the report is written), the system's
 * and other processes'.
 */
const LANE_MEMORY_SHARE = 0.5;

/**
 * The main thread's CPU per lane: it receives each file's ledger from its lane and adds it to the
 * run's. Beside three and four lanes on the 303 MB real-shaped store (bench/lanes.mjs): 0.50 and
 * 0.53 s of CPU against 14.3 and 15.0 s in three lanes, 0.58 s against 16.6 s in four, 3.5% each
 * time. So n lanes leave it n × 3.5% of a core (reserving it a whole one would idle one of two to
 * four cores), and past 1 / 3.5% lanes would wait on it.
 */
const MAIN_THREAD_SHARE_PER_LANE = 0.035;

/** Lanes one main thread keeps up with (docs/scale.md): more would add memory and no speed. */
const MAX_DEFAULT_JOBS = Math.floor(1 / MAIN_THREAD_SHARE_PER_LANE);

/**
 * The memory `jobs` threads may hold at their heap caps, beside this one: none for one thread, a
 * lane and its reading thread for two (run/file-stream.ts), a lane each from three.
 */
function laneBytes(jobs: number): number {
  if (jobs <= 1) return 0;
  if (jobs === 2) return (LANE_HEAP_CAP_MB + READER_HEAP_CAP_MB) * MB;
  return jobs * LANE_HEAP_CAP_MB * MB;
}

/** What the lanes may hold: LANE_MEMORY_SHARE of the usable RAM, within what is free; Infinity when the machine says nothing of memory. */
function laneMemoryBudget(machine: Machine): number {
  const known = (n: number | undefined) => (n !== undefined && Number.isFinite(n) && n >= 0 ? n : Infinity);
  const usable = Math.min(known(machine.totalBytes), known(machine.cgroupLimitBytes));
  return Math.min(LANE_MEMORY_SHARE * usable, known(machine.freeBytes));
}

const gb = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GB`;
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * The threads a run takes without --jobs, and why (said under --verbose). The idle cores: the
 * cores less the one-minute load, rounded, the load counted only as far as other processes'
 * threads are runnable now (the load average keeps for a minute what this tool's own previous run
 * put there), less the main thread's share; at most MAX_DEFAULT_JOBS. Never fewer than two threads
 * on two cores: one lane reading in a thread of its own (file-stream.ts) costs ~1.1x the CPU of one
 * thread and was faster even at load 14-18 on two cores (docs/performance.md). Then as many as
 * fit the memory budget at their heap caps; never fewer than one.
 */
export function chooseJobs(machine: Machine = currentMachine()): { jobs: number; why: string } {
  const cores = Number.isFinite(machine.cores) ? Math.max(1, Math.floor(machine.cores)) : 1;
  const load = Number.isFinite(machine.load) ? Math.max(0, machine.load) : 0;
  const busy = machine.running !== undefined && Number.isFinite(machine.running) ? Math.min(load, Math.max(0, machine.running)) : load;
  const idle = Math.min(cores, Math.max(0, Math.round(cores - busy)));
  const byCores = Math.min(MAX_DEFAULT_JOBS, Math.max(Math.min(2, cores), Math.round(idle / (1 + MAIN_THREAD_SHARE_PER_LANE))));
  const budget = laneMemoryBudget(machine);
  let jobs = byCores;
  while (jobs > 1 && laneBytes(jobs) > budget) jobs -= 1;
  const reasons = [`${plural(cores, 'core')}, ${idle} idle`];
  if (byCores === MAX_DEFAULT_JOBS && idle > MAX_DEFAULT_JOBS) reasons.push(`at most ${MAX_DEFAULT_JOBS}: what one main thread keeps up with`);
  if (budget !== Infinity) {
    const held = jobs === 1 ? 'no lane' : jobs === 2 ? `a lane and its reading thread hold at most ${gb(laneBytes(2))}` : `${jobs} lanes hold at most ${gb(laneBytes(jobs))}`;
    const limit = machine.cgroupLimitBytes !== undefined ? 'the RAM or cgroup limit' : 'the RAM';
    reasons.push(`${jobs < byCores ? 'memory allows no more' : 'memory'}: ${held}, within ${gb(budget)} (half ${limit}, no more than is free)`);
  }
  return { jobs, why: `${plural(jobs, 'thread')} by default (${reasons.join('; ')})` };
}

/** The threads a run takes without --jobs (chooseJobs without the reasons). */
export function defaultJobs(machine: Machine = currentMachine()): number {
  return chooseJobs(machine).jobs;
}

/** Lanes per core past which more add only memory: a lane is CPU-bound, and a V8 heap of its own. */
const MAX_JOBS_PER_CORE = 2;
/**
 * Free memory a lane is counted at: its heap and price data (~30-35 MB) and one large file's
 * rounds. `--jobs 32` on two cores started 32 heaps, ~700 MB (issue 53, item 13).
 */
const LANE_MEMORY_BYTES = 128 * MB;

/**
 * The lanes `--jobs asked` gets on this machine: at most twice its cores, and no more than its
 * free memory holds; `why` says so when that is fewer than asked (said under --verbose).
 */
export function boundedJobs(asked: number, machine: { cores: number; freeBytes: number } = { cores: availableParallelism(), freeBytes: freemem() }): { jobs: number; why: string | null } {
  const cores = Math.max(1, Math.floor(machine.cores));
  const byMemory = Math.floor(machine.freeBytes / LANE_MEMORY_BYTES);
  const bound = Math.max(1, Math.min(cores * MAX_JOBS_PER_CORE, byMemory));
  if (asked <= bound) return { jobs: asked, why: null };
  const reason = byMemory < cores * MAX_JOBS_PER_CORE ? `${Math.round(machine.freeBytes / MB)} MB free, ${LANE_MEMORY_BYTES / MB} MB a lane` : `${plural(cores, 'core')}, ${MAX_JOBS_PER_CORE} lanes a core`;
  return { jobs: bound, why: `--jobs ${asked}: ${plural(bound, 'lane')} instead (${reason}); more would only add memory` };
}
