// Issue 27.17: a merge sorts what the formats rank on disk (merge/spill.ts, Spill.sorter),
// in runs interleaved a few at a time. Its order must be exactly what sorting in memory gives (the
// formats' output is byte for byte one run's), whatever the runs' size and however many levels of
// interleaving it takes; and a session's thin version read back from a sort still finds its whole one.

import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Spill } from '../../src/merge/spill.js';
import type { SessionLedger } from '../../src/ledger/types.js';
import { sessionLabels, sessionNames } from '../../src/report/overview.js';

const spills: Spill[] = [];
afterEach(() => {
  for (const s of spills.splice(0)) s.close();
});

/** A spill whose sorts write runs of a few hundred characters, merged three at a time: many runs, several levels. */
function tinySpill(overview = false): Spill {
  const spill = new Spill(overview, { sorting: { runChars: 200, fanIn: 3 } });
  spills.push(spill);
  return spill;
}

describe('Spill.sorter', () => {
  it('property: the order Array.prototype.sort gives (stable), iterated as often as asked', () => {
    const item = fc.record({ k: fc.integer({ min: 0, max: 5 }), v: fc.string({ maxLength: 12, unit: 'grapheme' }) });
    const spill = tinySpill();
    fc.assert(
      fc.property(fc.array(item, { maxLength: 300 }), (items) => {
        const tagged = items.map((x, i) => ({ ...x, i }));
        const compare = (a: { k: number }, b: { k: number }) => a.k - b.k;
        const want = [...tagged].sort(compare);
        const sorted = spill.sorter(tagged, compare);
        expect(Array.from(sorted)).toEqual(want);
        expect(Array.from(sorted)).toEqual(want);
      }),
      { numRuns: 200 },
    );
  });

  it('property: session names worked out on disk are the names worked out in memory', () => {
    const segment = fc.stringMatching(/^[a-z0-9_.-]{1,8}$/);
    const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
    // Few distinct ids, so short ids collide, one id sits in several files, and names need numbers.
    const id = fc.oneof(
      fc.constantFrom('7c2d41e9-5b08-4f3a-8e61-0d93a7b2c4f5', '7c2d41e9-0000-4f3a-8e61-0d93a7b2c4f5', 'x#1', 'x', 'ohc_claude35_django__django-11099'),
      fc.stringMatching(/^[ab_-]{0,30}$/),
      fc.uuid(),
    );
    const list = fc.uniqueArray(fc.record({ id, path }), { maxLength: 60, selector: (s) => `${s.path}\u0000${s.id}` });
    const spill = tinySpill();
    fc.assert(
      fc.property(list, fc.oneof(fc.integer({ min: 2, max: 40 }), fc.constant(Infinity)), (sessions, max) => {
        expect(Array.from(sessionNames(sessions, max, spill.sorter))).toEqual(sessionLabels(sessions, max));
      }),
      { numRuns: 300 },
    );
  });

  it('a thin version read back in order, or from a sort, finds its whole session', () => {
    const spill = tinySpill(true);
    const sessions = Array.from({ length: 40 }, (_, i) => session(`s-${i}`, i % 3));
    const numbers = sessions.map((s) => spill.add(s));
    const thin = spill.thinInOrder(Uint32Array.from(numbers).reverse());
    expect(Array.from(thin, (s) => s.id)).toEqual(sessions.map((s) => s.id).reverse());
    const sorted = spill.sorter(thin, (a, b) => b.entries.length - a.entries.length);
    const whole = Array.from(sorted, (s) => spill.whole(s));
    expect(whole.map((s) => s.entries.length)).toEqual([...sessions].reverse().sort((a, b) => b.entries.length - a.entries.length).map((s) => s.entries.length));
    // The thin version has no excerpts; the whole one, read back, has them.
    expect(whole.every((s, i) => s.entries.every((e) => e.excerpts?.[0] === `looped ${whole[i]!.id}`))).toBe(true);
  });
});

function session(id: string, findings: number): SessionLedger {
  const entry = {
    turn: 1,
    round: 1,
    line: null,
    detector: 'output',
    kind: 'exact_block',
    confidence: 0.9,
    strike: null,
    evidence: { tools: '' },
    excerpts: [`looped ${id}`],
    intervention: { off: 'none', telemetry: 'noted', enforce: 'noted' },
    after_stop: false,
  };
  return {
    id,
    path: `${id}.jsonl`,
    format: 'canonical',
    parent: null,
    model: null,
    turns: 1,
    rounds: 1,
    tool_calls: 0,
    entries: Array.from({ length: findings }, () => ({ ...entry })),
    outcome: { enforce: { steers: 0, stops: [] } },
  } as unknown as SessionLedger;
}
