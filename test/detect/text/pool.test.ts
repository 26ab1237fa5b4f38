// The ledger builds fresh text detectors every turn; they share an ArrayPool so a finished turn's
// windows become the next turn's instead of garbage (src/detect/text/pool.ts). Reuse must be
// invisible: an array from the pool is as good as a new one, and detectors sharing a pool, each
// released after its turn, say exactly what detectors with pools of their own say.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOutputRoundDetector, defaultOutputConfig, OutputLoopDetector } from '../../../src/detect/output/index.js';
import { ArrayPool } from '../../../src/detect/text/pool.js';
import { createThinkingRoundDetector, defaultThinkingConfig, ThinkingLoopDetector } from '../../../src/detect/thinking/index.js';
import type { ResumableRoundDetector, RoundObservation } from '../../../src/detect/types.js';
import type { Round } from '../../../src/model/transcript.js';
import { prose, round } from '../output/corpus.js';

describe('ArrayPool', () => {
  it('hands back an array of the length asked, zeroed (or filled), whatever was written into it', () => {
    const pool = new ArrayPool();
    const a = pool.int32(512, -1);
    expect(a).toHaveLength(512);
    expect(a.every((x) => x === -1)).toBe(true);
    a.fill(7);
    pool.give(a);
    const b = pool.int32(512);
    expect(b).toBe(a);
    expect(b.every((x) => x === 0)).toBe(true);
    const f = pool.float64(256);
    f.fill(Number.NaN);
    pool.give(f);
    const g = pool.float64(256);
    expect(g).toBe(f);
    expect(g.every((x) => x === 0)).toBe(true);
    // Another length or another kind is a new array.
    const u = pool.uint16(256);
    expect(u).not.toBe(f);
    expect(pool.int32(1024)).not.toBe(a);
  });

  it('never keeps a view into a larger buffer, nor the same array twice', () => {
    const pool = new ArrayPool();
    const whole = new Uint16Array(2048);
    pool.give(whole.subarray(1024), whole.subarray(0, 1024));
    expect(pool.uint16(1024).buffer).not.toBe(whole.buffer);
    const a = new Int32Array(64);
    pool.give(a, a);
    const first = pool.int32(64);
    const second = pool.int32(64);
    expect(first).toBe(a);
    expect(second).not.toBe(a);
  });

  it('keeps a bounded number of arrays of one length', () => {
    const pool = new ArrayPool();
    const given: Float64Array[] = Array.from({ length: 40 }, () => new Float64Array(8));
    pool.give(...given);
    const back = Array.from({ length: 40 }, () => pool.float64(8));
    const reused = back.filter((x) => given.includes(x)).length;
    expect(reused).toBeGreaterThan(0);
    expect(reused).toBeLessThanOrEqual(16);
  });
});

/** Each turn's rounds through fresh detectors from `make`, released after the turn as the ledger does. */
function replay(turns: readonly Round[][], make: () => ResumableRoundDetector): RoundObservation[][] {
  return turns.map((rounds) => {
    const d = make();
    const seen = rounds.map((r) => d.observe(r));
    d.release?.();
    return seen;
  });
}

/** Text of a round: prose, optionally followed by a unit repeated (a loop), sized to grow windows. */
const roundText = fc
  .record({ seed: fc.nat(1000), chars: fc.integer({ min: 0, max: 14_000 }), copies: fc.integer({ min: 0, max: 6 }), unit: fc.integer({ min: 40, max: 2_000 }) })
  .map(({ seed, chars, copies, unit }) => prose(seed, chars) + (copies > 0 ? '\n' + (prose(seed + 1, unit) + '\n').repeat(copies) : ''));

/** Turns of rounds with text and thinking: large turns and small ones in any order. */
const turnsArb = fc.array(
  fc.array(
    fc.record({ text: roundText, thinking: fc.array(roundText, { maxLength: 3 }) }).map(({ text, thinking }) =>
      round(text, { thinking: thinking.map((t) => ({ text: t, opaque: false })) }),
    ),
    { minLength: 1, maxLength: 4 },
  ),
  { minLength: 2, maxLength: 5 },
);

describe('detectors sharing a pool across turns', () => {
  const kinds: [string, (pool?: ArrayPool) => ResumableRoundDetector][] = [
    ['output', (pool) => createOutputRoundDetector(defaultOutputConfig(), pool)],
    ['thinking', (pool) => createThinkingRoundDetector(defaultThinkingConfig(), pool)],
  ];
  for (const [name, make] of kinds) {
    it(`${name}: the same findings and measurements as detectors with pools of their own`, () => {
      fc.assert(
        fc.property(turnsArb, (turns) => {
          const shared = new ArrayPool();
          expect(replay(turns, () => make(shared))).toEqual(replay(turns, () => make()));
        }),
        { numRuns: 25, seed: 17 },
      );
    });
  }

  it('a loop is still found in a small turn after a large one gave its grown windows back', () => {
    const config = defaultOutputConfig();
    const pool = new ArrayPool();
    const big = createOutputRoundDetector(config, pool);
    big.observe(round(prose(3, 60_000)));
    big.release?.();
    const small = createOutputRoundDetector(config, pool);
    const loop = round(`${prose(4, 300)}\n${'The build failed again, so I will rerun the same command now.\n'.repeat(6)}`);
    const kinds = small.observe(loop).findings.map((f) => f.kind);
    expect(kinds).toEqual(createOutputRoundDetector(config).observe(loop).findings.map((f) => f.kind));
    expect(kinds.length).toBeGreaterThan(0);
  });

  it('a released detector refuses to be used: its arrays may already be another detector\'s', () => {
    const output = new OutputLoopDetector({}, new ArrayPool());
    output.feed(prose(1, 500));
    output.release();
    expect(() => output.feed('more')).toThrow(/after release/);
    expect(() => output.snapshot()).toThrow(/after release/);
    expect(() => output.reset()).toThrow(/after release/);
    const thinking = new ThinkingLoopDetector({}, new ArrayPool());
    thinking.feedBlock(prose(2, 500));
    thinking.release();
    expect(() => thinking.feedBlock(prose(2, 500))).toThrow(/after release/);
    expect(() => thinking.reset()).toThrow(/after release/);
  });
});
