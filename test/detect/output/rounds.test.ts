// A round's finding is evidence of that round's own text. The windows carry text across the
// rounds of a turn (how a loop spread over rounds is caught), but the ladder counts a signal that
// "shows again" in a later round as an unheeded steer, so a round that adds nothing repetitive
// must not re-report what the windows still hold, and a loop that goes on must keep reporting.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOutputRoundDetector, defaultOutputConfig, OutputLoopDetector, type OutputConfig } from '../../../src/detect/output/index.js';
import { prose, round, variedLoop } from './corpus.js';
import { kinds } from './helpers.js';

/** Each round through one turn's round detector; the kinds each round reported. */
function perRound(texts: readonly string[], config: Partial<OutputConfig> = {}): string[][] {
  const det = createOutputRoundDetector({ ...defaultOutputConfig(), ...config });
  return texts.map((t, i) => kinds(det.observe(round(t, { index: i + 1 })).findings));
}

const PARAGRAPH = prose(9, 400).replace(/\n/g, ' ');
/** The same paragraph chanted: exact blocks and a near-total window similarity. */
const CHANTED = (PARAGRAPH + '\n\n').repeat(6);
/** A varied loop with verbatim blocks held back: only the n-gram windows see it. */
const VARIED = variedLoop(6, 4, 3);
const NEAR_ONLY = { exactBlockMinRepeats: 1000 };

describe('a round reports only what its own text supports', () => {
  it('a looping round then "ok": nothing in the "ok" round (it used to re-report near_repetition 0.99)', () => {
    const [loop, ok] = perRound([CHANTED, 'ok']);
    expect(loop).toContain('exact_block');
    expect(ok).toEqual([]);
    // The n-gram windows are what still held the loop: the same with only them looking.
    const [nearLoop, nearOk] = perRound([VARIED, 'ok'], NEAR_ONLY);
    expect(nearLoop).toContain('near_repetition');
    expect(nearOk).toEqual([]);
  });

  it('a loop that continues into the next round reports in both rounds', () => {
    const [a, b] = perRound([CHANTED, CHANTED]);
    expect(a).toContain('exact_block');
    expect(b).toContain('exact_block');
    const [na, nb] = perRound([VARIED, VARIED], NEAR_ONLY);
    expect(na).toContain('near_repetition');
    expect(nb).toContain('near_repetition');
    // One more copy of the paragraph is enough to be this round's evidence …
    expect(perRound([CHANTED, PARAGRAPH])[1]).toContain('exact_block');
    // … and so is part of a copy, once a whole shingle of it (eight words) lies in the round.
    expect(perRound([CHANTED, PARAGRAPH.split(' ').slice(0, 12).join(' ')])[1]).toContain('exact_block');
  });

  it('loop, "ok", loop again: findings in rounds 1 and 3 only', () => {
    const r = perRound([CHANTED, 'ok', CHANTED]);
    expect(r[0]).toContain('exact_block');
    expect(r[1]).toEqual([]);
    expect(r[2]).toContain('exact_block');
    const n = perRound([VARIED, 'ok', VARIED], NEAR_ONLY);
    expect(n[0]).toContain('near_repetition');
    expect(n[1]).toEqual([]);
    expect(n[2]).toContain('near_repetition');
  });

  it('a round that only starts the repeated text again, short of a whole unit, reports nothing', () => {
    // Three words of the paragraph continue the verbatim run, but no whole shingle of it is new.
    expect(perRound([CHANTED, PARAGRAPH.split(' ').slice(0, 3).join(' ')])[1]).toEqual([]);
    // A period of three words: two of them in the next round are not yet a unit.
    const chant = 'Status: ' + 'done ready steady '.repeat(8);
    expect(perRound([chant, 'done ready'])).toEqual([['short_period'], []]);
    // One whole unit is not yet the round chanting either (issue 21: a short phrase that is each
    // round's whole text recurs once per round); two units are.
    expect(perRound([chant, 'done ready steady'])).toEqual([['short_period'], []]);
    expect(perRound([chant, 'done ready steady done ready steady'])).toEqual([['short_period'], ['short_period']]);
    const stall = 'So the total is 12. ' + 'wait, but actually, '.repeat(4);
    expect(perRound([stall, 'wait, but'])).toEqual([['connector_stalling'], []]);
    expect(perRound([stall, 'wait, but actually, the sign flips.'])).toEqual([['connector_stalling'], []]);
    expect(perRound([stall, 'wait, but actually, wait, but actually, the sign flips.'])).toEqual([
      ['connector_stalling'],
      ['connector_stalling'],
    ]);
  });

  it('text next to the loop that is unrelated prose reports nothing, whatever its length', () => {
    for (const chars of [40, 200, 600, 2500]) {
      expect(perRound([CHANTED, prose(77, chars)])[1], `${chars} chars`).toEqual([]);
      expect(perRound([VARIED, prose(78, chars)], NEAR_ONLY)[1], `${chars} chars`).toEqual([]);
    }
  });

  it('the segment boundary is where the next text starts, so analyze() after endSegment() still judges the ended round', () => {
    const d = new OutputLoopDetector();
    // Shorter than a stride: only the forced pass can report it.
    expect(d.feed('Go ' + 'la '.repeat(30))).toEqual([]);
    expect(d.endSegment()).toEqual([]);
    expect(kinds(d.analyze())).toEqual(['short_period']);
    // An empty or all-excluded round changes nothing: no new text, no finding.
    d.endSegment();
    expect(d.analyze()).toEqual([]);
    d.feed('```\n' + CHANTED + '```\n');
    d.endSegment();
    expect(d.analyze()).toEqual([]);
    d.feed('ok');
    d.endSegment();
    expect(d.analyze()).toEqual([]);
  });

  it('snapshot/restore keeps the segment boundary', () => {
    const a = new OutputLoopDetector(NEAR_ONLY);
    expect(kinds([...a.feed(VARIED), ...a.endSegment(), ...a.analyze()])).toContain('near_repetition');
    // Taken between the end of a round and the next round's text: the boundary is still pending.
    const b = new OutputLoopDetector(NEAR_ONLY);
    b.restore(JSON.parse(JSON.stringify(a.snapshot())) as unknown);
    b.feed('ok');
    b.endSegment();
    expect(b.analyze()).toEqual([]);
    expect(kinds([...b.feed(VARIED), ...b.endSegment(), ...b.analyze()])).toContain('near_repetition');
  });
});

