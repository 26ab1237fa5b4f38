// `sweep … --labels FILE` without `--param` (issue 56 item 3): the keys that matter for the findings
// the corpus has, each swept alone around its value, then one change that fits the labels within
// the false-alarm budget, or one sentence saying the values in force already fit them.

import type { ConfigValues } from '../config/spec.js';
import type { SessionLedger } from '../ledger/types.js';
import type { SweepParam, SweepValue } from './param.js';
import type { SweepMetrics, SweepResult } from './sweep.js';

/** The false-positive rate a recommendation may reach when `--max-fpr` is not given: one clean session in twenty. */
export const DEFAULT_MAX_FPR = 0.05;

/** Which key moves which findings, and the values around the one in force that a sweep tries. */
interface KeyRange {
  key: string;
  /** The findings it moves: `detector/kind`, or `detector/*`. */
  moves: readonly string[];
  values: (current: number) => number[];
}

const around = (step: number, below: number, above: number, min: number, max: number) => (current: number) => {
  const out: number[] = [];
  for (let i = -below; i <= above; i++) {
    const v = Math.round((current + i * step) * 1000) / 1000;
    if (v >= min && v <= max) out.push(v);
  }
  return out;
};

const KEY_RANGES: readonly KeyRange[] = [
  { key: 'tool_batch.max_strikes', moves: ['tool-batch/repeated_batch', 'tool-batch/repeated_failure', 'tool-batch/same_error'], values: around(1, 1, 2, 1, 1000) },
  { key: 'tool_batch.cycle_repeats', moves: ['tool-batch/tool_cycle'], values: around(1, 1, 2, 2, 1000) },
  { key: 'tool_batch.no_progress_stale_rounds', moves: ['tool-batch/no_progress'], values: around(1, 1, 3, 2, 1000) },
  { key: 'tool_batch.recurring_failure_occurrences', moves: ['tool-batch/recurring_failure'], values: around(1, 1, 2, 2, 1000) },
  { key: 'output.near_repetition_ambiguous', moves: ['output/*'], values: around(0.05, 2, 2, 0.5, 0.99) },
  { key: 'thinking.similarity_ambiguous', moves: ['thinking/*'], values: around(0.05, 2, 2, 0.5, 0.99) },
  // Stops come through unheeded steers: it matters wherever Enforce steered.
  { key: 'ladder.max_unheeded_steers', moves: ['*'], values: around(1, 1, 2, 1, 100) },
];

/** The params to sweep for these sessions: a key for each kind of finding they hold, at most one per key. */
export function autoParams(sessions: readonly SessionLedger[], values: ConfigValues): SweepParam[] {
  const found = new Set<string>();
  for (const s of sessions) for (const e of s.entries) found.add(`${e.detector}/${e.kind}`);
  const matters = (move: string) => (move === '*' ? found.size > 0 : move.endsWith('/*') ? [...found].some((f) => f.startsWith(move.slice(0, -1))) : found.has(move));
  const params: SweepParam[] = [];
  for (const range of KEY_RANGES) {
    const current = values[range.key];
    if (typeof current !== 'number' || !range.moves.some(matters)) continue;
    params.push({ key: range.key, values: range.values(current) });
  }
  return params;
}

/**
 * What the sweeps say to change: each key's recommendation, where it fits the labels better than the
 * value in force (more labeled loops flagged, or fewer clean sessions): a tie keeps the value in force.
 */
export function changesFrom(results: readonly SweepResult[], values: ConfigValues): Record<string, SweepValue> {
  const out: Record<string, SweepValue> = {};
  for (const r of results) {
    const rec = r.recommended;
    if (rec === null) continue;
    const chosen = r.points[rec.index]?.metrics;
    const inForce = r.points.find((p) => Object.entries(p.values).every(([k, v]) => values[k] === v))?.metrics;
    const recall = (m: SweepMetrics) => m.recall ?? 0;
    // The value in force over budget, or flagging fewer loops, or as many with fewer clean sessions.
    const better =
      chosen !== null &&
      chosen !== undefined &&
      (inForce === null || inForce === undefined || (inForce.fpr ?? 0) > (r.max_fpr ?? 1) || recall(chosen) > recall(inForce) || (recall(chosen) === recall(inForce) && chosen.fp < inForce.fp));
    if (!better) continue;
    for (const [key, v] of Object.entries(rec.values)) if (values[key] !== v) out[key] = v;
  }
  return out;
}
