// What one analysis pass carries from rule to rule (src/detect/output/pass.ts runs the rules in
// order): a leaf the rules and the pass both import, so no rule imports the pass that runs it.

import type { Finding } from '../../types.js';
import type { MeasurementLog } from '../../text/finding.js';
import type { OutputConfig } from '../config.js';
import type { Span, State } from '../state.js';

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

/** How many characters two spans share. */
export function overlap(a: Span, b: Span): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}
