// normaliseError passes over the rules a text cannot match (no digit, no `/`, no `-`): the result
// must be what every rule applied in order gives, whatever the text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_HEAD_CHARS, NORMALISERS, normaliseError } from '../../../src/detect/tool-batch/no-progress.js';

function everyRule(text: string): string {
  let t = text.length > ERROR_HEAD_CHARS ? text.slice(0, ERROR_HEAD_CHARS) : text;
  for (const { re, by } of NORMALISERS) t = t.replace(re, by);
  return t.replace(/\s+/g, ' ').trim();
}

// Pieces the rules look for, so that matches (and near misses) are common.
const piece = fc.oneof(
  fc.constantFrom('/', '-', ':', '.', ' ', '\n', 'T', 'Z', '+', '~', '@', 'x', '0x', 'line ', 'col', 'ms', 's', 'µs', 'deadbeef', 'abcdef0', '2026-12-07', '12:34:56', 'a/b', 'C:', '../'),
  fc.integer({ min: 0, max: 99999 }).map(String),
  fc.stringMatching(/^[0-9a-fA-F-]{1,12}$/),
  fc.string({ maxLength: 4 }),
);

describe('normaliseError', () => {
  it('gives what every rule applied in order gives', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }).map((p) => p.join('')), (text) => {
        expect(normaliseError(text)).toBe(everyRule(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('still normalises a text with no digit', () => {
    expect(normaliseError('cannot open ./src/a.ts: deadbeefcafe missing')).toBe('cannot open <path>: <hex> missing');
    expect(normaliseError('id 1b4e28ba-2fa1-11d2-883f-0016d3cca427 at line 12')).toBe('id <id> at line <n>');
  });
});
