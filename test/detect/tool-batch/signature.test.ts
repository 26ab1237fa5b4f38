import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  answersDigest,
  batchSignature,
  callDigest,
  MAX_ARGUMENT_DEPTH,
} from '../../../src/detect/tool-batch/index.js';
import type { ToolCall } from '../../../src/model/transcript.js';

const call = (name: string, args: unknown): ToolCall => ({ id: null, name, arguments: args });
const sig = (calls: ToolCall[]) => batchSignature(calls).signature;

function nested(depth: number, leaf: unknown): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i += 1) v = { k: v };
  return v;
}

/** Rebuild a value with every object's keys in a shuffled order. */
function shuffleKeys(value: unknown, rand: () => number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, rand));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    for (let i = entries.length - 1; i > 0; i -= 1) {
      const j = Math.floor(rand() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, rand)]));
  }
  return value;
}

describe('batch signature', () => {
  it('is independent of call order', () => {
    const a = call('read', { path: 'x' });
    const b = call('bash', { command: 'ls' });
    expect(sig([a, b])).toBe(sig([b, a]));
  });

  it('is independent of argument key order, at every depth', () => {
    expect(sig([call('t', { a: 1, b: { c: [1, { d: 2, e: 3 }], f: null } })])).toBe(
      sig([call('t', { b: { f: null, c: [1, { e: 3, d: 2 }] }, a: 1 })]),
    );
  });

  it('tells apart different names, values, array orders and batch sizes', () => {
    const base = sig([call('t', { a: [1, 2] })]);
    expect(sig([call('u', { a: [1, 2] })])).not.toBe(base);
    expect(sig([call('t', { a: [2, 1] })])).not.toBe(base);
    expect(sig([call('t', { a: [1, 2] }), call('t', { a: [1, 2] })])).not.toBe(base);
    expect(sig([call('t', { a: '1' })])).not.toBe(sig([call('t', { a: 1 })]));
  });

  it('arguments given as JSON strings are parsed first', () => {
    expect(callDigest(call('t', '{"b":2,"a":1}'))).toBe(callDigest(call('t', { a: 1, b: 2 })));
  });

  it('a malformed JSON string is hashed as the raw string', () => {
    const raw = '{"a": 1';
    expect(() => callDigest(call('t', raw))).not.toThrow();
    expect(callDigest(call('t', raw))).toBe(callDigest(call('t', raw)));
    expect(callDigest(call('t', raw))).not.toBe(callDigest(call('t', '{"a": 2')));
    // Tagged apart from a parsed string value with the same characters.
    expect(callDigest(call('t', raw))).not.toBe(callDigest(call('t', JSON.stringify(raw))));
  });

  it('100,000-deep arguments do not throw (parsed values and JSON strings alike)', () => {
    const depth = 100_000;
    expect(() => callDigest(call('t', nested(depth, 1)))).not.toThrow();
    const text = '['.repeat(depth) + ']'.repeat(depth);
    expect(() => callDigest(call('t', text))).not.toThrow();
    const obj = '{"k":'.repeat(depth) + '1' + '}'.repeat(depth);
    expect(callDigest(call('t', obj))).toBe(callDigest(call('t', nested(depth, 1))));
  });

  it(`values deeper than MAX_ARGUMENT_DEPTH (${MAX_ARGUMENT_DEPTH}) collapse to one sentinel; shallower ones do not`, () => {
    expect(callDigest(call('t', nested(MAX_ARGUMENT_DEPTH + 5, 'x')))).toBe(
      callDigest(call('t', nested(MAX_ARGUMENT_DEPTH + 5, 'y'))),
    );
    expect(callDigest(call('t', nested(MAX_ARGUMENT_DEPTH - 1, 'x')))).not.toBe(
      callDigest(call('t', nested(MAX_ARGUMENT_DEPTH - 1, 'y'))),
    );
  });

  it('property: permuting calls and argument keys never changes the signature', () => {
    const args = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('read', 'bash', 'snapshot', 'write'), args), { minLength: 1, maxLength: 6 }),
        fc.integer(),
        (spec, seed) => {
          let s = seed | 0;
          const rand = () => {
            s = (Math.imul(s, 1103515245) + 12345) | 0;
            return ((s >>> 8) & 0xffff) / 0x10000;
          };
          const calls = spec.map(([n, a]) => call(n, a));
          const permuted = calls.map((c) => call(c.name, shuffleKeys(c.arguments, rand)));
          for (let i = permuted.length - 1; i > 0; i -= 1) {
            const j = Math.floor(rand() * (i + 1));
            [permuted[i], permuted[j]] = [permuted[j]!, permuted[i]!];
          }
          expect(sig(permuted)).toBe(sig(calls));
        },
      ),
    );
  });

  it('property: answers permuted along with their calls give the same answer digest', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('read', 'bash'), fc.jsonValue({ maxDepth: 2 }), fc.string()), { minLength: 1, maxLength: 6 }),
        (spec) => {
          const calls = spec.map(([n, a]) => call(n, a));
          const answers = spec.map(([, , c]) => ({ content: c, isError: false }));
          const rev = (xs: readonly unknown[]) => [...xs].reverse();
          const d1 = answersDigest(batchSignature(calls), answers);
          const revCalls = rev(calls) as ToolCall[];
          const d2 = answersDigest(batchSignature(revCalls), rev(answers) as typeof answers);
          expect(d2).toBe(d1);
        },
      ),
    );
  });

  it('a large tool result is hashed without trouble', () => {
    const big = 'x'.repeat(8 * 1024 * 1024);
    const b = batchSignature([call('read', {})]);
    expect(answersDigest(b, [{ content: big, isError: false }])).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('tool results are digested only when compared', () => {
  it('a session whose batches never repeat never reads a tool result; a repeat reads each once per detector', async () => {
    const { createToolBatchDetectors } = await import('./rounds.js');
    const { config, Rounds } = await import('./rounds.js');
    let reads = 0;
    const counted = (text: string) => {
      const a = { isError: false } as { content: string; isError: boolean };
      Object.defineProperty(a, 'content', { get: () => ((reads += 1), text) });
      return a;
    };
    const both = createToolBatchDetectors(config());
    const r = new Rounds();
    for (let i = 0; i < 10; i += 1) {
      const round = r.batch([['bash', { n: i }]]);
      const withCounter = { ...round, answers: [counted(`out ${i}`)] };
      both.batch.observe(withCounter);
      both.cycle.observe(withCounter);
    }
    expect(reads).toBe(0);
    const again = r.batch([['bash', { n: 9 }]]);
    const repeated = { ...again, answers: [counted('out 9')] };
    both.batch.observe(repeated);
    both.cycle.observe(repeated);
    // This round's answers and the previous round's, once each (shared digester).
    expect(reads).toBe(2);
  });
});
