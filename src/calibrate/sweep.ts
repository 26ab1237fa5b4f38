// The sweep: replay the same corpus once per threshold value and count what would have fired,
// steered and stopped, and, with labels, how well "would have stopped" matches "was a loop".
//
// Metric definitions (per grid point, over labeled items only):
//   TP: a loop label whose sessions were predicted positive (at or after the labeled turn, if any)
//   FN: a loop label not predicted positive (including one stopped only before its labeled turn)
//   FP: a clean label predicted positive
//   TN: a clean label not predicted positive
//   precision = TP / (TP + FP)   null when nothing labeled was predicted positive
//   recall    = TP / (TP + FN)   null when there are no labeled loops
//   FPR       = FP / (FP + TN)   null when there are no labeled clean items
// Predicted positive: some round reached the `positive` level under enforce (`stop` by default:
// calibration is about the action that ends a turn; `steer` asks about the softer intervention).
//
// Items are labels, not sessions. A label names one session (by id) or one file (every session
// read from it that has no label of its own, sub-agent threads included); a file is predicted
// positive when any of its sessions is. So a labeled loop in a parent thread is not counted as
// missed just because its sub-agent was clean. Unlabeled sessions appear in the counts only.

import { roundsKey, roundsOf } from '../ledger/runs.js';
import type { ConfigValues } from '../config/spec.js';
import { ConfigError, UsageError } from '../errors.js';
import { setOwn } from '../own-key.js';
import type { SessionLedger } from '../ledger/types.js';
import { LEVEL_RANK as RANK, type EnforceLevel } from '../vocabulary.js';
import { labelKeyFor, type Label, type Labels } from './labels.js';
import { gridPoints, type SweepParam, type SweepValue } from './param.js';
import { preventedTotal, type PreventedTotal } from '../ledger/summary.js';
import { interruptLabels, scoreInterrupts, type InterruptLabels, type InterruptPointScore, type InterruptSummary } from './interrupts.js';

/** The level at which a session counts as flagged: any but `none`. */
export type PositiveLevel = Exclude<EnforceLevel, 'none'>;

export interface SweepOptions {
  params: readonly SweepParam[];
  /** The effective configuration the swept keys are laid over. */
  baseValues: ConfigValues;
  /** Replays the corpus under one configuration (the real pipeline, or a fake in tests). */
  analyze: (values: ConfigValues) => Promise<SessionLedger[]>;
  labels?: Labels | null;
  /** `--labels interrupts`: the user's interrupts after a repeat as loop labels (hand labels win). */
  interrupts?: boolean;
  /** The bound for the recommendation; without it no value is recommended. */
  maxFpr?: number | null;
  /** What counts as predicting a loop; default `stop`. */
  positive?: PositiveLevel;
  /** After each point: progress for long sweeps. */
  onPoint?: (done: number, total: number) => void;
}

/** Sessions and distinct rounds. */
export interface SweepCount {
  sessions: number;
  rounds: number;
}

export interface SweepMetrics {
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  precision: number | null;
  recall: number | null;
  fpr: number | null;
  /** Sessions no label matched: counted above, excluded here. */
  unlabeled_sessions: number;
}

export interface SweepPoint {
  /** The swept keys' values at this point. */
  values: Record<string, SweepValue>;
  sessions: number;
  rounds: number;
  /** Any entry at all (what telemetry would have logged). */
  fired: SweepCount;
  /** Rounds whose strongest enforce intervention is a steer. */
  steered: SweepCount;
  /** Rounds whose strongest enforce intervention is a stop. */
  stopped: SweepCount;
  /** What the stops would have saved (rounds still in the loop), as summary.enforce.saved adds it up; absent in a partial written before 0.3. */
  saved?: PreventedTotal;
  /** What they would have cut (rounds after the agent had recovered): the trade-off, read without labels. */
  cut?: PreventedTotal;
  /** Ids of the sessions predicted positive: diff two points to see which sessions flip. */
  positive_sessions: string[];
  /** The file of each of positive_sessions (same order): merge puts shards' sessions back in file order. */
  positive_paths: string[];
  metrics: SweepMetrics | null;
  /** With `--labels interrupts`: the interrupted loops Enforce would have stopped first. */
  interrupts?: InterruptPointScore;
  /** With labels: each matched label key's turns that reached the positive level (keys and turns sorted,
   *  turns once each), from which `metrics` is computed; merge adds shards' up before computing. */
  label_turns?: Record<string, number[]>;
}

