// The L2 arbitration port (seed 002's judge). The ladder asks it synchronously, so the ledger stays
// a deterministic streaming sink: a model call never happens in here. With no judge configured the
// port answers Indeterminate and "the heuristic verdict stands"; with one, the port answers from
// verdicts gathered ahead of time (the judge cache, or the previous pass of a run: see
// src/judge/run.ts and docs/judge.md).

import type { DetectorName, Evidence } from '../detect/types.js';

/** `loop` / `progress` are the judge's words (SPEC's reply contract); Indeterminate is everything else. */
export type JudgeVerdict = 'loop' | 'progress' | 'indeterminate';

/**
 * Why a consultation ended Indeterminate (or was not asked at all): recorded in the ledger so a
 * user can tell a judge that doubted from a judge that timed out.
 */
export type JudgeUnusable =
  | 'no_judge'
  | 'over_budget'
  | 'self_arbitration'
  | 'no_api_key'
  | 'judge_unavailable'
  | 'timeout'
  | 'network'
  | 'unparsable'
  | 'no_confidence'
  | 'below_gate'
  | 'not_asked'
  | 'pending'
  | `http_${number}`;

/** Bounded summary evidence only (seed 002): kind, confidence, statistics, ≤ 3 excerpts of ≤ 80 chars. */
export interface JudgeRequest {
  detector: DetectorName;
  kind: string;
  confidence: number | null;
  evidence: Evidence;
  excerpts: readonly string[];
  /** The monitored turn's model (self-arbitration avoidance); never sent to the judge. */
  model?: string | null;
  /**
   * An earlier arbitration of this turn is still pending, so whether this one would happen at all
   * depends on that answer: a port gathering evidence to ask should not ask this yet.
   */
  speculative?: boolean;
}

export interface JudgeAnswer {
  verdict: JudgeVerdict;
  /** null when the judge gave none: such an answer never escalates. */
  confidence: number | null;
  /** Whether a judge answered (now, or earlier through its cache). Absent: true unless Indeterminate. */
  consulted?: boolean;
  /** Why the answer is Indeterminate, when the port knows. */
  unusable?: JudgeUnusable;
}

/**
 * Synchronous on purpose: the ledger is a streaming sink and must stay deterministic, so the port
 * answers from what it already has.
 */
export interface JudgePort {
  arbitrate(request: JudgeRequest): JudgeAnswer;
}

/** The default: no judge installed; every arbitration is Indeterminate. */
export const NO_JUDGE: JudgePort = {
  arbitrate: () => ({ verdict: 'indeterminate', confidence: null, consulted: false, unusable: 'no_judge' }),
};

/** Seed 002: the prompt carries "at most three 80-character excerpts". */
const MAX_EXCERPTS = 3;
const MAX_EXCERPT_CHARS = 80;

export function boundedExcerpts(excerpts: readonly string[]): string[] {
  return excerpts.slice(0, MAX_EXCERPTS).map((e) => [...e].slice(0, MAX_EXCERPT_CHARS).join(''));
}

/** A confidence the gate can read: a finite number in 0..1. */
export function usableConfidence(c: number | null | undefined): c is number {
  return typeof c === 'number' && Number.isFinite(c) && c >= 0 && c <= 1;
}
