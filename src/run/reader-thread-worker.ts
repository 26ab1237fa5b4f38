// The reading half of the two-thread pipeline (see reader-thread.ts): reads, parses and adapts one
// file, and posts the sink events in batches, pausing its reader while the detectors are behind.

import { parentPort, workerData } from 'node:worker_threads';
import { answerFailed } from '../detect/tool-batch/failure.js';
import { answerDigest } from '../detect/tool-batch/signature.js';
import { ERROR_HEAD_CHARS, normaliseError } from '../detect/tool-batch/no-progress.js';
import { ingestFile } from '../formats/ingest.js';
import { eventRecorder } from '../model/events.js';
import type { ToolAnswer } from '../model/transcript.js';
import {
  MAX_UNACKED_BATCHES,
  PIPELINE_BATCH_CHARS,
  PIPELINE_BATCH_ROUNDS,
  WORKER_MAX_HELD_CHARS,
  type PipelineEvents,
  type PipelineMessage,
  type PipelineRequest,
} from './reader-thread.js';

/** Atomics.waitAsync (Node 16+; its type is in lib es2024, this build targets es2023). */
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, index: number, value: number): { async: false } | { async: true; value: Promise<string> };
}).waitAsync;

const port = parentPort;
if (port) {
  const { files, inputFormat, inFlight: shared } = workerData as PipelineRequest;
  const inFlight = new Int32Array(shared);
  const post = (m: PipelineMessage) => port.postMessage(m);
  /** The file being read: its place in `files`, its events not yet posted, its reader. */
  let index = 0;
  let events: PipelineEvents = [];
  let rounds = 0;
  let chars = 0;
  let reader: { pause(): void; resume(): void } | null = null;
  let paused = false;

  const flush = () => {
    if (events.length === 0) return;
    post({ type: 'batch', index, events });
    events = [];
    rounds = 0;
    chars = 0;
    if (Atomics.add(inFlight, 0, 1) + 1 >= MAX_UNACKED_BATCHES && reader && !paused) {
      paused = true;
      reader.pause();
      void untilRoom(reader);
    }
  };
  /** Until the other thread has replayed enough batches (it notifies each). */
  const room = async () => {
    for (;;) {
      const n = Atomics.load(inFlight, 0);
      if (n < MAX_UNACKED_BATCHES) return;
      const wait = waitAsync(inFlight, 0, n);
      if (wait.async) await wait.value;
    }
  };
  const untilRoom = async (waiting: { resume(): void }) => {
    await room();
    paused = false;
    waiting.resume();
  };
  // A pending waitAsync holds no handle: this listener keeps the worker alive while it waits.
  port.on('message', () => {});

  // Tool results are most of a transcript's bytes and the detectors only ever hash them: hashed
  // here, they need not be copied to the other thread.
  const digested = (a: ToolAnswer): ToolAnswer => {
    const failed = answerFailed(a);
    const out: ToolAnswer = { content: '', isError: a.isError, digest: answerDigest(a), failed };
    // no_progress compares errors by their normalised text (at most a few hundred characters).
    if (failed) out.normalizedError = normaliseError(a.content);
    // failure_shapes tells a banner every command prints from a failure's own error by its first lines.
    if (a.content.length > 0) out.head = a.content.length > ERROR_HEAD_CHARS ? a.content.slice(0, ERROR_HEAD_CHARS) : a.content;
    if (a.waiting === true) out.waiting = true;
    return out;
  };

  const sink = eventRecorder(() => events, {
    mapRound: (round) => (round.answers === null ? round : { ...round, answers: round.answers.map(digested) }),
    onRound: (round) => {
      rounds += 1;
      chars += round.text.length;
      for (const t of round.thinking) chars += t.text?.length ?? 0;
      if (rounds >= PIPELINE_BATCH_ROUNDS || chars >= PIPELINE_BATCH_CHARS) flush();
    },
  });

  // One file after another: the next one is read as soon as this one is posted, while the other
  // thread is still replaying it. A file that fails is reported and the next one read.
  const readAll = async () => {
    for (index = 0; index < files.length; index++) {
      // The batches in flight bound the reading ahead across files too: a file's last batch is
      // posted after its reader is done, with nothing left to pause, so a store of small files
      // would otherwise be read to its end while the other thread is still at its first.
      await room();
      events = [];
      rounds = 0;
      chars = 0;
      reader = null;
      try {
        const summary = await ingestFile(files[index]!, sink, {
          inputFormat,
          maxHeldChars: WORKER_MAX_HELD_CHARS,
          onSkip: (skipped) => sink.skip(skipped),
          flow: (r) => {
            reader = r;
          },
        });
        flush();
        post({ type: 'done', index, summary });
      } catch (e) {
        post({ type: 'failed', index, message: (e as Error)?.message ?? String(e) });
      }
    }
  };
  void readAll();
}
