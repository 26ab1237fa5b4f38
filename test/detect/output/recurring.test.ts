// Issue 21: "a unit that is a small part of each round's text and recurs once per round, while the
// rest of the text and the tool calls change, is not a loop (at most noted); the signal needs the
// repetition to dominate the text it is found in". Seed 002 lists "ordinary prose with a repeated
// sentence" among the output negatives and "irregular verbatim phrase repetition" and "a ~936-token
// block repeated four times" among the positives: within one response a recurring phrase stays an
// exact block; once per round it is one only when the round re-emits it verbatim, nothing new
// between the copies, longer than a sentence (output.per_round_min_words) and most of the round
// (output.dominance_min).

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/registry.js';
import { createOutputRoundDetector, defaultOutputConfig, type OutputConfig } from '../../../src/detect/output/index.js';
import type { Finding } from '../../../src/detect/types.js';
import { prose, round } from './corpus.js';

/** Each text as one round of one turn; the findings of every round. */
function rounds(texts: readonly string[], config: OutputConfig = defaultOutputConfig()): Finding[][] {
  const det = createOutputRoundDetector(config);
  return texts.map((text, i) => det.observe({ ...round(text, { index: i + 1 }), calls: [{ id: `c${i}`, name: 'edit', arguments: { i } }] }).findings);
}

const kindsOf = (fs: readonly Finding[]) => fs.map((f) => f.kind).sort();
const all = (rs: readonly Finding[][]) => rs.flat();

const AREAS = ['the scheme check', 'the IPv6 host', 'the port range', 'the userinfo part', 'the trailing dot', 'the punycode labels', 'the zone identifier', 'the fragment'];

/** The recorded OpenHands run, re-told: an opener and a closer around a list that changes. */
function changesLookGood(i: number): string {
  const a = AREAS[i]!;
  return (
    `The changes look good. I've:\n1. Updated ${a} in the pattern\n2. Added a test for ${a}\n3. Left the rest unchanged\n\n` +
    "Let's run the tests again to see if this fixes the issue:"
  );
}

describe('a phrase recurring once per round is not a loop (issue 21)', () => {
  it('"The changes look good. I\'ve:" before a different list, with different edit text between: recurring_phrase, below the steer bar', () => {
    const texts: string[] = [];
    for (let i = 0; i < 8; i++) {
      texts.push(`The next failure is in ${AREAS[i]}, so I will change how the validator treats it.`);
      texts.push(changesLookGood(i));
    }
    const found = all(rounds(texts));
    expect(found.filter((f) => f.kind === 'exact_block')).toEqual([]);
    const rec = found.filter((f) => f.kind === 'recurring_phrase');
    expect(rec.length).toBeGreaterThan(0);
    for (const f of rec) {
      expect(f.confidence).toBe(0.3);
      expect(f.evidence['per_round']).toBe(true);
      // The copies have the edit text between them, and the list is most of the round.
      expect(f.evidence['coverage']).toBeLessThan(1);
      expect(f.evidence['round_share']).toBeLessThan(0.75);
      expect(f.dominant).toBeUndefined();
    }
  });

  it('the same opener with no text between (the copies touch) is still a small part of its round: recurring_phrase', () => {
    const found = all(rounds(AREAS.map((_, i) => changesLookGood(i))));
    expect(kindsOf(found).filter((k) => k !== 'recurring_phrase')).toEqual([]);
    expect(found.length).toBeGreaterThan(0);
  });

  it('a one-sentence narration that is each round\'s whole text: shorter than output.per_round_min_words, recurring_phrase', () => {
    const texts = Array.from({ length: 8 }, () => 'Let me update the next file to use the new logger API.');
    const found = all(rounds(texts));
    expect(new Set(kindsOf(found))).toEqual(new Set(['recurring_phrase']));
    // The same rounds with the word bar lowered are a verbatim loop of the whole round.
    const low = all(rounds(texts, parseConfig({ 'output.per_round_min_words': 8 }).output));
    expect(kindsOf(low)).toContain('exact_block');
  });

  it('a template whose slot changes every round (a file name) is not re-emitted verbatim: recurring_phrase', () => {
    const files = ['invoice.py', 'tax.py', 'currency.py', 'discounts.py', 'credit_notes.py', 'exports.py', 'reminders.py'];
    const texts = files.map(
      (f) =>
        `Checked ${f} against the release checklist: error handling is in place, inputs are validated, logging uses the shared logger, ` +
        'the tests cover the public functions, there are no secrets or debug prints, and no TODO comments are left. Nothing to change in this file.',
    );
    const found = all(rounds(texts));
    expect(found.filter((f) => f.kind === 'exact_block')).toEqual([]);
    expect(found.some((f) => f.kind === 'recurring_phrase' && f.evidence['per_round'] === true)).toBe(true);
  });

  it('a short phrase that is each round\'s whole text is not chanting either (no short_period across rounds)', () => {
    for (const s of ["I'll run the tests again.", 'Let me check the output.', 'Checking.']) {
      expect(all(rounds(Array.from({ length: 10 }, () => s))).filter((f) => f.kind !== 'recurring_phrase')).toEqual([]);
    }
  });
});

