// The n-gram Jaccard tracker against the oracle's (main's at fbc8a1f, test/detect/oracle): its
// counts catch up lazily and its n-grams are hashed in batches, so every read, at any point of
// any chunking, must give the old value, and its fields (what a snapshot spreads) must be the
// old ones once settled. Long pieces and small alphabets make rings grow, wrap and hold one
// repeated n-gram at every position; small scales make every path run often.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MultiScaleJaccard } from '../../../src/detect/text/ngram.js';
import { ArrayPool } from '../../../src/detect/text/pool.js';
import { MultiScaleJaccard as OldJaccard } from '../oracle/text/ngram.js';

/** Text from a few characters (repetitive) or many (prose-like). */
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', ' '), maxLength: 3000 }),
  fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz  .,é'), maxLength: 6000 }),
  fc.tuple(fc.string({ minLength: 1, maxLength: 300 }), fc.integer({ min: 2, max: 40 })).map(([u, n]) => u.repeat(n)),
);

/** Pieces of the text, with a read (or a settle) after some of them. */
const plays = fc.tuple(fc.array(text, { minLength: 1, maxLength: 4 }), fc.array(fc.nat({ max: 5000 }), { maxLength: 12 }), fc.array(fc.nat({ max: 3 }), { maxLength: 30 }));

function fields(j: MultiScaleJaccard | OldJaccard): string {
  return JSON.stringify({ ...j }, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Uint16Array) : v));
}

const SCALES: readonly (readonly number[])[] = [[256, 1024, 4096], [16, 64, 256], [40, 20, 300]];

describe('MultiScaleJaccard gives the oracle exactly', () => {
  it.each(SCALES.map((s, i) => [i, s] as const))('reads and settled fields, scales %i', (_i, scales) => {
    const pool = new ArrayPool();
    fc.assert(
      fc.property(plays, ([texts, cuts, reads]) => {
        const now = new MultiScaleJaccard(scales, pool);
        const old = new OldJaccard(scales);
        const all = texts.join('\n');
        const points = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
        let from = 0;
        let r = 0;
        for (const to of [...points, all.length]) {
          const piece = all.slice(from, to);
          from = to;
          now.push(piece);
          old.push(piece);
          const what = reads[r++ % Math.max(1, reads.length)] ?? 0;
          if (what === 3) {
            now.settle();
            expect(fields(now)).toEqual(fields(old));
          } else {
            for (let k = 0; k <= what && k < scales.length; k++) expect(now.jaccard(k)).toBe(old.jaccard(k));
          }
        }
        for (let k = 0; k < scales.length; k++) expect(now.jaccard(k)).toBe(old.jaccard(k));
        now.settle();
        expect(fields(now)).toEqual(fields(old));
        now.release();
      }),
      { numRuns: 150 },
    );
  });
});
