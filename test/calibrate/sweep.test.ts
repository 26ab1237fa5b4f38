import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseLabels } from '../../src/calibrate/labels.js';
import { parseParam, parseParams } from '../../src/calibrate/param.js';
import { evaluatePoint, parseMaxFpr, recommend, sweep, type SweepPoint } from '../../src/calibrate/sweep.js';
import type { ConfigKeySpec, ConfigValues } from '../../src/config/spec.js';
import type { EnforceLevel, SessionLedger } from '../../src/ledger/types.js';
import { UsageError } from '../../src/errors.js';
import { session, type EntrySpec } from './helpers.js';

const SPECS: readonly ConfigKeySpec[] = [
  { key: 'tool_batch.max_strikes', type: 'integer', default: 2, min: 0, reason: 'seed 000' },
  { key: 'output.similarity', type: 'ratio', default: 0.85, reason: 'seed 002' },
];

/**
 * A stand-in for the pipeline with seed 000's shape: in a run of L identical batches, the k-th
 * (k >= 2) is a strike; it is noted below the threshold, a steer at it, a stop past it, and the
 * rest of the turn after a stop would not have happened.
 */
function runs(id: string, turns: number[], m: number, path?: string): SessionLedger {
  const entries: EntrySpec[] = [];
  let round = 0;
  turns.forEach((length, t) => {
    let stopped = false;
    for (let k = 1; k <= length; k++) {
      round++;
      if (k < 2) continue;
      const enforce: EnforceLevel = k > m ? 'stop' : k === m ? 'steer' : 'noted';
      entries.push({ turn: t + 1, round, enforce, after_stop: stopped });
      if (enforce === 'stop') stopped = true;
    }
  });
  return session(id, entries, { rounds: round, ...(path ? { path } : {}) });
}

/** Run lengths per session; the fixed corpus the labeled tests are hand-checked against. */
const CORPUS: Record<string, number[]> = {
  a: [5], // loop
  b: [3], // loop
  c: [2], // loop
  d: [2], // clean (legitimate polling)
  e: [3], // clean
  f: [1], // clean
  g: [4], // unlabeled
  h: [3, 2], // loop, starting in turn 2
};

const LABELS = parseLabels({
  a: 'loop',
  b: 'loop',
  c: { label: 'loop' },
  d: 'clean',
  e: 'clean',
  f: { label: 'clean' },
  h: { label: 'loop', turn: 2 },
});

const fake = (calls?: ConfigValues[]) => async (values: ConfigValues): Promise<SessionLedger[]> => {
  calls?.push(values);
  const m = values['tool_batch.max_strikes'] as number;
  return Object.entries(CORPUS).map(([id, lengths]) => runs(id, lengths, m));
};

const BASE: ConfigValues = { 'tool_batch.max_strikes': 2, 'output.similarity': 0.85, unrelated: 'kept' };

function metricsOf(p: SweepPoint) {
  const m = p.metrics;
  if (!m) throw new Error('no metrics');
  return m;
}

