// The thinking detector's findings are evidence of the round's own blocks, as the output
// detector's are: a stagnant pair or a stalled block must not be re-reported by a later round
// whose block is short and unrelated (the ladder would read it as an unheeded steer), while
// stagnation that goes on keeps reporting.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createThinkingRoundDetector, defaultThinkingConfig } from '../../../src/detect/thinking/index.js';
import { prose, round } from '../output/corpus.js';

const BLOCK =
  'I need to find out why the integration test fails. The fixture loads the configuration from disk, ' +
  'and the parser rejects the retry key because it expects an integer. Let me check the parser again.';
const RESTATED = BLOCK.replace('Let me check the parser again.', 'Let me check that parser once more.');
const STALLED = 'The sum is 12. Wait, but actually, wait, but actually, wait, but actually, it might be 13.';
const OPENINGS =
  'Wait, the cache is stale. Wait, the key rotated. Wait, that breaks login. Wait, sessions survive. Wait, unless tokens are reused. Wait, hmm.';

/** Each round's readable thinking blocks through one turn's detector; the kinds each reported. */
function perRound(rounds: readonly (readonly string[])[]): string[][] {
  const det = createThinkingRoundDetector(defaultThinkingConfig());
  return rounds.map((blocks, i) =>
    det
      .observe(round('ok', { index: i + 1, thinking: blocks.map((text) => ({ text, opaque: false })) }))
      .findings.map((f) => f.kind)
      .sort(),
  );
}

describe('thinking: a round reports only what its own blocks support', () => {
  it('a stagnant pair, then a short unrelated block: nothing in that round', () => {
    expect(perRound([[BLOCK], [RESTATED], ['ok']])).toEqual([[], ['thinking_stagnation'], []]);
    expect(perRound([[BLOCK], [BLOCK], ['Fine, the tests pass now.']])).toEqual([[], ['thinking_stagnation'], []]);
    // Long enough to be compared, and unlike the pair: compared, and not similar.
    expect(perRound([[BLOCK], [BLOCK], [prose(5, 300)]])).toEqual([[], ['thinking_stagnation'], []]);
    // A round without readable thinking adds nothing either.
    expect(perRound([[BLOCK], [BLOCK], []])).toEqual([[], ['thinking_stagnation'], []]);
  });

  it('stagnation, a short block, stagnation again: the first and the last stagnant rounds report', () => {
    expect(perRound([[BLOCK], [BLOCK], ['ok'], [RESTATED]])).toEqual([[], ['thinking_stagnation'], [], ['thinking_stagnation']]);
    expect(perRound([[BLOCK], [BLOCK], [BLOCK]])).toEqual([[], ['thinking_stagnation'], ['thinking_stagnation']]);
  });

  it('connector stalling, then a short unrelated block: nothing in that round', () => {
    expect(perRound([[STALLED], ['ok']])).toEqual([['connector_stalling'], []]);
    expect(perRound([[OPENINGS], ['ok'], ['Fine, the tests pass now.']])).toEqual([['connector_stalling'], [], []]);
    // A block that opens with the same connector again is itself one more stalled opening.
    expect(perRound([[OPENINGS], ['Wait, done.']])).toEqual([['connector_stalling'], ['connector_stalling']]);
  });

  it('property: a short non-repetitive block never produces a finding', () => {
    const SYLLABLES = ['xu', 'jy', 'qo', 'wex', 'zam', 'vuh', 'kip', 'oj', 'fle', 'gny'];
    const word = fc.array(fc.constantFrom(...SYLLABLES), { minLength: 2, maxLength: 3 }).map((s) => s.join(''));
    const block = fc.uniqueArray(word, { minLength: 1, maxLength: 24 }).map((ws) => ws.join(' ') + '.');
    const BLOCKS = [BLOCK, RESTATED, STALLED, OPENINGS, prose(6, 400), 'ok'];
    const prefix = fc.array(fc.array(fc.constantFrom(...BLOCKS), { maxLength: 2 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(prefix, block, (rounds, tail) => {
        const r = perRound([...rounds, [tail]]);
        expect(r[r.length - 1]).toEqual([]);
      }),
      { numRuns: 200, seed: 11 },
    );
  });
});
