import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonChunks } from '../../src/report/json-stream.js';
import { batched, collect, writeChunks } from '../../src/report/stream.js';
import { PassThrough } from 'node:stream';

const join = (it: Iterable<string>) => [...it].join('');

describe('jsonChunks', () => {
  it('property: the same bytes as JSON.stringify(value, null, 2), at every split depth', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 7 }), (value, depth) => {
        expect(join(jsonChunks(value, depth))).toBe(JSON.stringify(value, null, 2));
      }),
      { numRuns: 400 },
    );
  });

  it('leaves out undefined members and writes undefined array elements as null, like JSON.stringify', () => {
    const value = { a: undefined, b: [undefined, 1, () => 2], c: { d: undefined }, e: 'x\ny', f: [] as unknown[], g: {} };
    for (let d = 0; d < 4; d += 1) expect(join(jsonChunks(value, d))).toBe(JSON.stringify(value, null, 2));
  });

  it('writes an iterator as the array it stands for, and a spliced value by its own generator', () => {
    function* items() {
      yield { n: 1 };
      yield { n: 2, list: [1, 2] };
    }
    const value = { head: 1, items: items(), tail: [3] };
    expect(join(jsonChunks(value, 2))).toBe(JSON.stringify({ head: 1, items: [{ n: 1 }, { n: 2, list: [1, 2] }], tail: [3] }, null, 2));
    const placeholder: unknown[] = [];
    const spliced = { a: 1, big: placeholder, z: 2 };
    const out = join(jsonChunks(spliced, 2, new Map([[placeholder, (indent: string) => jsonChunks(items(), 1, new Map(), indent)]])));
    expect(out).toBe(JSON.stringify({ a: 1, big: [{ n: 1 }, { n: 2, list: [1, 2] }], z: 2 }, null, 2));
    function* none() {}
    expect(join(jsonChunks({ x: none() }, 2))).toBe(JSON.stringify({ x: [] }, null, 2));
  });

  it('never builds a chunk much larger than one element, however long the array', () => {
    const entries = Array.from({ length: 50_000 }, (_, i) => ({ round: i, kind: 'repeated_batch', evidence: { tools: 'Bash' } }));
    let longest = 0;
    let total = 0;
    for (const c of jsonChunks({ sessions: [{ entries }] }, 4)) {
      longest = Math.max(longest, c.length);
      total += c.length;
    }
    expect(total).toBe(JSON.stringify({ sessions: [{ entries }] }, null, 2).length);
    expect(longest).toBeLessThan(70 * 1024);
  });
});

describe('stream helpers', () => {
  it('batched joins small chunks into pieces of about the given size, in order', async () => {
    const parts = Array.from({ length: 1000 }, (_, i) => `${i},`);
    const out: string[] = [];
    for await (const c of batched(parts, 100)) out.push(c);
    expect(out.join('')).toBe(parts.join(''));
    expect(out.length).toBeGreaterThan(10);
    for (const c of out.slice(0, -1)) expect(c.length).toBeGreaterThanOrEqual(100);
    expect(await collect(parts)).toBe(parts.join(''));
  });

  it('writeChunks waits for drain when the destination is full, and keeps the order', async () => {
    const dest = new PassThrough({ highWaterMark: 16 });
    const got: Buffer[] = [];
    const parts = Array.from({ length: 200 }, (_, i) => 'x'.repeat(1000) + i);
    const writing = writeChunks(dest, parts);
    // Read slowly: the writer must wait for drain rather than buffer everything.
    for await (const c of dest) {
      got.push(c as Buffer);
      if (Buffer.concat(got).length >= parts.join('').length) break;
    }
    await writing;
    expect(Buffer.concat(got).toString()).toBe(parts.join(''));
  });
});
