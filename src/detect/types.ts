// What detectors report. Detectors are pure: no I/O, no clocks, no globals; the same rounds in
// give the same findings out, however text is chunked.

import type { Round } from '../model/transcript.js';
import type { DetectorName, FindingKind } from './kinds.js';

export type { DetectorName, FindingKind } from './kinds.js';

export type EvidenceValue = number | string | boolean | null | readonly number[];
/** The statistics behind a finding: never the looped text itself. */
export type Evidence = Record<string, EvidenceValue>;

/** The tool-batch strike object, as SPEC's JSON names it. */
export interface Strike {
  count: number;
  threshold: number;
  total: number;
  ceiling: number | null;
  read_only: boolean;
}

/** A statistic compared against a threshold: what `--explain` shows and near misses are made of. */
export interface Measurement {
  detector: DetectorName;
  /** The kind this statistic would report, e.g. `near_repetition`. */
  kind: FindingKind;
  statistic: string;
  value: number;
  threshold: number;
  /** `above`: fires when value >= threshold; `below`: fires when value <= threshold. */
  direction: 'above' | 'below';
}

export interface Finding {
  detector: DetectorName;
  /** One of the kinds its detector declares (detect/kinds.ts). */
  kind: FindingKind;
  confidence: number | null;
  strike: Strike | null;
  evidence: Evidence;
  /** The detector itself declares a loop past its threshold (tool-batch LoopDetected): a stop. */
  loop: boolean;
  /** Evidence in the ambiguous band: under enforce the ladder would consult a judge. */
  ambiguous: boolean;
  /** The thresholds this finding crossed (for `--explain`). */
  crossed: Measurement[];
  /** At most three excerpts of at most 80 characters, for the judge; printed only with --excerpts. */
  excerpts: string[];
  /** Set by the ledger: the round's tool answers showed progress (see RoundObservation.progress). */
  progress?: boolean;
  /**
   * Set by the text detectors: the finding is verbatim repetition that dominates its round's
   * text (a chant, a re-emitted paragraph, an identical thinking block), not a phrase among
   * other words. Only such text may stop a turn whose tool work keeps changing.
   */
  dominant?: boolean;
  /** Set by the ledger: the round's tool batch, with its answers, is new in the turn. */
  variedWork?: boolean;
}

/** Whether a round's tool work is new in its turn: known now, or told on demand. */
export type Novelty = boolean | (() => boolean);

export interface RoundObservation {
  findings: Finding[];
  /** Every statistic compared this round, fired or not (near misses come from here). */
  measurements: Measurement[];
  /**
   * The round repeated the previous tool batch and got a different answer back: progress that
   * happens to look alike (seed 000), as when an agent polls a build.
   */
  progress?: boolean;
  /**
   * The round's tool batch, with its answers, is new in the turn: varied, answered work. A function
   * when telling needs the answers hashed: it is asked only when a text finding needs the answer,
   * so most rounds never hash their results for it.
   */
  novel?: Novelty;
}

/** One detector as the ledger drives it: one call per round, in order. */
export interface RoundDetector {
  readonly name: DetectorName;
  observe(round: Round): RoundObservation;
  /**
   * The detector's turn is over and it will not be called again: it may hand its buffers to the
   * next turn's detectors (see detect/text/pool.ts).
   */
  release?(): void;
}

/**
 * A detector whose state survives the process: the live hook (`loopledger hook`) saves it between
 * calls. `snapshot()` is plain JSON; `restore()` of it continues exactly where it left off.
 */
export interface ResumableRoundDetector extends RoundDetector {
  snapshot(): unknown;
  restore(state: unknown): void;
}