interface SweepLabelSummary {
  /** Labels that matched at least one session. */
  loop: number;
  clean: number;
  /** Label keys that matched no session (typo, or a file outside the inputs). */
  unmatched: string[];
  /** The labels that matched a session, sorted by key (merge needs them to recount the shards' items). */
  matched?: { key: string; label: Label['label']; turn: number | null; weak?: true }[];
}

export interface SweepRecommendation {
  index: number;
  values: Record<string, SweepValue>;
  precision: number | null;
  recall: number | null;
  fpr: number | null;
}

export interface SweepResult {
  /** The base configuration's hash (ledger/config-hash.ts), when the run knows it: merge refuses mixed partials. */
  config_hash?: string;
  /** Present only in a `--shard K/N` partial. */
  shard?: { index: number; count: number };
  params: SweepParam[];
  positive: PositiveLevel;
  max_fpr: number | null;
  labels: SweepLabelSummary | null;
  /** With `--labels interrupts`: the weak labels read from the user's interrupts. */
  interrupts?: InterruptSummary;
  points: SweepPoint[];
  /** The value with the best recall among those with FPR ≤ max_fpr; ties go to the most conservative. */
  recommended: SweepRecommendation | null;
  /** Why there is no recommendation, when there is none. */
  note: string | null;
  warnings: string[];
  /** The base configuration the swept keys were laid over (the CLI's JSON carries it). */
  config?: Record<string, unknown>;
}

/** `--max-fpr`: a ratio (`0.05`) or a percentage (`5%`). */
export function parseMaxFpr(text: string): number {
  const t = text.trim();
  const pct = t.endsWith('%');
  const body = pct ? t.slice(0, -1).trim() : t;
  const n = /^(\d+\.?\d*|\.\d+)$/.test(body) ? Number(body) / (pct ? 100 : 1) : NaN;
  if (!(n >= 0 && n <= 1)) throw new UsageError(`--max-fpr ${JSON.stringify(text)}: expected a rate between 0 and 1 (or 0% to 100%)`);
  return n;
}

function ratio(num: number, den: number): number | null {
  return den === 0 ? null : num / den;
}

interface SessionTally {
  firedRounds: number;
  steeredRounds: number;
  stoppedRounds: number;
  /** Turns with a round at or above the positive level. */
  positiveTurns: number[];
}

function tallySession(session: SessionLedger, positive: PositiveLevel): SessionTally {
  // By round, or by a run's range (roundsKey).
  const fired = new Map<number | string, number>();
  const level = new Map<number | string, { rank: number; rounds: number }>();
  const positiveTurns = new Set<number>();
  for (const e of session.entries) {
    const key = roundsKey(e);
    fired.set(key, roundsOf(e));
    // Rounds after a stop would not have happened under enforce: they intervene in nothing.
    if (e.after_stop) continue;
    const r = RANK[e.intervention.enforce] ?? 0;
    level.set(key, { rank: Math.max(level.get(key)?.rank ?? 0, r), rounds: roundsOf(e) });
    if (r >= RANK[positive]) positiveTurns.add(e.turn);
  }
  let firedRounds = 0;
  for (const n of fired.values()) firedRounds += n;
  let steeredRounds = 0;
  let stoppedRounds = 0;
  for (const { rank, rounds } of level.values()) {
    if (rank === RANK.steer) steeredRounds += rounds;
    else if (rank === RANK.stop) stoppedRounds += rounds;
  }
  return { firedRounds, steeredRounds, stoppedRounds, positiveTurns: [...positiveTurns] };
}

/** Whether a labeled item was predicted positive, honouring a loop's starting turn. */
function predicted(label: Label, turns: readonly number[]): boolean {
  if (label.label === 'loop' && label.turn !== null) return turns.some((t) => t >= (label.turn ?? 1));
  return turns.length > 0;
}

