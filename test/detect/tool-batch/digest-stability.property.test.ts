// Digests are SHA-256 (issue 30 measured a fast non-cryptographic hash written in JavaScript
// slower than one native SHA-256 call): their values must stay what they were, since ids shown as
// evidence (no_progress `last`, recurring_failure `error`, long batch signatures) and the hook's
// state files are made of them. The oracle is the streaming Hash the code used before.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerDigest, answersDigest, batchSignature, callDigest } from '../../../src/detect/tool-batch/index.js';

const streamed = (...parts: string[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p, 'utf8');
  return h.digest('hex');
};

// Full Unicode, lone surrogates included: they are where encoding pieces apart and whole could differ.
// Past 4,096 characters an answer is hashed in two pieces (its flag, then itself): long ones too.
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 600 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ maxLength: 2000 }),
  fc.string({ unit: 'binary', minLength: 4000, maxLength: 6000 }),
);

describe('digests keep their values', () => {
  it('answerDigest is SHA-256 of the error flag then the text', () => {
    fc.assert(
      fc.property(text, fc.boolean(), (content, isError) => {
        expect(answerDigest({ content, isError })).toBe(streamed(isError ? 'E' : 'O', content));
      }),
      { numRuns: 1000 },
    );
  });

  it('answersDigest is SHA-256 of the count then each answer digest, in canonical order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ maxLength: 8 }), text, fc.boolean()), { minLength: 1, maxLength: 5 }), (rows) => {
        const calls = rows.map(([name], i) => ({ id: `c${i}`, name: `t${name}`, arguments: { i } }));
        const answers = rows.map(([, content, isError]) => ({ content, isError }));
        const batch = batchSignature(calls);
        const ordered = batch.order.map((i, k) => [batch.calls[k]!, answerDigest(answers[i]!)] as const);
        ordered.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
        expect(answersDigest(batch, answers)).toBe(streamed(`answers:${ordered.length}|`, ...ordered.map((p) => p[1])));
      }),
      { numRuns: 300 },
    );
  });

  it('a long call key is `#` and the SHA-256 of the key', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 600, maxLength: 3000 }), (command) => {
        const key = `4:Bash|J${JSON.stringify({ command })}`;
        expect(callDigest({ id: null, name: 'Bash', arguments: { command } })).toBe(key.length <= 512 ? `=${key}` : `#${streamed(key)}`);
      }),
      { numRuns: 200 },
    );
  });

  it('a pinned value, from sha256sum: printf Ook | sha256sum', () => {
    expect(answerDigest({ content: 'ok', isError: false })).toBe('49a21a7e52ea733127d3d30271bcd687367ac522293b07a8b964f7ab40d6d1e6');
  });
});
