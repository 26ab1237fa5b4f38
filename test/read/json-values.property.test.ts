// read/json-values.ts counts what JSON.parse would build without parsing: every array and object
// opened, every element after the first. Checked against the parsed tree of arbitrary JSON, compact
// and pretty-printed (counted a line at a time, as read/concatenated.ts does).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countJsonValues, hasTooManyValues } from '../../src/read/json-values.js';

/** Arrays and objects, plus each's elements (or members) after its first: the count the scan makes. */
function expected(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + Math.max(0, children.length - 1) + children.reduce<number>((n, c) => n + expected(c), 0);
}

describe('countJsonValues', () => {
  it('counts containers and separators of any JSON text, strings with quotes, commas and brackets skipped', () => {
    const strings = fc.string({ unit: fc.constantFrom('a', ',', '[', '{', '"', '\\', '}', ']', 'é', '\n') });
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, strings, fc.integer(), fc.constant(null), fc.array(tie('node')), fc.dictionary(strings, tie('node'))),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const want = expected(v);
        expect(countJsonValues(JSON.stringify(v), Infinity)).toBe(want);
        const pretty = JSON.stringify(v, null, 2).split('\n');
        expect(pretty.reduce((n, line) => n + countJsonValues(line, Infinity), 0)).toBe(want);
      }),
    );
  });

  it('stops just past its limit, and a text no longer than the limit is never too large', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 400 }), (limit, width) => {
        const text = `[${'[0],'.repeat(width)}0]`;
        const count = 1 + 2 * width;
        expect(countJsonValues(text, limit)).toBe(Math.min(count, limit + 1));
        expect(hasTooManyValues(text, limit)).toBe(count > limit);
      }),
    );
  });
});
