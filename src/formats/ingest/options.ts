// What ingestion is told (IngestOptions) and the constants its callers and tests name.

import type { Readable } from 'node:stream';
import type { FormatName } from '../../model/transcript.js';
import type { SkippedLine } from '../../read/skipped.js';
import type { FormatAdapter } from '../types.js';

/** Records detection sees before the format is chosen; they are held, then replayed. */
export const PROBE_RECORDS = 50;

/**
 * Or fewer, once the held records' text reaches this many characters: a parsed tree costs up to
 * ~28 bytes of heap per character (`[[[…]]]`), so fifty 10 MB tool calls held for detection
 * were gigabytes (issue 53, item 11). The records seen by then are plenty to tell a format by.
 */
export const PROBE_HELD_CHARS = 1024 * 1024;

export const TRUNCATED_REASON = 'truncated: unfinished last line (a session still being written?)';

export interface IngestOptions {
  /** 'auto' (default) detects the format from the first records; a name forces that adapter. */
  inputFormat?: FormatName | 'auto';
  /**
   * Each of the first MAX_KEPT_SKIPS skipped lines as it happens (the ones the summary keeps;
   * the rest are only counted in `skipped_lines`, so a file of millions of bad lines stays small).
   */
  onSkip?: (skipped: SkippedLine) => void;
  /** What `-` reads; process.stdin by default. */
  stdin?: Readable;
  /** The adapters to detect among (tests inject their own); ADAPTERS by default. */
  adapters?: readonly FormatAdapter[];
  /** Lines longer than this many characters are skipped unread (and array elements, see below). */
  maxLineLength?: number;
  /** Bytes from which a file that is one JSON array is read an element at a time (ARRAY_STREAM_BYTES). */
  streamArraysFrom?: number;
  /**
   * For a thread whose heap is small (the pipeline's reading thread): a line or a document that
   * would hold more characters than this throws TooLargeToHoldHere instead of being read, and the
   * caller reads the file where the heap is larger. V8 ends the whole process, not the thread,
   * when one allocation cannot fit a thread's capped heap.
   */
  maxHeldChars?: number;
  /**
   * Handed the reader's flow control once reading starts: a sink that forwards rounds elsewhere
   * (the two-thread pipeline) pauses the input while its consumer is behind, so memory stays bounded.
   */
  flow?: (reader: { pause(): void; resume(): void }) => void;
}

/** Thrown where `maxHeldChars` is passed: the file is to be read by a thread with a larger heap. */
export class TooLargeToHoldHere extends Error {
  constructor(line: number, limit: number) {
    super(`line ${line}: more than ${limit} characters to hold, past this thread's heap: read on a thread with a larger one`);
    this.name = 'TooLargeToHoldHere';
  }
}
