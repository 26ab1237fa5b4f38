// Many files at once: each file goes through the whole pipeline in a worker thread, results come
// back in input order, and each file's diagnostics are released in that same order, so the
// output is identical whatever the number of jobs.

import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { flatConfig } from '../config/resolved.js';
import type { ConfigValues } from '../config/spec.js';
import type { AuditOptions, FileLedger } from './options.js';
import type { SkippedLine } from '../read/skipped.js';
import { bundledWorker } from './worker-module.js';

export interface WorkerRequest {
  file: string;
  options: Omit<AuditOptions, 'onSkip' | 'onWarning' | 'onProgress' | 'jobs' | 'stdin' | 'config'>;
  /** `jobs` for the file inside its lane: 1, or 2 to read a large file alone in a thread of its own. */
  jobs: number;
}

/**
 * What a lane is started with: the run's configuration, flat. A parsed Config cannot cross to a
 * thread (it would arrive as a plain copy), so the lane parses it once for all its files.
 */
export interface LaneData {
  config: ConfigValues | undefined;
}

export type WorkerMessage =
  | { type: 'skip'; path: string; skipped: SkippedLine }
  | { type: 'warning'; message: string }
  | { type: 'done'; result: FileLedger }
  | { type: 'failed'; message: string };

/**
 * A lane given all its files at once (run/file-stream.ts): it reads them in a thread of its own,
 * one after another, and answers each with its index in `files`.
 */
export interface StreamRequest {
  files: string[];
  options: WorkerRequest['options'];
}

export type StreamMessage = WorkerMessage & { index: number };

/**
 * A lane's young generation. Left at V8's default, each lane's heap added ~25 MB of peak RSS and
 * a 2,000-file store peaked at 234 MB (SPEC: under 200); at 8 MB it peaked at 203–207 MB on a quiet
 * machine, at 4 MB 194–196 MB, with no measurable cost in time (the lanes' garbage is a file's
 * lines and rounds, short-lived).
 */
const LANE_YOUNG_GENERATION_MB = 4;

/**
 * A lane's old generation limit: far above what a file needs (the detectors' windows and one
 * file's ledger), so it is no budget. V8 lets old garbage grow with the limit, and a worker
 * inherits this machine's (4 GB here): a 900-session home peaked at 189-195 MB. Up to 1 GB, V8
 * collects sooner: 133-139 MB at any limit from 32 MB to 1 GB, no slower; at 2 GB, 191 MB again.
 * The longest line read (DEFAULT_MAX_LINE_LENGTH, 128 MB) fits: a 120 MB record analyzed in a
 * lane under this limit (V8 ends the whole process when a worker runs out of heap).
 */
const LANE_OLD_GENERATION_MB = 1024;

/** The most a lane's heap holds, in MB (its two generations' caps): what the default's memory bound counts it at (run/lanes.ts). */
export const LANE_HEAP_CAP_MB = LANE_OLD_GENERATION_MB + LANE_YOUNG_GENERATION_MB;

export const LANE_WORKER_URL = bundledWorker(new URL('./file-pool-worker.js', import.meta.url));

/** Workers of a lane that may die in a row before the lane's files are analyzed on this thread. */
const MAX_LANE_DEATHS = 2;

/** A lane's worker ended (an exception outside a file's analysis, say): unlike a file that failed, it takes no more files. */
class LaneWorkerDied extends Error {}

/** Indexes of `files`, largest file first; an unreadable path (or stdin) counts as empty. */
function bySizeDescending(files: readonly string[]): number[] {
  const sizes = files.map((file) => {
    if (file === '-') return 0;
    try {
      return statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    } catch {
      return 0;
    }
  });
  return files.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
}

type Diagnostic = { type: 'skip'; path: string; skipped: SkippedLine } | { type: 'warning'; message: string };

/**
 * The files' results as lanes settle them in any order, their diagnostics held and released in
 * input order (file i's once files 0..i-1 are done: stderr stays deterministic), and progress.
 */
export class FileOutcomes {
  readonly results: (FileLedger | undefined)[];
  private readonly diagnostics: Diagnostic[][];
  private readonly settled: boolean[];
  private released = 0;
  private done = 0;

  constructor(
    private readonly files: readonly string[],
    private readonly options: AuditOptions,
  ) {
    this.results = new Array(files.length);
    this.diagnostics = files.map(() => []);
    this.settled = files.map(() => false);
  }

  isSettled(index: number): boolean {
    return this.settled[index]!;
  }

  note(index: number, d: Diagnostic): void {
    this.diagnostics[index]!.push(d);
  }

  /** What a failed attempt said is dropped: the file is analyzed again, and says it again. */
  forget(index: number): void {
    this.diagnostics[index] = [];
  }

  settle(index: number, result: FileLedger): void {
    this.results[index] = result;
    this.settled[index] = true;
    while (this.released < this.files.length && this.settled[this.released]) {
      for (const d of this.diagnostics[this.released]!) {
        if (d.type === 'skip') this.options.onSkip?.(d.path, d.skipped);
        else this.options.onWarning?.(d.message);
      }
      this.diagnostics[this.released] = [];
      this.released += 1;
    }
    this.options.onProgress?.(++this.done, this.files.length);
  }

