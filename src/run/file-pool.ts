// Many files at once: each file goes through the whole pipeline in a worker thread, results come
// back in input order, and each file's diagnostics are released in that same order, so the
// output is identical whatever the number of jobs.

import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { AuditOptions, FileLedger } from './options.js';
import type { SkippedLine } from '../read/skipped.js';

export interface WorkerRequest {
  file: string;
  options: Omit<AuditOptions, 'onSkip' | 'onWarning' | 'onProgress' | 'jobs' | 'stdin'>;
  /** The lane may read the file in a thread of its own (a large file analyzed alone). */
  pipeline: boolean;
}

export type WorkerMessage =
  | { type: 'skip'; path: string; skipped: SkippedLine }
  | { type: 'warning'; message: string }
  | { type: 'done'; result: FileLedger }
  | { type: 'failed'; message: string };

/**
 * A lane's young generation. Left at V8's default, each lane's heap added ~25 MB of peak RSS and
 * a 2,000-file store peaked at 234 MB (SPEC: under 200); at 8 MB it peaked at 203–207 MB on a quiet
 * machine, at 4 MB 194–196 MB, with no measurable cost in time (the lanes' garbage is a file's
 * lines and rounds, short-lived).
 */
const LANE_YOUNG_GENERATION_MB = 4;

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

export function defaultJobs(): number {
  return availableParallelism();
}

type Diagnostic = { type: 'skip'; path: string; skipped: SkippedLine } | { type: 'warning'; message: string };

/**
 * Analyze `files` with up to `jobs` workers. `runLocal` handles what a worker cannot (stdin) and
 * is the fallback when a worker fails to start. With `pipeline` (one large file), the lane reads
 * the file in a second thread of its own (run/reader-thread.ts), as this thread would.
 */
export async function auditInWorkers(
  files: readonly string[],
  jobs: number,
  options: AuditOptions,
  runLocal: (file: string, options: AuditOptions) => Promise<FileLedger>,
  pipeline = false,
): Promise<FileLedger[]> {
  const results: (FileLedger | undefined)[] = new Array(files.length);
  const diagnostics: Diagnostic[][] = files.map(() => []);
  const settled: boolean[] = files.map(() => false);
  let released = 0;
  // Diagnostics of file i go out only once files 0..i-1 are done: stderr stays deterministic.
  const release = () => {
    while (released < files.length && settled[released]) {
      for (const d of diagnostics[released]!) {
        if (d.type === 'skip') options.onSkip?.(d.path, d.skipped);
        else options.onWarning?.(d.message);
      }
      diagnostics[released] = [];
      released += 1;
    }
  };
  // A stream cannot cross to a worker; stdin is only ever read here anyway.
  const { onSkip: _s, onWarning: _w, onProgress: _p, jobs: _j, stdin, ...plain } = options;
  let done = 0;
  const workerUrl = new URL('./file-pool-worker.js', import.meta.url);

  // Largest files first (ties in input order): the last file a lane starts is then a small one,
  // so both lanes finish together instead of one waiting on a big file it started late.
  const order = bySizeDescending(files);
  let next = 0;
  // Here on this thread, diagnostics held for their turn like a worker's.
  const runHere = (index: number) =>
    runLocal(files[index]!, {
      ...plain,
      ...(stdin ? { stdin } : {}),
      jobs: pipeline ? 2 : 1,
      onSkip: (path, skipped) => diagnostics[index]!.push({ type: 'skip', path, skipped }),
      onWarning: (message) => diagnostics[index]!.push({ type: 'warning', message }),
    });
  const runOne = async (worker: Worker | null, index: number) => {
    if (worker === null || files[index] === '-') {
      // Every lane is busy: a file analyzed here gets no second thread either.
      results[index] = await runHere(index);
    } else {
      results[index] = await inWorker(worker, index).catch(() => {
        // A worker that dies must not lose the file: analyze it here instead.
        diagnostics[index] = [];
        return runHere(index);
      });
    }
    settled[index] = true;
    release();
    options.onProgress?.(++done, files.length);
  };

  const inWorker = (worker: Worker, index: number) =>
    new Promise<FileLedger>((resolve, reject) => {
      const onMessage = (m: WorkerMessage) => {
        if (m.type === 'skip' || m.type === 'warning') diagnostics[index]!.push(m);
        else {
          worker.off('message', onMessage);
          worker.off('error', onError);
          if (m.type === 'done') resolve(m.result);
          else reject(new Error(m.message));
        }
      };
      const onError = (e: Error) => {
        worker.off('message', onMessage);
        reject(e);
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.postMessage({ file: files[index]!, options: plain, pipeline } satisfies WorkerRequest);
    });

  const lane = async () => {
    let worker: Worker | null = null;
    try {
      worker = new Worker(workerUrl, { resourceLimits: { maxYoungGenerationSizeMb: LANE_YOUNG_GENERATION_MB } });
      // A worker that fails to load reports through 'error'; with no listener that would crash us.
      worker.on('error', () => {});
    } catch {
      worker = null;
    }
    try {
      while (next < files.length) {
        const index = order[next++]!;
        await runOne(worker, index);
      }
    } finally {
      await worker?.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, files.length)) }, lane));
  return results as FileLedger[];
}
