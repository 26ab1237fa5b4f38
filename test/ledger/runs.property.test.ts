// Issue 59 item 2: "the machine formats keep every round's verdict as counts and ranges". Whatever
// rounds come in, the folded ledger expands back to every round's entry: the same verdicts, kinds,
// strikes and evidence on the same rounds, the usage of every round added up, and nothing folded
// across a change of level, kind or turn. Issue 53: a loop broken every few rounds (A A A B, a
// failing call with a read between) repeats a pattern of rounds, and folds as such.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandRun, FOLD_AFTER, findingsOf, MAX_PERIOD, RunFolder, usageOf } from '../../src/ledger/runs.js';
import type { LedgerEntry } from '../../src/ledger/types.js';

type Level = 'none' | 'noted' | 'steer' | 'stop';

/** One round: its turn, and its findings as (kind, level, after_stop, strike step, evidence value). */
const finding = fc.record({
  kind: fc.constantFrom('repeated_batch', 'no_progress'),
  level: fc.constantFrom<Level>('none', 'noted', 'steer', 'stop'),
  afterStop: fc.boolean(),
  step: fc.constantFrom(0, 1, 2),
  stat: fc.constantFrom(3, 4),
});
const round = fc.record({ newTurn: fc.boolean(), findings: fc.array(finding, { maxLength: 2 }) });
// Long stretches of one round repeated: what folds.
const rounds = fc.array(fc.tuple(round, fc.integer({ min: 1, max: 30 })), { maxLength: 12 });

type Round = { newTurn: boolean; findings: { kind: string; level: Level; afterStop: boolean; step: number; stat: number }[] };

function build(input: [Round, number][], foldAfter: number) {
  return buildPatterns(input.map(([r, times]) => [[r], times]), foldAfter);
}

/** Each pattern of rounds repeated `times` times; numbers move by their step once a repetition. */
function buildPatterns(input: [Round[], number][], foldAfter: number) {
  const folder = new RunFolder(foldAfter);
  const entries: LedgerEntry[] = [];
  const every: LedgerEntry[] = [];
  let turn = 1;
  let index = 0;
  for (const [pattern, times] of input) {
    if (pattern[0]!.newTurn) turn += 1;
    for (let k = 0; k < times; k++) for (const r of pattern) {
      index += 1;
      const added = r.findings.map(
        (f, i): LedgerEntry => ({
          turn,
          round: index,
          line: index * 2 + 1,
          detector: 'tool_batch',
          kind: f.kind,
          confidence: null,
          strike: { count: 2 + k * f.step, threshold: 2, total: 2 + k * f.step, ceiling: 15, read_only: false },
          evidence: { position: i, stat: f.stat, seen: k },
          intervention: { off: 'none', telemetry: f.level === 'none' ? 'none' : 'noted', enforce: f.level },
          after_stop: f.afterStop,
          round_usage: { tokens: 100 + index, usd: (100 + index) / 1e6 },
        }),
      );
      every.push(...added.map((e) => structuredClone(e)));
      folder.add(entries, added, index, turn);
    }
  }
  return { entries, every };
}

const withoutPerRound = ({ line: _l, round_usage: _u, ...rest }: LedgerEntry) => rest;

/** The folded entries expand back to every round's entry, and hold the usage of every round. */
function expectExpandsTo(entries: LedgerEntry[], every: LedgerEntry[]): void {
  const expanded = entries.flatMap((e) => [...expandRun(e)]);
  const byRound = (list: LedgerEntry[]) => [...list].sort((a, b) => a.round - b.round || (a.evidence['position'] as number) - (b.evidence['position'] as number));
  expect(byRound(expanded).map(withoutPerRound)).toEqual(byRound(every).map(withoutPerRound));
  expect(findingsOf(entries)).toBe(every.length);
  const tokens = (list: LedgerEntry[]) => list.reduce((n, e) => n + (usageOf(e)?.tokens ?? 0), 0);
  expect(tokens(entries)).toBe(tokens(every));
}

