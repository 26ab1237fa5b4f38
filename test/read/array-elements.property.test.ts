// Issue 53 ("every input bounded in time and memory whatever its size"): a file that is one JSON
// array is split into its elements as its text streams in, so only one element is held. Whatever
// the values, the layout and where the chunks break, the elements are the array's, each with the
// line it starts on, and a text cut short ends with the element it cut.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrayElements } from '../../src/read/array-elements.js';
import { splitAt } from '../detect/output/corpus.js';

/** The text cut into pieces at the given fractions of its length. */
const chunked = (text: string, fractions: number[]) => splitAt(text, fractions.map((f) => Math.floor(f * text.length)));

const layout = fc.constantFrom<number | string | undefined>(undefined, 0, 1, 2, '\t');
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 });

describe('ArrayElements', () => {
  it('gives back every element of an array, with the line it starts on, however the text is laid out and cut', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 12 }), layout, cuts, fc.constantFrom('', '\n', '  \n'), (values, indent, at, around) => {
        const text = `${around}${JSON.stringify(values, null, indent)}${around}`;
        const splitter = new ArrayElements(Infinity, 'too long');
        const got = chunked(text, at).flatMap((piece) => splitter.push(piece));
        expect(splitter.end()).toEqual({ last: null, ended: 'closed' });
        expect(got.map((e) => ('text' in e ? JSON.parse(e.text) : e))).toEqual(JSON.parse(JSON.stringify(values)));
        // Each element starts on the line where its first character is.
        let searchFrom = text.indexOf('[') + 1;
        for (const e of got) {
          const start = text.slice(searchFrom).search(/[^\s,]/) + searchFrom;
          expect(e.line).toBe(text.slice(0, start).split('\n').length);
          searchFrom = start + ('text' in e ? e.text.length : 0);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a text cut inside the array: the elements before the cut, then the cut one named as truncated', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 8 }), layout, fc.double({ min: 0, max: 1, noNaN: true }), cuts, (values, indent, cutAt, at) => {
        const whole = JSON.stringify(values, null, indent);
        const text = whole.slice(0, 1 + Math.floor(cutAt * (whole.length - 2)));
        const splitter = new ArrayElements(Infinity, 'too long');
        const got = chunked(text, at).flatMap((piece) => splitter.push(piece));
        const { last, ended } = splitter.end();
        expect(ended).toBe('unfinished');
        // Every element given is whole and is the array's, in order.
        got.forEach((e, i) => expect('text' in e && JSON.parse(e.text)).toEqual(JSON.parse(JSON.stringify(values[i]))));
        if (last !== null) expect('skip' in last && last.skip).toMatch(/^truncated/);
        expect(got.length + (last === null ? 0 : 1)).toBeLessThanOrEqual(values.length);
      }),
      { numRuns: 400 },
    );
  });

  it('an element past the bound is skipped with the reason, the others read; held text never passes the bound', () => {
    const big = { text: 'x'.repeat(5_000) };
    const text = JSON.stringify([{ a: 1 }, big, [1, 2], big, 'end']);
    const splitter = new ArrayElements(1_000, 'array element too long');
    const got = chunked(text, [0.1, 0.3, 0.5, 0.7, 0.9]).flatMap((piece) => splitter.push(piece));
    expect(got.map((e) => ('text' in e ? JSON.parse(e.text) : e.skip))).toEqual([{ a: 1 }, 'array element too long', [1, 2], 'array element too long', 'end']);
  });

  it('text after the array\'s end, or a text that is no array, is said to be so', () => {
    const after = new ArrayElements(Infinity, '');
    expect(after.push('[1,\n2]\n{"more": true}').map((e) => 'text' in e && e.text)).toEqual(['1', '2']);
    expect(after.end().ended).toBe('trailing');
    expect(after.trailingLine).toBe(3);
    const object = new ArrayElements(Infinity, '');
    expect(object.push('{"a": [1, 2]}')).toEqual([]);
    expect(object.end().ended).toBe('not-array');
  });
});