  /**
   * File `index` analyzed on this thread, its diagnostics held for their turn like a worker's;
   * `jobs` is what the file gets here.
   */
  runHere(index: number, runLocal: (file: string, options: AuditOptions) => Promise<FileLedger>, jobs: number): Promise<FileLedger> {
    // A stream cannot cross to a worker; stdin is only ever read here anyway.
    const { onSkip: _s, onWarning: _w, onProgress: _p, jobs: _j, ...plain } = this.options;
    return runLocal(this.files[index]!, {
      ...plain,
      jobs,
      onSkip: (path, skipped) => this.note(index, { type: 'skip', path, skipped }),
      onWarning: (message) => this.note(index, { type: 'warning', message }),
    });
  }
}

/** What a lane's worker is sent: the options that can cross to a thread. */
export function laneOptions(options: AuditOptions): WorkerRequest['options'] {
  const { onSkip: _s, onWarning: _w, onProgress: _p, jobs: _j, stdin: _i, config: _c, ...plain } = options;
  return plain;
}

/** A lane's worker, its heap capped, or null when none can start. */
export function startLane(workerUrl: URL, options: AuditOptions): Worker | null {
  try {
    const worker = new Worker(workerUrl, {
      workerData: { config: flatConfig(options.config) } satisfies LaneData,
      resourceLimits: { maxYoungGenerationSizeMb: LANE_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: LANE_OLD_GENERATION_MB },
    });
    // A worker that fails to load reports through 'error'; with no listener that would crash us.
    worker.on('error', () => {});
    return worker;
  } catch {
    return null;
  }
}

/**
 * Analyze `files` with up to `jobs` workers. `runLocal` handles what a worker cannot (stdin) and
 * is the fallback when a worker fails to start or dies. With `pipeline` (one large file), the lane
 * reads the file in a second thread of its own (run/reader-thread.ts), as this thread would.
 */
export async function auditInWorkers(
  files: readonly string[],
  jobs: number,
  options: AuditOptions,
  runLocal: (file: string, options: AuditOptions) => Promise<FileLedger>,
  pipeline = false,
  /** The lanes' worker module (tests give one that dies on some files). */
  workerUrl: URL = LANE_WORKER_URL,
): Promise<FileLedger[]> {
  const outcomes = new FileOutcomes(files, options);
  const plain = laneOptions(options);
  // The lanes already keep the cores busy: no second thread per file, unless the file is alone.
  const fileJobs = pipeline ? 2 : 1;

  // Largest files first (ties in input order): the last file a lane starts is then a small one,
  // so both lanes finish together instead of one waiting on a big file it started late.
  const order = bySizeDescending(files);
  let next = 0;
  const runHere = (index: number) => outcomes.runHere(index, runLocal, fileJobs);
  /** File `index` in `worker` (or here, without one); false when the worker died on it. */
  const runOne = async (worker: Worker | null, index: number): Promise<boolean> => {
    let alive = true;
    let result: FileLedger;
    if (worker === null || files[index] === '-') {
      // No worker for this lane (none could start, or too many died), or stdin.
      result = await runHere(index);
    } else {
      result = await inWorker(worker, index).catch((e: unknown) => {
        // A file that failed, or a worker that died, must not lose the file: analyze it here instead.
        alive = !(e instanceof LaneWorkerDied);
        outcomes.forget(index);
        return runHere(index);
      });
    }
    outcomes.settle(index, result);
    return alive;
  };

  const inWorker = (worker: Worker, index: number) =>
    new Promise<FileLedger>((resolve, reject) => {
      const stop = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (m: WorkerMessage) => {
        if (m.type === 'skip' || m.type === 'warning') outcomes.note(index, m);
        else {
          stop();
          if (m.type === 'done') resolve(m.result);
          else reject(new Error(m.message));
        }
      };
      const onError = (e: Error) => {
        stop();
        reject(new LaneWorkerDied(e.message));
      };
      // An exit without an error (or after one) must not leave the file waiting forever.
      const onExit = (code: number) => {
        stop();
        reject(new LaneWorkerDied(`worker exited with code ${code}`));
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.postMessage({ file: files[index]!, options: plain, jobs: fileJobs } satisfies WorkerRequest);
    });

  const startWorker = () => startLane(workerUrl, options);

  const lane = async () => {
    let worker = startWorker();
    // Workers of this lane that died in a row: one that cannot even start would die on every file.
    let deaths = 0;
    try {
      while (next < files.length) {
        const index = order[next++]!;
        if (await runOne(worker, index)) {
          deaths = 0;
          continue;
        }
        // The worker died on that file (an exception that escaped its analysis, say): a new one
        // takes the lane's next files; after MAX_LANE_DEATHS in a row, this thread takes them.
        void worker?.terminate();
        deaths += 1;
        worker = deaths < MAX_LANE_DEATHS ? startWorker() : null;
      }
    } finally {
      await worker?.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, files.length)) }, lane));
  return outcomes.results as FileLedger[];
}
