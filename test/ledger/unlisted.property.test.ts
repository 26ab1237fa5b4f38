// Issue 53: "the ledger's memory is bounded in the number of rounds ... with the machine formats
// keeping exact counts". Runs fold regular loops; a finding that fires on irregular rounds does not
// fold, so a session lists at most MAX_ENTRIES entries and counts the findings after (`unlisted`):
// whatever the rounds, the list never passes the bound, the entries are exactly those of the rounds
// before the first unlisted one, and the counts (findings, rounds, steers, stops, kinds, usage) of
// the rest are exact.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandRun, findingsOf, MAX_ENTRIES, RunFolder } from '../../src/ledger/runs.js';
import type { LedgerEntry } from '../../src/ledger/types.js';

type Level = 'none' | 'noted' | 'steer' | 'stop';
const LEVELS: Level[] = ['none', 'noted', 'steer', 'stop'];

/** Rounds of one turn: each its findings as (kind index, level index), some rounds repeated. */
const roundsArb = fc.array(
  fc.tuple(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 })), { maxLength: 3 }), fc.integer({ min: 1, max: 12 }), fc.boolean()),
  { maxLength: 40 },
);

function build(input: [[number, number][], number, boolean][], foldAfter: number, max: number) {
  const folder = new RunFolder(foldAfter, max);
  const entries: LedgerEntry[] = [];
  const every: LedgerEntry[] = [];
  let index = 0;
  let turn = 1;
  for (const [findings, times, newTurn] of input) {
    if (newTurn) turn += 1;
    for (let k = 0; k < times; k++) {
      index += 1;
      const added = findings.map(
        ([kind, level], i): LedgerEntry => ({
          turn,
          round: index,
          line: index,
          detector: kind === 2 ? 'thinking' : 'tool_batch',
          kind: ['repeated_batch', 'no_progress', 'thinking_stagnation'][kind]!,
          confidence: kind === 2 ? 0.5 + (index % 7) / 20 : null,
          strike: null,
          evidence: { position: i },
          intervention: { off: 'none', telemetry: level === 0 ? 'none' : 'noted', enforce: LEVELS[level]! },
          after_stop: false,
          round_usage: { tokens: 10 + index, usd: (10 + index) / 1e6 },
        }),
      );
      every.push(...added.map((e) => structuredClone(e)));
      folder.add(entries, added, index, turn);
      expect(entries.length).toBeLessThanOrEqual(max);
    }
  }
  return { entries, every, unlisted: folder.unlisted() };
}

// A text run's middle rounds keep only the detail every round shared (ledger/runs.ts): compared without it.
const without = ({ line: _l, round_usage: _u, confidence: _c, evidence: _e, ...rest }: LedgerEntry) => JSON.stringify(rest);
const byRound = (l: LedgerEntry[]) => l.map(without).sort();

describe('a session lists at most MAX_ENTRIES entries', () => {
  it('whatever the rounds: the list stays within the bound, and listed and unlisted findings add up exactly', () => {
    fc.assert(
      fc.property(roundsArb, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 30 }), (input, foldAfter, max) => {
        const { entries, every, unlisted } = build(input, foldAfter, max);
        expect(findingsOf(entries) + (unlisted?.findings ?? 0)).toBe(every.length);
        const first = unlisted?.first_round ?? Infinity;
        const listed = every.filter((e) => e.round < first);
        const rest = every.filter((e) => e.round >= first);
        // The list is what it would have been for the rounds before the first unlisted one.
        expect(byRound(entries.flatMap((e) => [...expandRun(e)]))).toEqual(byRound(listed));
        if (unlisted === undefined) return;
        const roundsOfRest = [...new Set(rest.map((e) => e.round))];
        expect(unlisted.rounds).toBe(roundsOfRest.length);
        expect(unlisted.last_round).toBe(Math.max(...roundsOfRest));
        expect(unlisted.steers).toBe(rest.filter((e) => e.intervention.enforce === 'steer').length);
        expect(unlisted.stops).toBe(rest.filter((e) => e.intervention.enforce === 'stop').length);
        const kinds: Record<string, number> = {};
        for (const e of rest) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
        expect(unlisted.kinds).toEqual(kinds);
        expect(unlisted.usage?.tokens).toBe(roundsOfRest.reduce((n, r) => n + 10 + r, 0));
        expect(unlisted.reason).toContain(`at most ${max.toLocaleString('en-US')} entries`);
      }),
      { numRuns: 300 },
    );
  });

  it('the bound is far above what real sessions list (at most 20 entries in 1,834 sessions of the wild corpus)', () => {
    expect(MAX_ENTRIES).toBeGreaterThanOrEqual(100 * 20);
  });
});
