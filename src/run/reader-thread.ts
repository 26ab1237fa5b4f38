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
import { bundledWorker } from './worker-module.js';

/**
 * Files smaller than this stay on one thread even when threads are asked for (`--jobs 2`):
 * starting a worker and loading the adapters into it costs tens of milliseconds, which only pays
 * once reading takes several times that.
 */
export const PIPELINE_MIN_BYTES = 8 * 1024 * 1024;

/**
 * Where the default (no `--jobs`) gives a file alone a second thread. Two threads cost ~20% more
 * CPU than one (each compiles its half again, and the batches cross), which on two cores a single
 * file repays only from about 32-40 MB: one thread was 10-20% faster at 9-24 MB, even at 32-40 MB,
 * and 7-10% slower at 64-80 MB, text-heavy and real-shaped alike (docs/performance.md, issue 30).
 */
export const PIPELINE_DEFAULT_MIN_BYTES = 32 * 1024 * 1024;

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
 * (SPEC: under 200). Capped, it peaks at 193 MB.
 */
const WORKER_OLD_GENERATION_MB = 40;

/** The most the reading thread's heap holds, in MB: counted beside its lane's by the default's memory bound (run/lanes.ts). */
export const READER_HEAP_CAP_MB = WORKER_OLD_GENERATION_MB + WORKER_YOUNG_GENERATION_MB;

/**
 * The most characters the worker holds as one line or document. A record is held about three
 * times over (its line, the parsed value, the adapter's text), two bytes a character at worst:
 * well inside the cap. Past it the worker hands the file back and it is redone on one thread:
 * left to fail on its own, a 60 MB tool result did not fail the worker but ended the whole
 * process (V8 aborts when one allocation cannot fit a capped heap; issue 53, item 8).
 */
export const WORKER_MAX_HELD_CHARS = 4 * 1024 * 1024;

export interface PipelineRequest {
  /** Read one after another, in this order: a lane's files, or one large file. */
  files: string[];
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

/** `index` is the file's place in PipelineRequest.files. */
export type PipelineMessage =
  | { type: 'batch'; index: number; events: PipelineEvents }
  | { type: 'done'; index: number; summary: InputSummary }
  | { type: 'failed'; index: number; message: string };

const WORKER_URL = bundledWorker(new URL('./reader-thread-worker.js', import.meta.url));

/**
 * Whether `file` is worth a second thread: a regular file of at least `minBytes`
 * (PIPELINE_MIN_BYTES where threads were asked for, PIPELINE_DEFAULT_MIN_BYTES by default).
 */
export async function worthPipelining(file: string, minBytes = PIPELINE_MIN_BYTES): Promise<boolean> {
  if (file === '-') return false;
  try {
    const s = await stat(file);
    return s.isFile() && s.size >= minBytes;
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
export async function ingestInWorker(
  file: string,
  sink: TranscriptSink,
  options: { inputFormat?: FormatName | 'auto'; onSkip?: (skipped: SkippedLine) => void },
): Promise<InputSummary | null> {
  const reader = ReaderThread.start([file], options.inputFormat ?? 'auto');
  if (reader === null) return null;
  try {
    return await reader.ingest(0, sink, options.onSkip);
  } finally {
    reader.close();
  }
}

interface Ingesting {
  index: number;
  sink: TranscriptSink;
  onSkip: ((skipped: SkippedLine) => void) | undefined;
  resolve: (summary: InputSummary | null) => void;
  reject: (err: unknown) => void;
}

/**
 * A reading thread for a list of files, read one after another while this thread runs the
 * detectors: it reads ahead into the next file as soon as one is done, as far as the batches in
 * flight allow, so neither thread waits on the other between files (a lane's whole store in two
 * threads, each compiling only its half of the code). Files are taken with `ingest`, in order.
 */
export class ReaderThread {
  private current: Ingesting | null = null;
  /** Messages for files not taken yet (the reader is ahead), in arrival order. */
  private readonly early: PipelineMessage[] = [];
  private dead = false;

  private constructor(
    private readonly worker: Worker,
    private readonly inFlight: Int32Array,
  ) {
    worker.on('message', (m: PipelineMessage) => this.receive(m));
    worker.on('error', () => this.die());
    worker.on('exit', () => this.die());
  }

  /** A thread reading `files`, or null where none can start (no compiled worker, or a failure). */
  static start(files: readonly string[], inputFormat: FormatName | 'auto'): ReaderThread | null {
    // Running from sources (vitest on .ts) there is no compiled worker next to this module.
    if (!existsSync(fileURLToPath(WORKER_URL))) return null;
    const shared = new SharedArrayBuffer(4);
    try {
      const worker = new Worker(WORKER_URL, {
        workerData: { files: [...files], inputFormat, inFlight: shared } satisfies PipelineRequest,
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB },
      });
      return new ReaderThread(worker, new Int32Array(shared));
    } catch {
      return null;
    }
  }

  /**
   * File `index` into `sink`: its summary, or null when the reader failed on it (or is gone), and
   * the caller starts that file over here. Indexes must come in increasing order; one skipped is
   * discarded unread.
   */
  ingest(index: number, sink: TranscriptSink, onSkip?: (skipped: SkippedLine) => void): Promise<InputSummary | null> {
    if (this.dead) return Promise.resolve(null);
    return new Promise<InputSummary | null>((resolve, reject) => {
      this.current = { index, sink, onSkip, resolve, reject };
      const early = this.early.splice(0);
      for (const m of early) this.receive(m);
    });
  }

  /** Messages held for files not taken yet: bounded by the batches in flight, however small the files. */
  get held(): number {
    return this.early.length;
  }

  /** False once the thread has died or been closed: what it did not read, it never will. */
  get alive(): boolean {
    return !this.dead;
  }

  /** Ends the thread (reading ahead included). */
  close(): void {
    this.dead = true;
    void this.worker.terminate();
  }

  private receive(m: PipelineMessage): void {
    const current = this.current;
    if (this.dead) return;
    if (current === null || m.index > current.index) {
      this.early.push(m);
      return;
    }
    if (m.index < current.index) {
      // A file the caller skipped: its batches still count as in flight until dropped.
      if (m.type === 'batch') this.replayed();
      return;
    }
    if (m.type === 'batch') {
      try {
        replayEvents(m.events, current.sink, current.onSkip);
      } catch (err) {
        this.current = null;
        this.close();
        current.reject(err);
        return;
      }
      this.replayed();
    } else {
      this.current = null;
      current.resolve(m.type === 'done' ? m.summary : null);
    }
  }

  private replayed(): void {
    Atomics.sub(this.inFlight, 0, 1);
    Atomics.notify(this.inFlight, 0);
  }

  private die(): void {
    if (this.dead && this.current === null) return;
    this.dead = true;
    const current = this.current;
    this.current = null;
    current?.resolve(null);
  }
}
