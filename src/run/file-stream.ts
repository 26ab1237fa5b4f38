// Many files in two threads: one lane runs the detectors over every file, in input order, while a
// reading thread of its own reads, parses and adapts the files one after another, reading ahead
// into the next file as soon as one is posted. Against two lanes analyzing whole files each, each
// thread compiles and warms up only its half of the code (the optimizing compiler was a fifth of
// the run's CPU per isolate), and tool results cross between them as digests. The ledger and the
// diagnostics are the one-thread path's, byte for byte. The lane's side is file-stream-lane.ts.

import type { Worker } from 'node:worker_threads';
import { FileOutcomes, laneOptions, LANE_WORKER_URL, startLane, type StreamMessage, type StreamRequest } from './file-pool.js';
import type { AuditOptions, FileLedger } from './options.js';

/**
 * Analyze `files` in one lane that reads them in a thread of its own, in input order. `runLocal`
 * takes stdin, a file the lane failed on, and every file left when the lane's worker dies or
 * cannot start.
 */
export async function auditInStream(
  files: readonly string[],
  options: AuditOptions,
  runLocal: (file: string, options: AuditOptions) => Promise<FileLedger>,
  /** The lane's worker module (tests give one that dies). */
  workerUrl: URL = LANE_WORKER_URL,
): Promise<FileLedger[]> {
  const outcomes = new FileOutcomes(files, options);
  const runHere = async (index: number) => {
    outcomes.forget(index);
    outcomes.settle(index, await outcomes.runHere(index, runLocal, 1));
  };
  // The lane's share: every file but stdin, in input order (the index is the file's in `files`).
  const laneIndexes = files.map((f, i) => (f === '-' ? -1 : i)).filter((i) => i >= 0);
  const worker = laneIndexes.length > 0 ? startLane(workerUrl, options) : null;
  if (worker !== null) {
    try {
      await inLane(worker, laneIndexes, files, options, outcomes, runHere);
    } finally {
      await worker.terminate();
    }
  }
  // Stdin, and whatever the lane left (it could not start, or died).
  for (let i = 0; i < files.length; i++) if (!outcomes.isSettled(i)) await runHere(i);
  return outcomes.results as FileLedger[];
}

/** The lane's files until it has answered them all or died; a file it failed on is redone here, in turn. */
function inLane(
  worker: Worker,
  indexes: readonly number[],
  files: readonly string[],
  options: AuditOptions,
  outcomes: FileOutcomes,
  runHere: (index: number) => Promise<void>,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let answered = 0;
    // Redone files go one at a time, so the lane's own answers are never held up by them; a redo
    // that throws (the sink's own error, as on one thread) ends the run with it.
    let redo = Promise.resolve();
    let thrown: { error: unknown } | null = null;
    const finish = () => {
      worker.off('message', onMessage);
      void redo.then(() => (thrown === null ? resolve() : reject(thrown.error)));
    };
    const onMessage = (m: StreamMessage) => {
      const index = indexes[m.index]!;
      if (m.type === 'skip' || m.type === 'warning') outcomes.note(index, m);
      else {
        if (m.type === 'done') outcomes.settle(index, m.result);
        else
          redo = redo
            .then(() => (thrown === null ? runHere(index) : undefined))
            .catch((error: unknown) => {
              thrown ??= { error };
            });
        if (++answered === indexes.length) finish();
      }
    };
    worker.on('message', onMessage);
    worker.once('exit', finish);
    worker.postMessage({ files: indexes.map((i) => files[i]!), options: laneOptions(options) } satisfies StreamRequest);
  });
}
