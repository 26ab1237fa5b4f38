// SPEC "What real sessions showed the seeds leave open (0.2)": "Evidence positions (`unit_chars`,
// `run_chars`, excerpt offsets) are exact on messages of any length." Issue 13 item 6: a 159k
// character reply repeating one 35-word question ~470 times reported unit_chars 6888 and no
// excerpt, because the unit and the run were read through a word ring shorter than the run.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/detect/types.js';
import { pseudoWord, rng } from './corpus.js';
import { detect } from './helpers.js';

function last(findings: readonly Finding[], kind: string): Finding {
  const f = findings.filter((x) => x.kind === kind).at(-1);
  if (!f) throw new Error(`no ${kind} among ${findings.map((x) => x.kind).join(',')}`);
  return f;
}

const QUESTION =
  'could you tell me whether the deployment pipeline should retry the failed database migration automatically, or whether we ' +
  'should wait for an operator to approve the rollback before the next scheduled release window opens today?';

describe('exact evidence positions on long messages', () => {
  it('a 35-word question repeated 470 times (over 100k characters): unit, run, repeats and excerpt are exact', () => {
    expect(QUESTION.split(' ')).toHaveLength(35);
    const intro = 'I have one question before I continue.';
    const text = `${intro} ${`${QUESTION} `.repeat(470)}`;
    const f = last(detect(text), 'exact_block');
    expect(f.evidence).toMatchObject({
      unit_words: 35,
      unit_chars: QUESTION.length,
      repeats: 470,
      period_words: 35,
      run_words: 35 * 470,
      run_chars: 470 * (QUESTION.length + 1) - 1,
      offset: intro.length + 1,
    });
    // The excerpt is the unit's start (the normalized text is already lowercase).
    expect(f.excerpts).toEqual([QUESTION.slice(0, 80)]);
  });

  it('property: any unit repeated any number of times after any prefix', () => {
    fc.assert(
      fc.property(fc.integer({ min: 9, max: 60 }), fc.integer({ min: 4, max: 700 }), fc.integer({ min: 0, max: 40 }), fc.nat(), (words, copies, prefixWords, seed) => {
        const r = rng(seed);
        const unit = Array.from({ length: words }, () => pseudoWord(r)).join(' ');
        fc.pre(words * copies < 20000);
        // A prefix of another vocabulary, so it never joins the run.
        const prefix = Array.from({ length: prefixWords }, (_, i) => `w${'x'.repeat(1 + (i % 5))}q`).join(' ');
        const head = prefix.length > 0 ? `${prefix} ` : '';
        const f = last(detect(`${head}${`${unit} `.repeat(copies)}`), 'exact_block');
        expect(f.evidence['unit_words']).toBe(words);
        expect(f.evidence['unit_chars']).toBe(unit.length);
        expect(f.evidence['repeats']).toBe(copies);
        expect(f.evidence['run_words']).toBe(words * copies);
        expect(f.evidence['run_chars']).toBe(copies * (unit.length + 1) - 1);
        expect(f.evidence['offset']).toBe(head.length);
        expect(f.excerpts).toEqual([unit.slice(0, 80)]);
      }),
      { numRuns: 25, seed: 13 },
    );
  });

  it('a chant longer than the word ring: short_period run and offset are exact', () => {
    const intro = 'Then it said';
    const text = `${intro} ${'la '.repeat(60000)}`;
    const f = last(detect(text), 'short_period');
    expect(f.evidence).toMatchObject({ period_units: 1, repeats: 60000, run_words: 60000, run_chars: 60000 * 3 - 1, offset: intro.length + 1 });
    expect(f.excerpts).toEqual(['la']);
  });

  it('a connector run longer than the word ring: offset is exact', () => {
    const intro = 'The total is twelve.';
    const text = `${intro} ${'wait, but actually, '.repeat(12000)}it is thirteen.`;
    const f = last(detect(text), 'connector_stalling');
    expect(f.evidence).toMatchObject({ pattern: 'run', period_units: 3, repeats: 12000, offset: intro.length + 1 });
    expect(f.excerpts).toEqual(['wait, but actually,']);
  });
});