export function evaluatePoint(
  values: Record<string, SweepValue>,
  sessions: readonly SessionLedger[],
  labels: Labels | null,
  positive: PositiveLevel,
): SweepPoint {
  const fired: SweepCount = { sessions: 0, rounds: 0 };
  const steered: SweepCount = { sessions: 0, rounds: 0 };
  const stopped: SweepCount = { sessions: 0, rounds: 0 };
  const positiveSessions: string[] = [];
  const positivePaths: string[] = [];
  let rounds = 0;
  // label key → turns (across the item's sessions) that reached the positive level
  const items = new Map<string, number[]>();
  let unlabeled = 0;

  for (const s of sessions) {
    const t = tallySession(s, positive);
    rounds += s.rounds;
    if (t.firedRounds > 0) fired.sessions++;
    if (t.steeredRounds > 0) steered.sessions++;
    if (t.stoppedRounds > 0) stopped.sessions++;
    fired.rounds += t.firedRounds;
    steered.rounds += t.steeredRounds;
    stopped.rounds += t.stoppedRounds;
    if (t.positiveTurns.length > 0) {
      positiveSessions.push(s.id);
      positivePaths.push(s.path);
    }
    if (labels) {
      const key = labelKeyFor(s, labels);
      if (key === null) unlabeled++;
      else items.set(key, [...(items.get(key) ?? []), ...t.positiveTurns]);
    }
  }

  const labelTurns = labels ? canonicalLabelTurns(items) : null;
  return {
    values,
    sessions: sessions.length,
    rounds,
    fired,
    steered,
    stopped,
    saved: preventedTotal(sessions, 'saved'),
    cut: preventedTotal(sessions, 'cut'),
    positive_sessions: positiveSessions,
    positive_paths: positivePaths,
    metrics: labels && labelTurns ? labelMetrics(labelTurns, labels, unlabeled) : null,
    ...(labelTurns ? { label_turns: labelTurns } : {}),
  };
}

/** Keys sorted, each key's turns sorted and once each: the same whatever order the sessions came in. */
export function canonicalLabelTurns(items: ReadonlyMap<string, readonly number[]>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  // A key is a session id or a file name, "__proto__" included.
  for (const key of [...items.keys()].sort(compareKeys)) setOwn(out, key, [...new Set(items.get(key))].sort((a, b) => a - b));
  return out;
}