describe('positives keep firing (seed 002)', () => {
  const PARAGRAPH =
    'The nightly export failed because the job could not reach the reporting database before its connection timeout expired, ' +
    'so the export step never started and no files were written to the bucket. I will look through the logs to find where the connection was refused.';

  it('a paragraph re-emitted whole every round is an exact block that dominates its round', () => {
    const rs = rounds(Array.from({ length: 6 }, () => PARAGRAPH));
    const blocks = rs.flat().filter((f) => f.kind === 'exact_block');
    expect(blocks.length).toBeGreaterThan(0);
    for (const f of blocks) {
      expect(f.evidence['per_round']).toBe(true);
      expect(f.evidence['round_share']).toBeGreaterThan(0.95);
      expect(f.dominant).toBe(true);
      expect(f.confidence).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('"a ~936-token block repeated four times": in one response, and one copy per round', () => {
    const block = prose(21, 3744).slice(0, 3744).replace(/\n+/g, ' ');
    const one = rounds([`${block}\n\n`.repeat(4)]).flat().find((f) => f.kind === 'exact_block');
    expect(one?.evidence).toMatchObject({ repeats: 4, per_round: false });
    expect(one?.dominant).toBe(true);
    const spread = rounds([block, block, block, block]);
    expect(kindsOf(spread[3]!)).toContain('exact_block');
    expect(spread[3]!.find((f) => f.kind === 'exact_block')?.evidence).toMatchObject({ repeats: 4, per_round: true });
  });

  it('"irregular verbatim phrase repetition" inside one response stays an exact block, though the phrase is a small part of it', () => {
    const phrase = 'the migration script has to run before the service restarts';
    const fillers = [prose(1, 180), prose(2, 420), prose(3, 90), prose(4, 300), prose(5, 150)];
    const text = fillers.map((f) => `${f.trim()} Remember that ${phrase}.`).join('\n\n');
    const f = rounds([text]).flat().find((x) => x.kind === 'exact_block');
    expect(f?.evidence['per_round']).toBe(false);
    expect(f?.evidence['round_share']).toBeLessThan(0.3);
    // Not most of its round: beside varied tool work the ladder lets it steer, not stop.
    expect(f?.dominant).toBe(false);
  });

  it('real chanting in each round is a short period that dominates its round', () => {
    const rs = rounds(['Not found. ' + 'I apologize for the confusion. '.repeat(30), 'Still missing. ' + 'I apologize for the confusion. '.repeat(30)]);
    for (const r of rs) {
      const f = r.find((x) => x.kind === 'short_period');
      expect(f?.dominant).toBe(true);
      expect(f?.evidence['round_share']).toBeGreaterThan(0.9);
    }
  });

  it('output.dominance_min is the share of its round a re-emitted unit must fill (excluded structure counts in the round)', () => {
    // The paragraph, then a list that changes: about 60% of each round's raw text is the paragraph.
    const list = (i: number) => `\n\n- step ${i}: ${'checked the next part of the export pipeline and its logs '.repeat(2)}`;
    const texts = Array.from({ length: 6 }, (_, i) => `${PARAGRAPH}${list(i)}`);
    const found = all(rounds(texts));
    expect(found.filter((f) => f.kind === 'exact_block')).toEqual([]);
    const shares = found.filter((f) => f.kind === 'recurring_phrase').map((f) => f.evidence['round_share'] as number);
    expect(shares.length).toBeGreaterThan(0);
    for (const x of shares) {
      expect(x).toBeGreaterThan(0.5);
      expect(x).toBeLessThan(0.75);
    }
    const low = all(rounds(texts, parseConfig({ 'output.dominance_min': 0.5 }).output));
    expect(low.some((f) => f.kind === 'exact_block')).toBe(true);
  });
});
