// `loopledger merge` of `sweep --format json` partials: the sweep one run over every shard's files
// would have printed. Counts add up; the sessions predicted positive go back in file order (each
// partial says the file of each); precision, recall and FPR are recomputed from the labeled items'
// turns added across partials (a label naming a file name may match files in several shards), and
// the recommendation from the merged points.

import type { Label, Labels } from '../calibrate/labels.js';
import { canonicalLabelTurns, labelMetrics, recommend, type SweepCount, type SweepPoint, type SweepResult } from '../calibrate/sweep.js';
import { isRecord } from '../is-record.js';
import { addPrevented, type PreventedTotal } from '../ledger/summary.js';
import { compareCodePoints } from '../read/discover.js';
import { checkShards, checkedConfigHash, describeConfigDifference, MergeError } from './shard-checks.js';

export const SWEEP_SCHEMA = 'loopledger/sweep/1';

export interface NamedSweep {
  name: string;
  result: SweepResult;
}

export function asSweep(value: unknown, name: string): SweepResult {
  if (!isRecord(value) || value['schema'] !== SWEEP_SCHEMA) throw new MergeError(`${name}: not a loopledger sweep (schema ${SWEEP_SCHEMA})`);
  if (!Array.isArray(value['points']) || !Array.isArray(value['params'])) throw new MergeError(`${name}: "points" or "params" is missing: not a complete sweep`);
  if (!isRecord(value['config'])) {
    throw new MergeError(`${name}: a sweep without its "config" cannot be merged (written by an older loopledger: run the sweep again)`);
  }
  for (const [i, p] of (value['points'] as unknown[]).entries()) {
    if (!isRecord(p) || !Array.isArray(p['positive_sessions']) || !Array.isArray(p['positive_paths'])) {
      throw new MergeError(`${name}: points[${i}] lacks positive_sessions/positive_paths (written by an older loopledger: run the sweep again)`);
    }
  }
  const { schema: _schema, ...result } = value;
  return result as unknown as SweepResult;
}

/** A partial written before saved and cut were swept prevents nothing it can tell of. */
const NOTHING: PreventedTotal = { rounds: 0, tokens: 0, usd: 0, unpriced_sessions: 0, sessions: 0 };

function addCount(a: SweepCount, b: SweepCount): SweepCount {
  return { sessions: a.sessions + b.sessions, rounds: a.rounds + b.rounds };
}

