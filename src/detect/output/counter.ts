// The counter-progression classifier of seed 002: values rising by one ("step 3", "step 4", …),
// in up to four parallel series, so "step 3 of 10" keeps its step series ("of 10" is constant).
// A live series explains repetition inside it: predictable_drift, not a loop.

import type { Word } from '../text/tokens.js';
import type { OutputConfig } from './config.js';
import type { Progression, Span, State } from './state.js';

/** Parallel counter series tracked. */
const PROGRESSION_SLOTS = 4;

export function trackCounter(s: State, c: OutputConfig, w: Word, n: number): void {
  const v = w.counterValue;
  let hit: Progression | null = null;
  let constant = false;
  for (const pr of s.progressions) {
    if (pr.kind !== w.counterKind || n - pr.lastWord > c.predictableDriftMaxGapWords) continue;
    if (pr.last + 1 === v) {
      hit = pr;
      break;
    }
    if (pr.last === v) constant = true;
  }
  if (hit) {
    hit.terms++;
    hit.last = v;
    hit.lastWord = n;
    hit.lastChar = w.end;
  } else if (!constant) {
    // A constant counter ("batch 3", "of 10") neither extends nor displaces a series.
    const fresh: Progression = {
      kind: w.counterKind,
      last: v,
      terms: 1,
      firstWord: n,
      lastWord: n,
      firstChar: w.start,
      lastChar: w.end,
      firstValue: v,
    };
    if (s.progressions.length < PROGRESSION_SLOTS) s.progressions.push(fresh);
    else {
      let oldest = 0;
      for (let i = 1; i < s.progressions.length; i++) {
        if (s.progressions[i]!.lastWord < s.progressions[oldest]!.lastWord) oldest = i;
      }
      s.progressions[oldest] = fresh;
    }
    hit = fresh;
  }
  if (hit) {
    if (hit.terms > s.drMax) s.drMax = hit.terms;
    if (hit.terms >= c.predictableDriftMinTerms && (!s.drBest || hit.terms >= s.drBest.terms)) s.drBest = { ...hit };
  }
}

/**
 * The span of the counter series that silences repetition inside it: the pass's best series,
 * or a live one with more terms even when it gained no term since the last pass (a region it
 * explained a moment ago is still explained).
 */
export function liveSeries(s: State, c: OutputConfig): Span | null {
  let live: Progression | null = s.drBest;
  for (const pr of s.progressions) {
    if (pr.terms >= c.predictableDriftMinTerms && s.words - 1 - pr.lastWord <= c.predictableDriftMaxGapWords) {
      if (!live || pr.terms > live.terms) live = pr;
    }
  }
  return live ? { start: live.firstChar, end: live.lastChar } : null;
}
