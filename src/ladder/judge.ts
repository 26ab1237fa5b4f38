// The L2 arbitration port (seed 002's judge). Offline there is no judge: the default port answers
// Indeterminate, so "the heuristic verdict stands". The port is kept so a judge (a recorded
// verdict file, a model call made ahead of time) can plug in without touching the ladder.

import type { DetectorName, Evidence } from '../detect/types.js';

export type JudgeVerdict = 'loop' | 'not_loop' | 'indeterminate';

/** Bounded summary evidence only (seed 002): kind, confidence, statistics, ≤ 3 excerpts of ≤ 80 chars. */
export interface JudgeRequest {
  detector: DetectorName;
  kind: string;
  confidence: number | null;
  evidence: Evidence;
  excerpts: readonly string[];
}

export interface JudgeAnswer {
  verdict: JudgeVerdict;
  /** null when the judge gave none: such an answer never escalates. */
  confidence: number | null;
}

/**
 * Synchronous on purpose: the ledger is a streaming sink and must stay deterministic, so an
 * offline judge answers from what it already has.
 */
export interface JudgePort {
  arbitrate(request: JudgeRequest): JudgeAnswer;
}

/** The default: no judge installed; every arbitration is Indeterminate. */
export const NO_JUDGE: JudgePort = {
  arbitrate: () => ({ verdict: 'indeterminate', confidence: null }),
};

/** Seed 002: the prompt carries "at most three 80-character excerpts". */
export const MAX_EXCERPTS = 3;
export const MAX_EXCERPT_CHARS = 80;

export function boundedExcerpts(excerpts: readonly string[]): string[] {
  return excerpts.slice(0, MAX_EXCERPTS).map((e) => [...e].slice(0, MAX_EXCERPT_CHARS).join(''));
}

/** A confidence the gate can read: a finite number in 0..1. */
export function usableConfidence(c: number | null | undefined): c is number {
  return typeof c === 'number' && Number.isFinite(c) && c >= 0 && c <= 1;
}
