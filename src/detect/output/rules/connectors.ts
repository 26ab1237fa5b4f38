// connector_stalling: a run made only of connectors ("wait, but actually, wait, but actually"),
// else sentences opened by the same connector one after another.

import { CONNECTOR_OPENING_CONFIDENCE, CONNECTOR_RUN_CONFIDENCE, finding, round3 } from '../../text/finding.js';
import { type PassContext, silenced } from './context.js';
import type { Span } from '../state.js';
import { excerpt, roundShare, wordEnd, wordSpan } from '../window.js';

export function connectorStalling(p: PassContext): void {
  const { s, c, log } = p;
  if (s.cnMax > 0) log.note('connector_stalling', 'run_repeats', s.cnMax, c.connectorMinRepeats);
  if (s.opMax > 0) log.note('connector_stalling', 'openings', s.opMax, c.connectorOpeningMin);
  // A reported run says it all: the openings are only judged without one.
  if (connectorRun(p)) return;
  const op = s.opBest;
  if (!op) return;
  const m = log.record('connector_stalling', 'openings', op.region, c.connectorOpeningMin);
  const at = wordSpan(s, op.last, op.last);
  p.out.push(
    finding(
      'output',
      'connector_stalling',
      CONNECTOR_OPENING_CONFIDENCE,
      { pattern: 'openings', openings: op.region, window_sentences: c.connectorOpeningWindow, offset: at.start },
      [m],
      excerpt(s, at),
    ),
  );
}

/** The connector-only run, if there is one the live series does not explain: whether it was reported. */
function connectorRun(p: PassContext): boolean {
  const { s, c, log } = p;
  const cn = s.cnBest;
  if (!cn) return false;
  const reps = Math.floor(cn.region / cn.period);
  const m = log.record('connector_stalling', 'run_repeats', reps, c.connectorMinRepeats);
  const run: Span = { start: cn.start, end: wordEnd(s, cn.last) };
  const unit = wordSpan(s, cn.last - cn.period + 1, cn.last);
  if (silenced(p, run)) return false;
  p.repetition = true;
  const share = roundShare(s, run);
  const f = finding(
    'output',
    'connector_stalling',
    CONNECTOR_RUN_CONFIDENCE,
    { pattern: 'run', period_units: cn.period, repeats: reps, run_words: cn.region, offset: run.start, round_share: round3(share) },
    [m],
    excerpt(s, unit),
  );
  f.dominant = share >= c.dominanceMin;
  p.out.push(f);
  return true;
}