export function mergeSweeps(partials: readonly NamedSweep[]): SweepResult {
  if (partials.length === 0) throw new MergeError('merge: name at least one sweep');
  const first = partials[0]!;
  const hashes = partials.map((p) => checkedConfigHash(p.result.config ?? {}, p.result.config_hash, p.name));
  for (const [i, p] of partials.entries()) {
    if (hashes[i] !== hashes[0]) {
      throw new MergeError(
        `${first.name} and ${p.name} were made under different configurations (config_hash ${hashes[0]} vs ${hashes[i]}): ${describeConfigDifference(first.result.config ?? {}, p.result.config ?? {})}`,
      );
    }
  }
  for (const [what, get] of [
    ['swept parameters', (r: SweepResult) => r.params],
    ['--positive', (r: SweepResult) => r.positive],
    ['--max-fpr', (r: SweepResult) => r.max_fpr],
    ['labels (one sweep has --labels, the other not)', (r: SweepResult) => r.labels === null],
    // Weak labels (interrupts) are each shard's own sessions; the hand labels must be one file.
    ['labels (the label files differ)', (r: SweepResult) => (r.labels ? [...(r.labels.matched ?? []).filter((m) => !m.weak).map((m) => m.key), ...r.labels.unmatched].sort() : null)],
    ['--labels interrupts (one sweep has it, the other not)', (r: SweepResult) => r.interrupts === undefined],
    ['points', (r: SweepResult) => r.points.map((p) => p.values)],
  ] as const) {
    const want = JSON.stringify(get(first.result));
    for (const p of partials.slice(1)) {
      const got = JSON.stringify(get(p.result));
      if (got !== want) throw new MergeError(`${first.name} and ${p.name} differ in ${what}: ${want} vs ${got}`);
    }
  }
  checkShards(partials.map((p) => ({ name: p.name, shard: p.result.shard })));

  const labeled = first.result.labels !== null;
  // Every label's verdict, from the partials that matched it (the label file is the same in each).
  const labels = new Map<string, Label>();
  const weak = new Set<string>();
  for (const p of partials) {
    for (const m of p.result.labels?.matched ?? []) {
      labels.set(m.key, { label: m.label, turn: m.turn });
      if (m.weak) weak.add(m.key);
    }
    if (labeled && p.result.labels && p.result.labels.matched === undefined) {
      throw new MergeError(`${p.name}: its labels lack "matched" (written by an older loopledger: run the sweep again)`);
    }
  }

  const points: SweepPoint[] = first.result.points.map((_, i) => {
    const parts = partials.map((p) => p.result.points[i]!);
    const positive = parts
      .flatMap((p) => p.positive_sessions.map((id, k) => ({ id, path: p.positive_paths[k] ?? '' })))
      .sort((a, b) => compareCodePoints(a.path, b.path));
    const point: SweepPoint = {
      values: parts[0]!.values,
      sessions: parts.reduce((n, p) => n + p.sessions, 0),
      rounds: parts.reduce((n, p) => n + p.rounds, 0),
      fired: parts.map((p) => p.fired).reduce(addCount),
      steered: parts.map((p) => p.steered).reduce(addCount),
      stopped: parts.map((p) => p.stopped).reduce(addCount),
      saved: parts.map((p) => p.saved ?? NOTHING).reduce(addPrevented),
      cut: parts.map((p) => p.cut ?? NOTHING).reduce(addPrevented),
      positive_sessions: positive.map((s) => s.id),
      positive_paths: positive.map((s) => s.path),
      metrics: null,
    };
    if (labeled) {
      const items = new Map<string, number[]>();
      for (const p of parts) for (const [key, turns] of Object.entries(p.label_turns ?? {})) items.set(key, [...(items.get(key) ?? []), ...turns]);
      const turns = canonicalLabelTurns(items);
      const unlabeled = parts.reduce((n, p) => n + (p.metrics?.unlabeled_sessions ?? 0), 0);
      point.metrics = labelMetrics(turns, labels as Labels, unlabeled);
      point.label_turns = turns;
    }
    if (first.result.interrupts) {
      const scores = parts.map((p) => p.interrupts ?? { loops: 0, stopped_first: 0, rounds_earlier: 0 });
      point.interrupts = {
        loops: scores.reduce((n, x) => n + x.loops, 0),
        stopped_first: scores.reduce((n, x) => n + x.stopped_first, 0),
        rounds_earlier: scores.reduce((n, x) => n + x.rounds_earlier, 0),
      };
    }
    return point;
  });

  let labelSummary: SweepResult['labels'] = null;
  const warnings: string[] = [];
  if (labeled) {
    const matchedKeys = [...labels.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const unmatched = first.result.labels!.unmatched.filter((k) => !labels.has(k)).sort();
    labelSummary = {
      loop: matchedKeys.filter((k) => labels.get(k)!.label === 'loop').length,
      clean: matchedKeys.filter((k) => labels.get(k)!.label === 'clean').length,
      unmatched,
      matched: matchedKeys.map((key) => ({ key, label: labels.get(key)!.label, turn: labels.get(key)!.turn, ...(weak.has(key) ? { weak: true as const } : {}) })),
    };
    for (const key of unmatched) warnings.push(`label ${JSON.stringify(key)} matched no session`);
  }
  const { recommended, note } = recommend(points, first.result.max_fpr);
  return {
    config_hash: hashes[0]!,
    params: first.result.params,
    positive: first.result.positive,
    max_fpr: first.result.max_fpr,
    labels: labelSummary,
    ...(first.result.interrupts
      ? {
          interrupts: {
            after_repeat: partials.reduce((n, p) => n + (p.result.interrupts?.after_repeat ?? 0), 0),
            no_repeat: partials.reduce((n, p) => n + (p.result.interrupts?.no_repeat ?? 0), 0),
            hand_wins: partials.reduce((n, p) => n + (p.result.interrupts?.hand_wins ?? 0), 0),
          },
        }
      : {}),
    points,
    recommended,
    note,
    warnings,
    config: first.result.config!,
  };
}
