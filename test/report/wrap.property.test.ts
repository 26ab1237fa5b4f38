// Issue 53 item 9: "The table (the default format) is quadratic in an unbroken word: a 320 KB
// session id takes ~10 s (json: 0.3 s), 5 MB did not finish in 15 minutes." wrap() measured the
// rest of a long word again for every line it cut; these pin its width and its linear time.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayWidth, wrap } from '../../src/report/text.js';

// Words of every kind: short, long and unbroken, wide (CJK, emoji), zero-width marks, empty (two spaces).
const char = fc.constantFrom('a', 'b', 'x', '-', '/', '界', '😀', '\u0301', 'é');
const word = fc.oneof(
  { weight: 4, arbitrary: fc.array(char, { maxLength: 12 }).map((c) => c.join('')) },
  { weight: 1, arbitrary: fc.array(char, { minLength: 60, maxLength: 600 }).map((c) => c.join('')) },
);
const text = fc.tuple(fc.stringMatching(/^ {0,3}$/), fc.array(word, { maxLength: 30 })).map(([lead, ws]) => lead + ws.join(' '));

describe('wrap', () => {
  it('no line is wider than the width, and no character is lost or moved', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 8 }), (t, width, indent) => {
        const lines = wrap(t, width, indent);
        expect(lines.length).toBeGreaterThan(0);
        for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(Math.max(8, width));
        // Only spaces are added (indentation) or dropped (at a break): the rest reads in order.
        expect(lines.join('').replaceAll(' ', '')).toBe(t.replaceAll(' ', ''));
      }),
      { numRuns: 300 },
    );
  });

  it('an unbroken word of 5 MB wraps in linear time (it took over 15 minutes)', () => {
    const time = (n: number) => {
      const t0 = performance.now();
      const lines = wrap(`session ${'x'.repeat(n)} ends`, 80, 2);
      const ms = performance.now() - t0;
      expect(lines.every((l) => displayWidth(l) <= 80)).toBe(true);
      return { ms, lines: lines.length };
    };
    const small = time(500_000);
    const big = time(5_000_000);
    expect(big.lines).toBeGreaterThan(5_000_000 / 80);
    // Ten times the input: ten times the time if linear, a hundred if quadratic. The bound leaves
    // room for a busy machine; the quadratic version needed minutes for the small one alone.
    expect(big.ms).toBeLessThan(Math.max(30 * small.ms, 3000));
    expect(big.ms).toBeLessThan(20_000);
  });
});
