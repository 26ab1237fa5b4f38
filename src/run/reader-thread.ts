// One large file across two threads: a worker reads, parses and runs the format adapter, this
// thread runs the detectors. The worker sends the TranscriptSink events in order, in batches, with
// each tool result reduced to its digest; skips travel in the same stream, so every diagnostic
// comes out where the one-thread path says it. The result is byte-identical to that path.

import { replayEvents, type TranscriptEvents } from '../model/events.js';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { InputSummary } from '../formats/input.js';
import type { SkippedLine } from '../read/skipped.js';
import type { FormatName, TranscriptSink } from '../model/transcript.js';

/**
 * Files smaller than this stay on one thread: starting a worker and loading the adapters into it
 * costs tens of milliseconds, which only pays once reading takes several times that.
 */
export const PIPELINE_MIN_BYTES = 8 * 1024 * 1024;

/**
 * Batches the worker may have in flight before it pauses its reader: enough that this thread never
 * waits for the next one, few enough that a gigabyte file holds only a few hundred rounds in transit.
 */
export const MAX_UNACKED_BATCHES = 4;

/** A batch is sent at this many rounds, or earlier once its text reaches PIPELINE_BATCH_CHARS. */
export const PIPELINE_BATCH_ROUNDS = 64;
export const PIPELINE_BATCH_CHARS = 4 * 1024 * 1024;

/**
 * The reader's garbage is short-lived (lines, parsed records): a young generation this small keeps
 * the worker's heap from adding tens of megabytes to peak RSS, at no measurable cost in time.
 */
const WORKER_YOUNG_GENERATION_MB = 8;

/**
 * The worker keeps nothing but the current lines, the adapter's pending round and a few batches,
 * yet left alone its old generation grew to tens of megabytes and a 1 GB file peaked at 211 MB
 * (SPEC: under 200). Capped, it peaks at 193 MB. A record too large for the cap (a 50 MB line)
 * makes the worker fail, and the file is redone on one thread, as after any worker failure.
 */
const WORKER_OLD_GENERATION_MB = 40;

export interface PipelineRequest {
  file: string;
  inputFormat: FormatName | 'auto';
  /**
   * Batches posted and not yet replayed, one Int32 shared by both threads: the worker adds, this
   * thread subtracts and notifies. An acknowledgement message per batch cost this thread a
   * twentieth of its time on text-heavy input.
   */
  inFlight: SharedArrayBuffer;
}

/** A batch of sink events (see model/events.ts). */
export type PipelineEvents = TranscriptEvents;

export type PipelineMessage =
  | { type: 'batch'; events: PipelineEvents }
  | { type: 'done'; summary: InputSummary }
  | { type: 'failed'; message: string };

const WORKER_URL = new URL('./reader-thread-worker.js', import.meta.url);

/** Whether `file` is worth a second thread: a regular file of at least PIPELINE_MIN_BYTES. */
export async function worthPipelining(file: string): Promise<boolean> {
  if (file === '-') return false;
  try {
    const s = await stat(file);
    return s.isFile() && s.size >= PIPELINE_MIN_BYTES;
  } catch {
    // Unreadable: the one-thread path reports it.
    return false;
  }
}

/**
 * Ingest `file` in a worker into `sink` (on this thread). Resolves with the file's summary, or
 * null when the worker could not start or failed: `sink` may then hold part of the file, and the
 * caller starts over on one thread. Errors thrown by `sink` are rethrown, as ingestFile does.
 */
export function ingestInWorker(
  file: string,
  sink: TranscriptSink,
  options: { inputFormat?: FormatName | 'auto'; onSkip?: (skipped: SkippedLine) => void },
): Promise<InputSummary | null> {
  // Running from sources (vitest on .ts) there is no compiled worker next to this module.
  if (!existsSync(fileURLToPath(WORKER_URL))) return Promise.resolve(null);
  return new Promise<InputSummary | null>((resolve, reject) => {
    let worker: Worker;
    const shared = new SharedArrayBuffer(4);
    const inFlight = new Int32Array(shared);
    try {
      worker = new Worker(WORKER_URL, {
        workerData: { file, inputFormat: options.inputFormat ?? 'auto', inFlight: shared } satisfies PipelineRequest,
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB },
      });
    } catch {
      resolve(null);
      return;
    }
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      outcome();
    };
    worker.on('message', (m: PipelineMessage) => {
      if (settled) return;
      if (m.type === 'batch') {
        try {
          replayEvents(m.events, sink, options.onSkip);
        } catch (err) {
          settle(() => reject(err));
          return;
        }
        Atomics.sub(inFlight, 0, 1);
        Atomics.notify(inFlight, 0);
      } else if (m.type === 'done') {
        settle(() => resolve(m.summary));
      } else {
        settle(() => resolve(null));
      }
    });
    worker.on('error', () => settle(() => resolve(null)));
    worker.on('exit', () => settle(() => resolve(null)));
  });
}