describe('sweep counts', () => {
  it('stop counts are monotone over tool_batch.max_strikes=1:4:1', async () => {
    const calls: ConfigValues[] = [];
    const r = await sweep({ params: [parseParam('tool_batch.max_strikes=1:4:1', SPECS)], baseValues: BASE, analyze: fake(calls) });
    expect(calls.map((c) => c['tool_batch.max_strikes'])).toEqual([1, 2, 3, 4]);
    expect(calls.every((c) => c['unrelated'] === 'kept' && c['output.similarity'] === 0.85)).toBe(true);
    expect(r.points.map((p) => p.stopped.sessions)).toEqual([7, 5, 2, 1]);
    const stops = r.points.map((p) => p.stopped.rounds);
    for (let i = 1; i < stops.length; i++) expect(stops[i]).toBeLessThanOrEqual(stops[i - 1] as number);
    expect(r.points.every((p) => p.sessions === 8 && p.rounds === 25)).toBe(true);
    expect(r.points[1]?.positive_sessions).toEqual(['a', 'b', 'e', 'g', 'h']);
    expect(r.labels).toBeNull();
    expect(r.points[0]?.metrics).toBeNull();
    expect(r.recommended).toBeNull();
  });

  it('property: with the seed-shaped fake, stops never increase with max_strikes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 3 }), { maxLength: 6 }), async (corpus) => {
        const analyze = async (v: ConfigValues) => corpus.map((t, i) => runs(`s${i}`, t, v['tool_batch.max_strikes'] as number));
        const r = await sweep({ params: [parseParam('tool_batch.max_strikes=0:8:1', SPECS)], baseValues: BASE, analyze });
        for (let i = 1; i < r.points.length; i++) {
          expect(r.points[i]?.stopped.sessions).toBeLessThanOrEqual(r.points[i - 1]?.stopped.sessions as number);
          expect(r.points[i]?.stopped.rounds).toBeLessThanOrEqual(r.points[i - 1]?.stopped.rounds as number);
        }
      }),
      { numRuns: 50 },
    );
  });

  it('counts rounds once each: the strongest enforce level of a round, after_stop rounds excluded from steer/stop', () => {
    const s = session('x', [
      { round: 2, enforce: 'noted' },
      { round: 3, enforce: 'steer' },
      { round: 3, enforce: 'steer' },
      { round: 4, enforce: 'steer' },
      { round: 4, enforce: 'stop' },
      { round: 5, enforce: 'stop', after_stop: true },
    ]);
    const p = evaluatePoint({}, [s, session('quiet', [], { rounds: 3 })], null, 'stop');
    expect(p.fired).toEqual({ sessions: 1, rounds: 4 });
    expect(p.steered).toEqual({ sessions: 1, rounds: 1 });
    expect(p.stopped).toEqual({ sessions: 1, rounds: 1 });
    expect(p.rounds).toBe(8);
    expect(p.sessions).toBe(2);
  });
});

