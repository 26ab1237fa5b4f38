// Per word, each signal's candidate for the next pass: the word rings, short periods and
// connector runs, sentence openers, then exact runs and counter series (their own files). Every
// signal is kept incrementally, so a pass only reads what these left.

import { isConnectorHash } from '../text/connectors.js';
import type { ArrayPool } from '../text/pool.js';
import { growRing, slotOf } from '../text/ring.js';
import type { Word } from '../text/tokens.js';
import type { OutputConfig } from './config.js';
import { trackCounter } from './counter.js';
import { trackExactRun } from './exact-run.js';
import type { State } from './state.js';
import { regionStart } from './window.js';

/** Digit words enter the data checksum modulo this prime, so prefix sums stay exact doubles. */
const DATA_MODULUS = 1000003;

export function trackWord(s: State, c: OutputConfig, pool: ArrayPool, w: Word): void {
  const n = s.words++;
  if (n >= s.wordStart.length && s.wordStart.length < s.wordCap) {
    const size = Math.min(s.wordCap, s.wordStart.length * 2);
    s.wordStart = growRing(s.wordStart, n, size, pool);
    s.wordEnd = growRing(s.wordEnd, n, size, pool);
    s.dataPrefix = growRing(s.dataPrefix, n, size, pool);
  }
  const cap = s.wordStart.length;
  const slot = slotOf(n, cap);
  s.wordStart[slot] = w.start;
  s.wordEnd[slot] = w.end;
  const prevSum = n > 0 ? s.dataPrefix[slot === 0 ? cap - 1 : slot - 1]! : 0;
  s.dataPrefix[slot] = prevSum + (w.hasDigit ? (w.hash % DATA_MODULUS) + 1 : 0);

  const p = trackPeriods(s, c, w, n);
  // A shingle inside a chant belongs to short_period: exact blocks are the longer units.
  const inShortPeriod = p > 0 && s.period.regionWords(p) >= c.exactBlockMinWords;
  trackExactRun(s, c, w, n, inShortPeriod);
  if (w.sentenceStart) trackOpening(s, c, w, n);
  if (w.counterKind !== 0) trackCounter(s, c, w, n);
}

/** Short periods and connector runs (a unit made only of connectors is stalling); the period found. */
function trackPeriods(s: State, c: OutputConfig, w: Word, n: number): number {
  const p = s.period.push(w.hash);
  // Only a run whose last two units are in this segment is evidence of it: chanting is a
  // response repeating itself. One copy per round of a short phrase that is a whole round's
  // text ("Let me check the output.") is a habit of narration, not a chant.
  if (p > 0 && n - 2 * p + 1 >= s.segStartWord) {
    let region = s.period.regionWords(p);
    let reps = Math.floor(region / p);
    if (s.period.allConnectors(p)) {
      // Connectors with a dropped list line or heading between them were not a run as written.
      region = Math.min(region, n - s.cnBreakWord + 1);
      reps = Math.floor(region / p);
      if (reps > s.cnMax) s.cnMax = reps;
      if (reps >= c.connectorMinRepeats && (!s.cnBest || region >= s.cnBest.region)) {
        s.cnBest = { period: p, region, last: n, start: regionStart(s, s.cnStart, p, n - region + 1) };
      }
    } else {
      if (reps > s.shMax) s.shMax = reps;
      if (reps >= c.shortPeriodMinRepeats && (!s.shBest || region >= s.shBest.region)) {
        s.shBest = { period: p, region, last: n, start: regionStart(s, s.shStart, p, n - region + 1) };
      }
    }
  }
  return p;
}

/** Sentence openers: the same connector opening sentence after sentence. */
function trackOpening(s: State, c: OutputConfig, w: Word, n: number): void {
  const conn = isConnectorHash(w.hash);
  const same = s.openings.push(conn ? w.hash : 0);
  if (same > s.opMax) s.opMax = same;
  if (conn && same >= c.connectorOpeningMin && (!s.opBest || same >= s.opBest.region)) {
    s.opBest = { period: 1, region: same, last: n, start: w.start };
  }
}
