// The output detector's state: everything a snapshot carries, in one plain record, and the
// candidates the per-word trackers leave for the next analysis pass to judge.

import { MultiScaleJaccard, JACCARD_SCALES } from '../text/ngram.js';
import { MarkdownNormalizer } from '../text/normalize.js';
import { OpeningTracker, PeriodTracker } from '../text/period.js';
import type { ArrayPool } from '../text/pool.js';
import { INITIAL_RING } from '../text/ring.js';
import { ShingleIndex } from '../text/shingle.js';
import { WordTokenizer } from '../text/tokens.js';
import type { OutputConfig } from './config.js';

/** Absolute offsets [start, end) of the normalized stream. */
export interface Span {
  start: number;
  end: number;
}

export interface ExactRun {
  /** First and last word index whose shingle was a repeat (positions of shingle ends). */
  first: number;
  last: number;
  /** Most occurrences of any shingle of the run. */
  occurrences: number;
  period: number;
  /**
   * Start offsets of the run's first word and of the copy it repeats, read when the run began:
   * a run longer than the word ring still has exact positions.
   */
  startChar: number;
  copyStartChar: number;
}

/** The remembered start of the region a short period or connector run last reported. */
export interface RegionStart {
  period: number;
  firstWord: number;
  start: number;
}

interface PeriodRun {
  period: number;
  region: number;
  last: number;
  /** Start offset of the region's first word. */
  start: number;
}

export interface Progression {
  kind: number;
  last: number;
  terms: number;
  firstWord: number;
  lastWord: number;
  firstChar: number;
  lastChar: number;
  firstValue: number;
}

export interface State {
  norm: MarkdownNormalizer;
  tok: WordTokenizer;
  jac: MultiScaleJaccard;
  shingles: ShingleIndex;
  period: PeriodTracker;
  openings: OpeningTracker;
  wordStart: Float64Array;
  wordEnd: Float64Array;
  /** wordCapacity of the config, the word rings' bound (not saved: it follows from the config). */
  wordCap: number;
  /** Prefix sums of digit-word hashes (ring): which numbers sit between two copies. */
  dataPrefix: Float64Array;
  words: number;
  passes: number;
  nextPassAt: number;
  /** The last stretch of normalized text (excerpts, compression), a ring of window_chars or more. */
  chars: Uint16Array;
  nearReportedAt: number;
  /** Where the current segment's text starts (normalized offset, word index). */
  segStartPos: number;
  segStartWord: number;
  /** Word index of the first shingle end whose shingle lies wholly in the segment. */
  segFirstShingle: number;
  /** A segment ended and no text has come since: the next text starts a new one. */
  segEnded: boolean;
  /** Raw characters fed in the current segment (excluded structure included). */
  segRaw: number;
  /** A segment ended: the next fed text starts the raw count over. */
  rawFresh: boolean;
  exRun: ExactRun | null;
  exBest: ExactRun | null;
  exMax: number;
  shBest: PeriodRun | null;
  shMax: number;
  shStart: RegionStart;
  cnStart: RegionStart;
  /** Index of the first word after the last dropped line of structure: no connector run spans it. */
  cnBreakWord: number;
  cnBest: PeriodRun | null;
  cnMax: number;
  opBest: PeriodRun | null;
  opMax: number;
  progressions: Progression[];
  drBest: Progression | null;
  drMax: number;
}

/** Initial text ring: a typical round or two; it doubles up to the window as a turn grows. */
const INITIAL_CHARS = 4096;

export function pow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/**
 * Words held for exact blocks: a quarter of the window in characters. Prose averages five to six
 * characters a word with its space, so this spans the whole window; text of two-letter words
 * spans half of it, which still holds four ~936-token copies. Smaller rings are less to allocate.
 */
function wordCapacity(c: OutputConfig): number {
  return Math.ceil(c.windowChars / 4);
}

export function freshState(c: OutputConfig, pool: ArrayPool): State {
  const wordCap = wordCapacity(c);
  const initial = Math.min(wordCap, INITIAL_RING);
  return {
    norm: new MarkdownNormalizer(pool),
    tok: new WordTokenizer(),
    jac: new MultiScaleJaccard(JACCARD_SCALES, pool),
    shingles: new ShingleIndex(c.exactBlockMinWords, wordCap, pool),
    period: new PeriodTracker(c.shortPeriodMaxUnits),
    openings: new OpeningTracker(c.connectorOpeningWindow),
    wordStart: pool.float64(initial),
    wordEnd: pool.float64(initial),
    wordCap,
    dataPrefix: pool.float64(initial),
    words: 0,
    passes: 0,
    nextPassAt: c.strideChars,
    chars: pool.uint16(Math.min(pow2(c.windowChars), INITIAL_CHARS)),
    nearReportedAt: 0,
    segStartPos: 0,
    segStartWord: 0,
    segFirstShingle: 0,
    segEnded: false,
    segRaw: 0,
    rawFresh: false,
    exRun: null,
    exBest: null,
    exMax: 0,
    shBest: null,
    shMax: 0,
    shStart: { period: 0, firstWord: -1, start: 0 },
    cnStart: { period: 0, firstWord: -1, start: 0 },
    cnBreakWord: 0,
    cnBest: null,
    cnMax: 0,
    opBest: null,
    opMax: 0,
    progressions: [],
    drBest: null,
    drMax: 0,
  };
}

/** The windows go back to the pool; the state must not be used again. */
export function releaseState(s: State, pool: ArrayPool): void {
  pool.give(s.wordStart, s.wordEnd, s.dataPrefix, s.chars);
  s.norm.release();
  s.jac.release();
  s.shingles.release();
}

/** A pass judged every candidate: the next pass judges only what arrives after it. */
export function clearCandidates(s: State): void {
  s.exBest = null;
  s.shBest = null;
  s.cnBest = null;
  s.opBest = null;
  s.drBest = null;
  s.exMax = 0;
  s.shMax = 0;
  s.cnMax = 0;
  s.opMax = 0;
  s.drMax = 0;
}
