// short_period: chanting, a unit of a few words repeated back to back ("DONE. DONE. DONE.").

import { finding, MAX_CONFIDENCE, round3 } from '../../text/finding.js';
import { type PassContext, silenced } from './context.js';
import type { Span } from '../state.js';
import { excerpt, roundShare, wordEnd, wordSpan } from '../window.js';

/** Chanting at the minimum run: as certain as a verbatim block. */
const SHORT_BASE_CONFIDENCE = 0.9;
const PER_EXTRA_UNIT = 0.01;

export function shortPeriod(p: PassContext): void {
  const { s, c, log } = p;
  if (s.shMax > 0) log.note('short_period', 'repeats', s.shMax, c.shortPeriodMinRepeats);
  const sh = s.shBest;
  if (!sh) return;
  const reps = Math.floor(sh.region / sh.period);
  const m = log.record('short_period', 'repeats', reps, c.shortPeriodMinRepeats);
  const run: Span = { start: sh.start, end: wordEnd(s, sh.last) };
  const unit = wordSpan(s, sh.last - sh.period + 1, sh.last);
  if (silenced(p, run)) return;
  p.repetition = true;
  const share = roundShare(s, run);
  const f = finding(
    'output',
    'short_period',
    Math.min(MAX_CONFIDENCE, SHORT_BASE_CONFIDENCE + PER_EXTRA_UNIT * (reps - c.shortPeriodMinRepeats)),
    {
      period_units: sh.period,
      repeats: reps,
      run_words: sh.region,
      run_chars: run.end - run.start,
      offset: run.start,
      round_share: round3(share),
    },
    [m],
    excerpt(s, unit),
  );
  f.dominant = share >= c.dominanceMin;
  p.out.push(f);
}
