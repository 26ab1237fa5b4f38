// Issue 53, item 11: a call's arguments are canonicalised once, however many readers ask for its
// key (the detectors, the cut, the ledger asked five times a round: 10 MB of wide arrays took 34 s
// and 547 MB, now 9.7 s and 241 MB), and a long key is hashed as it is written, never held as
// text. The keys themselves do not change: they are checked against an independent writer of the
// canonical form (sorted keys, JSON otherwise) and one-shot SHA-256.

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerDigest, callDigest } from '../../../src/detect/tool-batch/signature.js';
import type { ToolAnswer, ToolCall } from '../../../src/model/transcript.js';

/** The canonical form written the plain way: JSON with every object's keys sorted. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function expectedKey(name: string, args: unknown): string {
  const key = `${name.length}:${name}|J${sortedJson(args)}`;
  return key.length <= 512 ? `=${key}` : `#${createHash('sha256').update(key).digest('hex')}`;
}

describe('call keys, written once (issue 53, item 11)', () => {
  it('any JSON arguments, short or long, keep the key they had', () => {
    // A string argument is parsed as JSON first (an OpenAI call's arguments): not this writer's case.
    const json = fc
      .jsonValue({ maxDepth: 6 })
      .map((v) => JSON.parse(JSON.stringify(v)) as unknown)
      .filter((v) => typeof v !== 'string');
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), json, fc.nat(3_000), (name, args, pad) => {
        const padded = { args, pad: 'x'.repeat(pad) };
        expect(callDigest({ id: 'c', name, arguments: args })).toBe(expectedKey(name, args));
        expect(callDigest({ id: 'c', name, arguments: padded })).toBe(expectedKey(name, padded));
      }),
      { numRuns: 300 },
    );
  });

  it('megabytes of wide and deep arrays: the same key as the plain writer', () => {
    const wide = { rows: Array.from({ length: 200_000 }, (_, i) => [i % 1000, 'ab', { k: i }]) };
    let deep: unknown = 'leaf';
    for (let d = 0; d < 60; d++) deep = [deep, d, { ['z' + d]: d }];
    const deepMany = { items: Array.from({ length: 3_000 }, () => deep) };
    expect(callDigest({ id: 'w', name: 'upload', arguments: wide })).toBe(expectedKey('upload', wide));
    expect(callDigest({ id: 'd', name: 'upload', arguments: deepMany })).toBe(expectedKey('upload', deepMany));
  });

  it('a call with long arguments is read once however often its key is asked for', () => {
    let reads = 0;
    const call = { id: 'c', name: 'upload' } as ToolCall;
    const args = { blob: 'y'.repeat(100_000) };
    Object.defineProperty(call, 'arguments', { get: () => ((reads += 1), args) });
    const first = callDigest(call);
    for (let i = 0; i < 4; i++) expect(callDigest(call)).toBe(first);
    expect(reads).toBe(1);
  });

  it('a long tool result is read once however many detectors digest it', () => {
    let reads = 0;
    const text = 'FAIL '.repeat(20_000);
    const answer = { isError: true } as ToolAnswer;
    Object.defineProperty(answer, 'content', { get: () => ((reads += 1), text) });
    const first = answerDigest(answer);
    expect(first).toBe(createHash('sha256').update(`E${text}`).digest('hex'));
    expect(answerDigest(answer)).toBe(first);
    expect(reads).toBe(1);
  });
});
