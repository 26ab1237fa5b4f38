// exact_block, and recurring_phrase when the run is a phrase recurring once per round while the
// rest of the round changes (seed 002's repeated sentence: noted, never steered).

import { finding, MAX_CONFIDENCE, round3 } from '../../text/finding.js';
import { exactShape, type ExactShape } from '../exact-run.js';
import { type PassContext, silenced } from './context.js';
import type { ExactRun, Span } from '../state.js';
import { excerpt, roundShare, wordEnd, wordSpan } from '../window.js';

/** A verbatim block at the minimum repeat count: high, since verbatim copies are not chance. */
const EXACT_BASE_CONFIDENCE = 0.9;
/** Each copy past the minimum adds this much (capped below certainty). */
const PER_EXTRA_COPY = 0.02;

export function exactBlock(p: PassContext): void {
  const { s, c, log } = p;
  if (s.exMax > 0) log.note('exact_block', 'repeats', s.exMax, c.exactBlockMinRepeats);
  const ex = s.exBest;
  if (!ex) return;
  const m = log.record('exact_block', 'repeats', ex.occurrences, c.exactBlockMinRepeats);
  const shape = exactShape(ex, c.exactBlockMinWords);
  // The unit is the latest copy: always held, however long the run.
  const unit = wordSpan(s, ex.last - shape.unitWords + 1, ex.last);
  const run: Span = { start: shape.startChar, end: wordEnd(s, ex.last) };
  const { perRound, share, recurring } = onePerRound(p, ex, shape, run);
  if (silenced(p, run)) return;
  p.repetition = !recurring;
  if (recurring) p.recurringRun = run;
  const evidence = {
    unit_words: shape.unitWords,
    unit_chars: unit.end - unit.start,
    repeats: shape.repeats,
    period_words: ex.period,
    run_words: shape.runWords,
    run_chars: run.end - run.start,
    offset: run.start,
    per_round: perRound,
    coverage: round3(shape.unitWords / ex.period),
    round_share: round3(share),
  };
  if (recurring) {
    // A phrase that opens or closes every round while the rest changes ("The changes look
    // good. I've:" before a different list each time): seed 002's repeated sentence, noted.
    log.note('exact_block', 'round_share', share, c.dominanceMin);
    p.out.push(finding('output', 'recurring_phrase', c.recurringPhraseConfidence, evidence, [m], excerpt(s, unit)));
    return;
  }
  const crossed = perRound ? [m, log.record('exact_block', 'round_share', share, c.dominanceMin)] : [m];
  const f = finding(
    'output',
    'exact_block',
    Math.min(MAX_CONFIDENCE, EXACT_BASE_CONFIDENCE + PER_EXTRA_COPY * (ex.occurrences - c.exactBlockMinRepeats)),
    evidence,
    crossed,
    excerpt(s, unit),
  );
  f.dominant = share >= c.dominanceMin && (!perRound || shape.unitWords >= c.perRoundMinWords);
  p.out.push(f);
}

/**
 * A stretch still short of min_repeats copies can already be a phrase recurring once per
 * round: it too explains near repetition (a template's second and third copies).
 */
export function recurringStretch(p: PassContext): void {
  const s = p.s;
  const st = s.exRun;
  if (p.recurringRun !== null || !st || st.last < s.segFirstShingle) return;
  const shape = exactShape(st, p.c.exactBlockMinWords);
  const run: Span = { start: shape.startChar, end: wordEnd(s, st.last) };
  if (onePerRound(p, st, shape, run).recurring) p.recurringRun = run;
}

/**
 * Whether an exact run recurs once per round (the copy it repeats lies in an earlier round) and
 * is then only a recurring phrase. Such a unit is a loop only when the round re-emits it
 * verbatim: nothing new between the copies (they touch, as a chant's do), longer than a
 * sentence, and most of the round. A phrase among changing text (an opener before a new list, a
 * closer after new findings, a template whose file name changes) or a one-sentence narration is
 * seed 002's repeated sentence.
 */
function onePerRound(p: PassContext, run: ExactRun, shape: ExactShape, span: Span): { perRound: boolean; share: number; recurring: boolean } {
  const c = p.c;
  const share = roundShare(p.s, span);
  const perRound = run.last - run.period < p.s.segFirstShingle;
  const recurring = perRound && (!shape.touching || shape.unitWords < c.perRoundMinWords || share < c.dominanceMin);
  return { perRound, share, recurring };
}