describe('sweep metrics on a hand-checked labeled set', () => {
  // Labeled: loops a, b, c, h (h from turn 2); clean d, e, f; g unlabeled. A session is positive
  // when it stops: when one of its runs is longer than max_strikes.
  //
  //  m | stops (labeled)        | TP FP TN FN | precision | recall | FPR
  //  1 | a b c d e h (h in t2)  |  4  2  1  0 | 4/6       | 4/4    | 2/3
  //  2 | a b e h (h only in t1) |  2  1  2  2 | 2/3       | 2/4    | 1/3
  //  3 | a                      |  1  0  3  3 | 1/1       | 1/4    | 0/3
  //  4 | a                      |  1  0  3  3 | 1/1       | 1/4    | 0/3
  const EXPECTED = [
    { tp: 4, fp: 2, tn: 1, fn: 0, precision: 4 / 6, recall: 1, fpr: 2 / 3 },
    { tp: 2, fp: 1, tn: 2, fn: 2, precision: 2 / 3, recall: 0.5, fpr: 1 / 3 },
    { tp: 1, fp: 0, tn: 3, fn: 3, precision: 1, recall: 0.25, fpr: 0 },
    { tp: 1, fp: 0, tn: 3, fn: 3, precision: 1, recall: 0.25, fpr: 0 },
  ];

  const run = (maxFpr: number | null, positive?: 'stop' | 'steer') =>
    sweep({
      params: [parseParam('tool_batch.max_strikes=1:4:1', SPECS)],
      baseValues: BASE,
      analyze: fake(),
      labels: LABELS,
      maxFpr,
      ...(positive ? { positive } : {}),
    });

  it('confusion matrix, precision, recall and FPR per value', async () => {
    const r = await run(null);
    r.points.forEach((p, i) => {
      const m = metricsOf(p);
      const e = EXPECTED[i] as (typeof EXPECTED)[number];
      expect({ tp: m.tp, fp: m.fp, tn: m.tn, fn: m.fn }).toEqual({ tp: e.tp, fp: e.fp, tn: e.tn, fn: e.fn });
      expect(m.precision).toBeCloseTo(e.precision, 12);
      expect(m.recall).toBeCloseTo(e.recall, 12);
      expect(m.fpr).toBeCloseTo(e.fpr, 12);
      expect(m.unlabeled_sessions).toBe(1);
    });
    expect(r.labels).toMatchObject({ loop: 4, clean: 3, unmatched: [] });
    expect(r.recommended).toBeNull();
    expect(r.note).toMatch(/--max-fpr/);
  });

  it('--max-fpr picks the best recall under the bound; ties go to the most conservative value', async () => {
    expect((await run(0.7)).recommended?.values).toEqual({ 'tool_batch.max_strikes': 1 });
    const third = await run(0.34);
    expect(third.recommended).toMatchObject({ index: 1, values: { 'tool_batch.max_strikes': 2 }, recall: 0.5 });
    // 3 and 4 both have recall 1/4 and FPR 0; 4 stops fewer sessions overall (g stops at 3).
    const zero = await run(0);
    expect(zero.recommended).toMatchObject({ index: 3, values: { 'tool_batch.max_strikes': 4 }, recall: 0.25, fpr: 0 });
    expect(zero.note).toBeNull();
  });

  it('equal recall, FPR and stops: the later (larger) value wins even when it steers more', () => {
    const point = (v: number, steers: number): SweepPoint => ({
      values: { 'tool_batch.max_strikes': v },
      sessions: 2,
      rounds: 10,
      fired: { sessions: 1, rounds: 3 },
      steered: { sessions: steers > 0 ? 1 : 0, rounds: steers },
      stopped: { sessions: 1, rounds: 1 },
      positive_sessions: ['a'],
      positive_paths: ['x.jsonl'],
      metrics: { tp: 1, fp: 0, tn: 1, fn: 0, precision: 1, recall: 1, fpr: 0, unlabeled_sessions: 0 },
    });
    // at 1 the loop stops at once; at 2 and 3 it is steered first, then stopped
    const { recommended } = recommend([point(1, 0), point(2, 1), point(3, 2)], 0);
    expect(recommended?.values).toEqual({ 'tool_batch.max_strikes': 3 });
  });

  it('positive = steer counts the softer intervention', async () => {
    const r = await run(null, 'steer');
    const m = metricsOf(r.points[1] as SweepPoint); // m = 2: every run of 2 or more steers at its second batch
    expect({ tp: m.tp, fp: m.fp, tn: m.tn, fn: m.fn }).toEqual({ tp: 4, fp: 2, tn: 1, fn: 0 });
    expect(r.positive).toBe('steer');
  });

  it('no recommendation without clean labels, or when no value meets the bound', async () => {
    const loopsOnly = await sweep({
      params: [parseParam('tool_batch.max_strikes=1:2:1', SPECS)],
      baseValues: BASE,
      analyze: fake(),
      labels: parseLabels({ a: 'loop' }),
      maxFpr: 0.1,
    });
    expect(loopsOnly.points[0]?.metrics?.fpr).toBeNull();
    expect(loopsOnly.points[0]?.metrics?.precision).toBe(1);
    expect(loopsOnly.recommended).toBeNull();
    expect(loopsOnly.note).toMatch(/no labeled clean/);

    const cleanOnly = await sweep({
      params: [parseParam('tool_batch.max_strikes=1:2:1', SPECS)],
      baseValues: BASE,
      analyze: fake(),
      labels: parseLabels({ e: 'clean', f: 'clean' }),
      maxFpr: 0,
    });
    expect(cleanOnly.points.map((p) => p.metrics?.fpr)).toEqual([0.5, 0.5]);
    expect(cleanOnly.points[0]?.metrics?.recall).toBeNull();
    expect(cleanOnly.points[0]?.metrics?.precision).toBe(0);
    expect(cleanOnly.recommended).toBeNull();
    expect(cleanOnly.note).toMatch(/no value keeps the false-positive rate at or under 0/);
  });
});