describe('property: a short non-repetitive round never produces a finding', () => {
  // Words built from syllables the corpus never uses, so the round repeats nothing of its own
  // and continues nothing of the turn; no digits (no counter series), no connectors. Up to ~200
  // characters: past half the smallest n-gram window, so the window rule is exercised too.
  const SYLLABLES = ['xu', 'jy', 'qo', 'wex', 'zam', 'vuh', 'kip', 'oj', 'fle', 'gny'];
  const word = fc.array(fc.constantFrom(...SYLLABLES), { minLength: 2, maxLength: 3 }).map((s) => s.join(''));
  const shortRound = fc
    .uniqueArray(word, { minLength: 1, maxLength: 14 })
    .chain((ws) => fc.constantFrom('', '.', '!').map((end) => ws.join(' ') + end));

  const LOOPS = [
    CHANTED,
    VARIED,
    'Go ' + 'la '.repeat(30),
    'So. ' + 'wait, but actually, '.repeat(5),
    'Wait, the cache is stale. Wait, the key rotated. Wait, that breaks login. Wait, sessions survive. Wait, unless tokens are reused. Wait, hmm.',
    'Counting: 1, 2, 3, 4, 5, 6, 7.',
    (prose(3, 500) + '\n').repeat(5),
    prose(4, 1500),
    'ok',
  ];
  const prefix = fc.array(fc.nat({ max: LOOPS.length - 1 }), { minLength: 1, maxLength: 4 });

  it('after any rounds of loops, prose and short replies', () => {
    fc.assert(
      fc.property(prefix, shortRound, fc.boolean(), (picks, tail, nearOnly) => {
        const texts = [...picks.map((i) => LOOPS[i]!), tail];
        const r = perRound(texts, nearOnly ? NEAR_ONLY : {});
        expect(r[r.length - 1]).toEqual([]);
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});