describe('RunFolder', () => {
  it('expanding the folded entries gives back every round\'s entry, and the usage of each round', () => {
    fc.assert(
      fc.property(rounds, fc.integer({ min: 1, max: 10 }), (input, foldAfter) => {
        const { entries, every } = build(input, foldAfter);
        expectExpandsTo(entries, every);
        for (const e of entries) {
          if (e.run === undefined) continue;
          // Only past the threshold; one finding on every round of its range.
          expect(e.run.count).toBeGreaterThan(foldAfter);
          expect(e.run.count).toBe(e.run.last_round - e.run.first_round + 1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a pattern of up to MAX_PERIOD rounds repeated folds to one entry per finding of the pattern, and expands back exactly', () => {
    const pattern = fc.array(fc.record({ newTurn: fc.constant(false), findings: fc.array(finding, { maxLength: 2 }) }), { minLength: 1, maxLength: MAX_PERIOD });
    const patterns = fc.array(fc.tuple(pattern, fc.integer({ min: 1, max: 40 })), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(patterns, fc.integer({ min: 1, max: 10 }), (input, foldAfter) => {
        const { entries, every } = buildPatterns(input, foldAfter);
        expectExpandsTo(entries, every);
        for (const e of entries) {
          if (e.run === undefined) continue;
          const period = e.run.period ?? 1;
          expect(period).toBeLessThanOrEqual(MAX_PERIOD);
          expect(e.run.count).toBeGreaterThanOrEqual(foldAfter);
          expect(e.run.count).toBe((e.run.last_round - e.run.first_round) / period + 1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a long alternation holds as many entries as its pattern has findings, however many times it repeats', () => {
    const tried = (times: number) =>
      buildPatterns(
        [
          [
            [
              { newTurn: false, findings: [{ kind: 'repeated_batch', level: 'none', afterStop: true, step: 1, stat: 3 }] },
              { newTurn: false, findings: [{ kind: 'repeated_batch', level: 'none', afterStop: true, step: 1, stat: 3 }, { kind: 'no_progress', level: 'none', afterStop: true, step: 2, stat: 4 }] },
              { newTurn: false, findings: [] },
            ],
            times,
          ],
        ],
        FOLD_AFTER,
      ).entries.length;
    expect(tried(1_000)).toBe(3);
    expect(tried(20_000)).toBe(3);
  });

  // Issue 53: "--all repeats a folded text run's first evidence for its middle rounds". A text
  // finding's similarity changes every round and only the run's two ends are kept: a middle round
  // shows what it is known to share with the others (its words), never a number it did not have.
  it('a text run expanded shows each round\'s own similarity or none, never another round\'s', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 50, max: 100 }), { minLength: 1, maxLength: 40 }), (percents) => {
        const folder = new RunFolder(FOLD_AFTER);
        const entries: LedgerEntry[] = [];
        const every = percents.map((p, i): LedgerEntry => ({
          turn: 1,
          round: i + 1,
          line: i + 1,
          detector: 'thinking',
          kind: 'thinking_loop',
          confidence: p / 100,
          strike: null,
          evidence: { similarity: p / 100, window: 4, shape: 'circle' },
          intervention: { off: 'none', telemetry: 'noted', enforce: 'steer' },
          after_stop: false,
        }));
        every.forEach((e, i) => folder.add(entries, [structuredClone(e)], i + 1, 1));
        const expanded = entries.flatMap((e) => [...expandRun(e)]);
        expect(expanded.map((e) => e.round)).toEqual(every.map((e) => e.round));
        for (const e of expanded) {
          const own = every[e.round - 1]!;
          expect(e.evidence['shape']).toBe('circle');
          for (const k of ['similarity', 'window']) if (k in e.evidence) expect(e.evidence[k]).toBe(own.evidence[k]);
        }
        // Nothing is lost where nothing moved: a run of one similarity shows it on every round.
        if (new Set(percents).size === 1) for (const e of expanded) expect(e.evidence['similarity']).toBe(percents[0]! / 100);
      }),
      { numRuns: 300 },
    );
  });
});