/** TP/FP/TN/FN over labeled items (see the header), from each matched item's positive turns. */
export function labelMetrics(items: Readonly<Record<string, readonly number[]>>, labels: Labels, unlabeled: number): SweepMetrics {
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  for (const [key, turns] of Object.entries(items)) {
    const label = labels.get(key);
    if (!label) continue;
    const hit = predicted(label, turns);
    if (label.label === 'loop') {
      if (hit) tp++;
      else fn++;
    } else if (hit) fp++;
    else tn++;
  }
  return {
    tp,
    fp,
    tn,
    fn,
    precision: ratio(tp, tp + fp),
    recall: ratio(tp, tp + fn),
    fpr: ratio(fp, fp + tn),
    unlabeled_sessions: unlabeled,
  };
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function summarizeLabels(sessions: readonly SessionLedger[], labels: Labels, weak: ReadonlySet<string>): SweepLabelSummary {
  const matched = new Set<string>();
  for (const s of sessions) {
    const key = labelKeyFor(s, labels);
    if (key !== null) matched.add(key);
  }
  let loop = 0;
  let clean = 0;
  const unmatched: string[] = [];
  for (const [key, label] of labels) {
    if (!matched.has(key)) unmatched.push(key);
    else if (label.label === 'loop') loop++;
    else clean++;
  }
  const matchedLabels = [...matched]
    .sort(compareKeys)
    .map((key) => ({ key, label: labels.get(key)!.label, turn: labels.get(key)!.turn, ...(weak.has(key) ? { weak: true as const } : {}) }));
  return { loop, clean, unmatched: unmatched.sort(), matched: matchedLabels };
}

/**
 * Best recall among points with FPR ≤ maxFpr. Ties go to the most conservative point: the fewest
 * labeled items flagged, then the fewest sessions and rounds stopped across the whole corpus,
 * then the later point (a larger threshold is the more conservative one for every threshold
 * registered so far, and a sweep runs from small to large).
 */
export function recommend(
  points: readonly SweepPoint[],
  maxFpr: number | null,
): { recommended: SweepRecommendation | null; note: string | null } {
  const labeled = points.filter((p) => p.metrics !== null);
  if (labeled.length === 0) return { recommended: null, note: 'no labels: pass --labels to measure the false-positive rate' };
  if (maxFpr === null) return { recommended: null, note: 'pass --max-fpr to get a recommended value' };
  if (labeled.every((p) => p.metrics?.fpr === null)) {
    return { recommended: null, note: 'no labeled clean session matched: the false-positive rate cannot be measured' };
  }
  let best = -1;
  const key = (p: SweepPoint): number[] => {
    const m = p.metrics as SweepMetrics;
    // Not steers: a lower threshold can skip the steer and stop at once, so fewer steers is not
    // more conservative.
    return [m.recall ?? -1, -(m.tp + m.fp), -p.stopped.sessions, -p.stopped.rounds];
  };
  for (let i = 0; i < points.length; i++) {
    const p = points[i] as SweepPoint;
    const fpr = p.metrics?.fpr;
    if (fpr === null || fpr === undefined || fpr > maxFpr) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const a = key(p);
    const b = key(points[best] as SweepPoint);
    let cmp = 0;
    for (let k = 0; k < a.length && cmp === 0; k++) cmp = Math.sign((a[k] ?? 0) - (b[k] ?? 0));
    if (cmp >= 0) best = i; // equal keys: the later point
  }
  if (best < 0) return { recommended: null, note: `no value keeps the false-positive rate at or under ${maxFpr}` };
  const p = points[best] as SweepPoint;
  const m = p.metrics as SweepMetrics;
  return {
    recommended: { index: best, values: p.values, precision: m.precision, recall: m.recall, fpr: m.fpr },
    note: null,
  };
}

export async function sweep(options: SweepOptions): Promise<SweepResult> {
  const positive = options.positive ?? 'stop';
  if (!(positive in RANK) || positive === ('none' as string)) throw new ConfigError(`unknown positive level ${positive}`);
  const maxFpr = options.maxFpr ?? null;
  if (maxFpr !== null && !(maxFpr >= 0 && maxFpr <= 1)) throw new UsageError(`--max-fpr ${maxFpr}: expected a rate between 0 and 1`);
  let labels = options.labels ?? null;
  let weak: InterruptLabels | null = null;
  if (options.interrupts) {
    // Read once under the base configuration, so that every value is scored against the same labels.
    weak = interruptLabels(await options.analyze(options.baseValues), labels);
    labels = weak.labels;
  }
  const grid = gridPoints(options.params);
  const points: SweepPoint[] = [];
  let labelSummary: SweepLabelSummary | null = null;
  const warnings: string[] = [];

  // One point at a time: each replay holds a whole corpus's ledgers, and memory must stay bounded.
  for (const [i, values] of grid.entries()) {
    const config: ConfigValues = { ...options.baseValues, ...values };
    const sessions = await options.analyze(config);
    if (labels && labelSummary === null) {
      labelSummary = summarizeLabels(sessions, labels, weak?.weak ?? new Set());
      for (const key of labelSummary.unmatched) warnings.push(`label ${JSON.stringify(key)} matched no session`);
    }
    const point = evaluatePoint(values, sessions, labels, positive);
    if (weak) point.interrupts = scoreInterrupts(sessions, weak.loops, positive);
    points.push(point);
    options.onPoint?.(i + 1, grid.length);
  }

  const { recommended, note } = recommend(points, maxFpr);
  return {
    params: options.params.map((p) => ({ key: p.key, values: [...p.values] })),
    positive,
    max_fpr: maxFpr,
    labels: labelSummary,
    ...(weak ? { interrupts: { after_repeat: weak.loops.length, no_repeat: weak.noRepeat, hand_wins: weak.handWins } } : {}),
    points,
    recommended,
    note,
    warnings,
  };
}