describe('label matching', () => {
  it('id first, then path, then file name; a file label covers its sub-agent threads; unmatched labels warn', async () => {
    const analyze = async (): Promise<SessionLedger[]> => [
      // parent clean, sub-agent loops: the file is one item, predicted positive
      session('p1', [], { path: '/x/one.jsonl' }),
      session('p1/agent-1', [{ round: 2, enforce: 'stop' }], { path: '/x/one.jsonl', parent: 'p1' }),
      // the id label wins over the file label
      session('p2', [{ round: 2, enforce: 'stop' }], { path: '/x/two.jsonl' }),
      session('p2b', [], { path: '/x/two.jsonl' }),
      // full path
      session('p3', [], { path: '/x/three.jsonl' }),
      session('unlabeled', [{ round: 2, enforce: 'stop' }], { path: '/x/other.jsonl' }),
    ];
    const labels = parseLabels({
      'one.jsonl': 'loop',
      p2: 'clean',
      'two.jsonl': 'clean',
      '/x/three.jsonl': 'clean',
      'missing.jsonl': 'loop',
    });
    const r = await sweep({ params: [parseParam('tool_batch.max_strikes=2', SPECS)], baseValues: BASE, analyze, labels, maxFpr: 1 });
    const m = metricsOf(r.points[0] as SweepPoint);
    // one.jsonl: TP; p2: FP; two.jsonl (p2b only): TN; /x/three.jsonl: TN
    expect({ tp: m.tp, fp: m.fp, tn: m.tn, fn: m.fn }).toEqual({ tp: 1, fp: 1, tn: 2, fn: 0 });
    expect(m.unlabeled_sessions).toBe(1);
    expect(r.labels).toMatchObject({ loop: 1, clean: 3, unmatched: ['missing.jsonl'] });
    expect(r.warnings).toEqual(['label "missing.jsonl" matched no session']);
  });
});

describe('grid of two', () => {
  it('replays every point with both values laid over the base configuration', async () => {
    const calls: ConfigValues[] = [];
    const analyze = async (v: ConfigValues): Promise<SessionLedger[]> => {
      calls.push(v);
      const m = v['tool_batch.max_strikes'] as number;
      const sim = v['output.similarity'] as number;
      // an output loop whose similarity is 0.88: it stops when the threshold is at or under it
      const out = session('out', sim <= 0.88 ? [{ round: 3, enforce: 'stop' }] : [{ round: 3, enforce: 'noted' }]);
      return [runs('tb', [3], m), out];
    };
    const r = await sweep({
      params: parseParams(['tool_batch.max_strikes=2:3:1', 'output.similarity=0.85:0.90:0.05'], SPECS),
      baseValues: BASE,
      analyze,
      labels: parseLabels({ tb: 'loop', out: 'clean' }),
      maxFpr: 0,
    });
    expect(r.points.map((p) => p.values)).toEqual([
      { 'tool_batch.max_strikes': 2, 'output.similarity': 0.85 },
      { 'tool_batch.max_strikes': 2, 'output.similarity': 0.9 },
      { 'tool_batch.max_strikes': 3, 'output.similarity': 0.85 },
      { 'tool_batch.max_strikes': 3, 'output.similarity': 0.9 },
    ]);
    expect(calls).toHaveLength(4);
    expect(calls.every((c) => c['unrelated'] === 'kept')).toBe(true);
    expect(r.points.map((p) => p.stopped.sessions)).toEqual([2, 1, 1, 0]);
    expect(r.points.map((p) => p.metrics?.fpr)).toEqual([1, 0, 1, 0]);
    expect(r.points.map((p) => p.metrics?.recall)).toEqual([1, 1, 0, 0]);
    expect(r.recommended?.values).toEqual({ 'tool_batch.max_strikes': 2, 'output.similarity': 0.9 });
  });
});

describe('parseMaxFpr', () => {
  it('takes a ratio or a percentage', () => {
    expect(parseMaxFpr('0.05')).toBe(0.05);
    expect(parseMaxFpr('5%')).toBeCloseTo(0.05, 12);
    expect(parseMaxFpr('0')).toBe(0);
    expect(parseMaxFpr('1')).toBe(1);
  });
  it.each(['-0.1', '1.5', 'abc', '', '200%'])('rejects %j', (t) => {
    expect(() => parseMaxFpr(t)).toThrow(UsageError);
  });
});
