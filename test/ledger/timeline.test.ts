// The ledger's timeline (kept only for --format html): exact turn starts, a spend curve that stays
// at most MAX_SPEND_POINTS points whatever the session's length and always ends on its last round.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SPEND_POINTS, MAX_TURN_STARTS, TimelineRecorder } from '../../src/ledger/timeline.js';

describe('TimelineRecorder', () => {
  it('turn starts are the first round of each turn', () => {
    const t = new TimelineRecorder();
    const turns = [1, 1, 1, 2, 2, 4, 4, 4, 4, 5];
    turns.forEach((turn, i) => t.round(i + 1, turn, 10, 0.5));
    expect(t.snapshot().turn_starts).toEqual([[1, 1], [2, 4], [4, 6], [5, 10]]);
  });

  it('property: spend is bounded, increasing, sampled on its rounds and exact at the end', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 0, max: 1000 }), (rounds, seed) => {
        const t = new TimelineRecorder();
        let tokens = 0;
        let usd = 0;
        for (let r = 1; r <= rounds; r++) {
          const k = ((r * 7919 + seed) % 13) + 1;
          tokens += k;
          usd += k / 1000;
          t.round(r, 1 + Math.floor(r / 50), k, k / 1000);
        }
        const { spend } = t.snapshot();
        expect(spend.length).toBeLessThanOrEqual(MAX_SPEND_POINTS + 1);
        expect(spend.at(-1)![0]).toBe(rounds);
        expect(spend.at(-1)![1]).toBe(tokens);
        expect(spend.at(-1)![2]).toBeCloseTo(usd, 6);
        for (let i = 1; i < spend.length; i++) {
          expect(spend[i]![0]).toBeGreaterThan(spend[i - 1]![0]);
          expect(spend[i]![1]).toBeGreaterThanOrEqual(spend[i - 1]![1]);
        }
        if (rounds > 2 * MAX_SPEND_POINTS) expect(spend.length).toBeGreaterThan(MAX_SPEND_POINTS / 2);
      }),
      { numRuns: 40 },
    );
  });

  it('dollars become unknown from the first round with tokens and no price; tokens keep counting', () => {
    const t = new TimelineRecorder();
    t.round(1, 1, 10, 0.1);
    t.round(2, 1, 10, null);
    t.round(3, 1, null, null);
    t.round(4, 1, 5, 0.1);
    expect(t.snapshot().spend).toEqual([[1, 10, 0.1], [2, 20, null], [3, 20, null], [4, 25, null]]);
  });

  it(`at most ${MAX_TURN_STARTS} turn starts, the rest counted`, () => {
    const t = new TimelineRecorder();
    for (let r = 1; r <= MAX_TURN_STARTS + 5; r++) t.round(r, r, null, null);
    const s = t.snapshot();
    expect(s.turn_starts).toHaveLength(MAX_TURN_STARTS);
    expect(s.turn_starts_more).toBe(5);
  });
});
