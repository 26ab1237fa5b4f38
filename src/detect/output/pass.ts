// An analysis pass: each signal's candidate since the last pass is judged by its rule, in the
// fixed order of RULES (the measurement log and the findings keep it), and the candidates start
// over. The rules share what one pass carries from signal to signal (PassContext).

import type { Finding } from '../types.js';
import type { MeasurementLog } from '../text/finding.js';
import type { OutputConfig } from './config.js';
import { liveSeries } from './counter.js';
import { connectorStalling } from './rules/connectors.js';
import { predictableDrift } from './rules/drift.js';
import { exactBlock, recurringStretch } from './rules/exact-block.js';
import { nearRepetition } from './rules/near-repetition.js';
import { shortPeriod } from './rules/short-period.js';
import { clearCandidates, type Span, type State } from './state.js';

/** A repetition the live counter series explains shares at least half of the shorter span with it. */
const EXPLAINS_OVERLAP = 0.5;

export interface PassContext {
  readonly s: State;
  readonly c: Readonly<OutputConfig>;
  readonly log: MeasurementLog;
  /** Normalized characters committed when the pass ran. */
  readonly pos: number;
  readonly out: Finding[];
  /** The counter series that silences repetition inside it, if any. */
  readonly live: Span | null;
  /** Repetitions the series silenced (predictable_drift says whether it explained any). */
  explained: number;
  /** A repetition signal was reported (near repetition then says nothing more). */
  repetition: boolean;
  /** The run of a phrase found recurring once per round (not a loop), if any. */
  recurringRun: Span | null;
}

type Rule = (p: PassContext) => void;

/**
 * The order matters: a recurring phrase found first explains near repetition, a reported
 * repetition keeps near repetition quiet, and drift says whether it explained any of them.
 */
const RULES: readonly Rule[] = [exactBlock, recurringStretch, shortPeriod, connectorStalling, nearRepetition, predictableDrift];

/** One pass over the candidates; its findings in rule order. */
export function runPass(s: State, c: Readonly<OutputConfig>, log: MeasurementLog): Finding[] {
  s.passes++;
  const pos = s.tok.pos;
  s.nextPassAt = pos + c.strideChars;
  const p: PassContext = { s, c, log, pos, out: [], live: liveSeries(s, c), explained: 0, repetition: false, recurringRun: null };
  for (const rule of RULES) rule(p);
  clearCandidates(s);
  return p.out;
}

/** A repetition the live counter series explains (they share half the shorter span): counted, not reported. */
export function silenced(p: PassContext, span: Span): boolean {
  const live = p.live;
  if (!live) return false;
  const shared = Math.min(span.end, live.end) - Math.max(span.start, live.start);
  const shorter = Math.min(span.end - span.start, live.end - live.start);
  if (shared > 0 && shared >= EXPLAINS_OVERLAP * shorter) {
    p.explained++;
    return true;
  }
  return false;
}

export function overlap(a: Span, b: Span): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}
