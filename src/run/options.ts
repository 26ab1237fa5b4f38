// What a run is asked to do and what it gives back per file: shared by the three ways of driving
// one (this thread, the file pool, the reader thread), so none of them imports another for types.

import type { Readable } from 'node:stream';
import type { ResolvedConfig } from '../config/resolved.js';
import type { ConfigValues } from '../config/spec.js';
import type { InputSummary } from '../formats/input.js';
import type { JudgePlan, PendingArbitration } from '../ladder/verdicts.js';
import type { SessionLedger } from '../ledger/types.js';
import type { FormatName } from '../model/transcript.js';
import type { PricingOptions } from '../money/prices.js';
import type { SkippedLine } from '../read/skipped.js';
import type { Shard } from '../read/shard.js';
import type { SessionWindow } from '../ledger/window.js';
import type { PeriodSpec } from '../ledger/periods.js';

export interface AuditOptions {
  /**
   * Effective configuration (defaults when omitted): flat (dotted key → value; `audit` parses it
   * once for the whole run) or already parsed (the CLI's loader has).
   */
  config?: ConfigValues | ResolvedConfig;
  inputFormat?: FormatName | 'auto';
  /** Attach at most three 80-character excerpts per entry. */
  excerpts?: boolean;
  /** Attach the thresholds each entry crossed. */
  explain?: boolean;
  /** Attach every round's verdict and near misses. */
  verbose?: boolean;
  /** Attach each session's turn boundaries and spend curve (what `--format html` draws). */
  timeline?: boolean;
  /**
   * Threads the analysis takes; 1 analyzes in this thread. Default: the idle cores (at least 2 on
   * two cores or more), as many as memory holds at their heap caps (lanes.ts chooseJobs). 2: one worker analyzes the files one after another while
   * a second thread of its own reads them (file-stream.ts); 3 or more: that many workers analyze
   * whole files at once. A file analyzed alone that is large enough (PIPELINE_DEFAULT_MIN_BYTES
   * by default, PIPELINE_MIN_BYTES when jobs is given) runs in a worker that reads it in a second
   * thread of its own.
   */
  jobs?: number;
  /**
   * List prices, on by default: `false` counts tokens but prices nothing (and never loads the
   * price data); `{ overrides }` adds or replaces prices (see readPriceFile). Passed to workers as is.
   */
  pricing?: PricingOptions;
  /** A line was skipped (diagnostics as they happen; the first MAX_KEPT_SKIPS of each file). */
  onSkip?: (path: string, skipped: SkippedLine) => void;
  onWarning?: (message: string) => void;
  /** Verdicts in hand for the judge port (set by `audit` when a judge is configured; see judge/run.ts). */
  judgePlan?: JudgePlan;
  /** Where `judge.api_key_env` is looked up; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** What the path `-` reads; process.stdin by default. */
  stdin?: Readable;
  /** Files done of the total: once with 0 when the files are known, then after each file; `current` is the file being read when files go one at a time. */
  onProgress?: (done: number, total: number, current?: string) => void;
  /** `--shard K/N`: only the files (and unreadable paths) that hash to shard K of N (read/shard.ts). */
  shard?: Shard;
  /**
   * `--since` / `--until`: only the sessions that ran within the window (ledger/window.ts). A file
   * last changed before `since` is not read at all; the rest are decided on each session's times.
   */
  window?: SessionWindow;
  /** `--by`: add the sessions up per day, week or month of a time zone (ledger/periods.ts). */
  periods?: PeriodSpec;
  /** Told how many sessions and files the window left out (for `--verbose` and the footer). */
  onWindow?: (left: { files: number; sessions: number; undated: number }) => void;
}

export interface FileLedger {
  input: InputSummary;
  sessions: SessionLedger[];
  /** With a judge: the evidence this file's build could not answer yet, and the keys it answered. */
  judge?: { pending: PendingArbitration[]; answered: string[] };
}
