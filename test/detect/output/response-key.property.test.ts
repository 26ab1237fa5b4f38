// Issue 53, item 11: repeated_response's key is the response's word cores, written as SPEC 0.2's
// rule says ("letters and digits, ASCII lowercased"): here character by character, as the rule
// reads, against the detector's own writer, which takes a word in two passes so that a long one is
// never a string grown a character at a time (a 50 MB response cost gigabytes that way).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { responseKey } from '../../../src/detect/output/response.js';

/** The rule, one code unit at a time: digits, a-z, anything from U+00C0 up kept; A-Z lowercased. */
function ruleKey(text: string): string {
  const words: string[] = [];
  for (const token of text.split(/\s+/)) {
    const kept: string[] = [];
    for (const ch of token.split('')) {
      const c = ch.charCodeAt(0);
      if ((c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c >= 0xc0) kept.push(ch);
      else if (c >= 65 && c <= 90) kept.push(String.fromCharCode(c + 32));
    }
    if (kept.length > 0) words.push(kept.join(''));
  }
  return words.join(' ');
}

describe('repeated_response keys (issue 53, item 11)', () => {
  it('any text, any script, spacing and punctuation: the key the rule gives', () => {
    const unit = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('Ab', 'ÉTÉ', ' ', '\n', '\t\u00a0', '—', 'x1.', 'İ', 'ß'));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 20 }), (parts) => {
        const text = parts.join('');
        expect(responseKey(text)).toBe(ruleKey(text));
      }),
      { numRuns: 500 },
    );
  });

  it('a megabyte-long word: the same key, in bounded time', () => {
    const word = 'Ab3-Zé.'.repeat(150_000);
    const started = performance.now();
    const key = responseKey(`${word} END`);
    const ms = performance.now() - started;
    expect(key).toBe(`${'ab3zé'.repeat(150_000)} end`);
    expect(ms).toBeLessThan(5_000);
  });
});
