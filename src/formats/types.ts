// The contract between the reader and the format adapters.

import type { TranscriptBuilder } from '../model/builder.js';
import type { FormatName } from '../model/transcript.js';

/**
 * What detection sees of a file. `jsonl`: the first parsed non-blank lines (up to a few dozen).
 * `document`: the whole file parsed as one JSON value (a pretty-printed JSON file).
 */
export type Probe =
  | { mode: 'jsonl'; fileName: string; records: readonly unknown[] }
  | { mode: 'document'; fileName: string; value: unknown };

export interface AdapterContext {
  path: string;
  /** Announces sessions and delivers their turns and rounds. */
  builder: TranscriptBuilder;
  /** A record that could not be used: reported as `path:line: reason` and in inputs[].skipped. */
  skip(line: number | null, reason: string): void;
  /**
   * A record read and set aside because it carries no conversation (an agent state change…):
   * not an error, only counted by kind in inputs[].ignored. Optional for adapters to call.
   */
  ignore?(kind: string): void;
}

/** Receives one file's records in order and describes them to `ctx.builder`. */
export interface RecordParser {
  /**
   * One parsed JSON value. In `jsonl` mode, one per non-blank line with its 1-based line
   * number; in `document` mode, once, the whole document, with line null.
   * Never throws on unexpected shapes: skip quietly (not a conversation record) or ctx.skip.
   */
  push(value: unknown, line: number | null): void;
  /** The file is done: release pending rounds (ctx.builder.end() is called after this). */
  end(): void;
}

export interface FormatAdapter {
  name: FormatName;
  /** One line for `loopledger formats`. */
  description: string;
  /** One line: how auto-detection recognizes it. */
  detection: string;
  /** 0 = not this format; higher = more certain (1 = unmistakable). */
  detect(probe: Probe): number;
  open(ctx: AdapterContext): RecordParser;
  /**
   * push() of each element of a top-level array reads as push() of the whole array: a large file
   * that is one array is then read an element at a time (each with its line), in bounded memory.
   */
  arrayElements?: true;
}
