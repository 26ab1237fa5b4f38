// Issue 53, "Labels, text and small things": "the sanitizer lets tag characters (U+E0000-E007F), soft
// hyphens (U+00AD), Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) and similar invisible characters
// through, so two different ids print the same". Properties: two different strings never sanitize to
// the same text (a decoder written here reads every output back to its input), and nothing invisible
// survives: no code point of Cc, Cf, Zl, Zp, Default_Ignorable_Code_Point, no space but U+0020.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeJsonText, sanitize } from '../src/sanitize.js';
import { ensureBuilt, runCli, scratch } from './cli/helpers.js';

/** Every character that prints as nothing, as a blank like U+0020, or acts instead of printing. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800]|(?! )\p{Zs}|\p{Cs}/u;

/** The inverse of sanitize, from its documented escapes: `\\` a backslash, `\xHH`, `\uHHHH`, `\u{H…}`; any other backslash is itself. */
function unescape(out: string): string {
  let s = '';
  for (let i = 0; i < out.length; ) {
    if (out[i] !== '\\') {
      s += out[i++];
      continue;
    }
    const rest = out.slice(i + 1);
    const m = /^(?:x([0-9a-f]{2})|u([0-9a-f]{4})|u\{([0-9a-f]+)\})/.exec(rest);
    if (rest.startsWith('\\')) {
      s += '\\';
      i += 2;
    } else if (m) {
      s += String.fromCodePoint(parseInt(m[1] ?? m[2] ?? m[3]!, 16));
      i += 1 + m[0].length;
    } else {
      s += '\\';
      i += 1;
    }
  }
  return s;
}

const PIECES = [
  '\\', 'x', 'u', '{', '}', '1b', 'e0041', '202e', 'ad', 'a', ' ', '\n', '\t', '\x1b', '\u00ad', '\u00a0', '\u115f', '\u1160',
  '\u3164', '\uffa0', '\u{e0041}', '\u{e007f}', '\ufe0f', '\u034f', '\u202e', '\u200b', '\u2800', '\u3000', '\ud800', '\udc00',
  '\ud83d\ude00', '日', '\u{1d173}',
];
const texts = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.array(fc.constantFrom(...PIECES), { maxLength: 16 }).map((a) => a.join('')),
);

describe('sanitize is injective and leaves nothing invisible', () => {
  it('every output reads back to its input, on one line and multi-line', () => {
    fc.assert(
      fc.property(texts, (s) => {
        expect(unescape(sanitize(s))).toBe(s);
        expect(unescape(sanitize(s, { multiline: true }))).toBe(s);
      }),
      { numRuns: 5000 },
    );
  });

  it('two different texts never print the same', () => {
    fc.assert(
      fc.property(texts, texts, (a, b) => {
        fc.pre(a !== b);
        expect(sanitize(a)).not.toBe(sanitize(b));
      }),
      { numRuns: 3000 },
    );
    // The pairs, and a backslash that would read as an escape.
    for (const [a, b] of [['ab', 'a\u00adb'], ['id', 'id\u{e0041}'], ['x y', 'x\u3164y'], ['x', 'x\u115f\u1160'], ['k', 'k\uffa0'], ['a b', 'a\u00a0b'], ['\x1b', '\\x1b'], ['\\\x1b', '\\\\x1b'], ['\ufffd', '\ud800']]) {
      expect(sanitize(a!)).not.toBe(sanitize(b!));
    }
  });

  it('no invisible code point survives, whichever it is', () => {
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      const ch = String.fromCodePoint(cp);
      if (!INVISIBLE.test(ch)) continue;
      const out = sanitize(`a${ch}b`);
      if (INVISIBLE.test(out)) expect.fail(`U+${cp.toString(16)} came through: ${JSON.stringify(out)}`);
      // The JSON ledger and the labels file escape the same characters (C0 is JSON.stringify's own).
      if (cp >= 0x20 && !(cp >= 0xd800 && cp <= 0xdfff) && INVISIBLE.test(escapeJsonText(JSON.stringify(ch)))) expect.fail(`U+${cp.toString(16)} raw in JSON`);
    }
  });

  it('visible text is left as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        fc.pre(!INVISIBLE.test(s) && !s.includes('\\'));
        expect(sanitize(s)).toBe(s);
        expect(escapeJsonText(JSON.stringify(s))).toBe(JSON.stringify(s));
      }),
    );
  });
});

describe('through the CLI: two sessions whose ids differ by an invisible character print differently', () => {
  const tmp = scratch('loopledger-invisible-');
  beforeAll(() => ensureBuilt());
  afterAll(() => tmp.cleanup());

  it.each([
    ['a soft hyphen', '\u00ad'],
    ['a tag character', '\u{e0041}'],
    ['a Hangul filler', '\u3164'],
    ['a variation selector', '\ufe0f'],
  ])('%s', async (_what, ch) => {
    const session = (id: string) =>
      `${JSON.stringify({ type: 'session', schema: 'loopledger-canonical/1', id, parent: null, model: 'example-model-2' })}\n` +
      `${JSON.stringify({ type: 'user', text: 'hello' })}\n${JSON.stringify({ type: 'assistant', text: 'hi', usage: { input: 10, output: 2, reasoning: 0 } })}\n`;
    const plain = tmp.write(`plain-${ch.codePointAt(0)}.jsonl`, session('deploy-check'));
    const marked = tmp.write(`marked-${ch.codePointAt(0)}.jsonl`, session(`deploy${ch}-check`));
    const r = await runCli([plain, marked, '--top', '0']);
    expect(r.code, r.stderr).toBe(0);
    const ids = [...r.stdout.matchAll(/^session (\S+)/gm)].map((m) => m[1]);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(r.stdout).not.toContain(ch);
  });
});
