// Oracle: src/detect/output/detector.ts as it was on main at fbc8a1f (before the text-speed work), imports
// repointed and two exports nobody here imports made local, otherwise verbatim. test/detect/fast-path.property.test.ts checks the fast path against it.

// The output loop detector of seed 002: visible text in (as deltas, with segment boundaries),
// findings out. Every signal is kept incrementally per character or per word, so an analysis
// pass only reads counters; the one linear scan (the compression proxy) runs only when a near
// repetition lands in the ambiguous band. Passes happen at fixed offsets of the normalized
// stream (every `strideChars`), which is why chunking cannot change the verdict.
//
// Windows carry text across segments (rounds), which is how a loop spread over rounds is caught,
// but a finding must be evidence of the text fed since the last segment boundary: the ladder
// reads a signal that shows again in a later round as an unheeded steer, so a round that only
// sits next to old repetition must not re-report it. The segment's share of the repeated region
// has to be at least one unit of the signal's own comparison:
// - exact_block: one whole shingle (exact_block_min_words words) of the run lies in the segment;
//   a copy cut by the round's end still counts in the next round, so a loop spread one partial
//   copy per round is not lost;
// - short_period, connector runs: the run's last unit (the last period's words, each a repeat of
//   the word one period back) lies in the segment;
// - near_repetition: only scales whose newer window is at least half new text are compared. Then
//   a similarity at the ambiguous bar cannot come from the old half alone: half a window of
//   unrelated text adds about half as many unshared n-grams as the older window holds at most,
//   which keeps the Jaccard near 2/3 or below;
// - connector openings and counter series: the opener or the term that crosses the bar is itself
//   a word of the segment (their candidates are only set by arriving words).
// A caller that never ends a segment sees one segment, where all of this always holds.

import type { Finding } from '../../../../src/detect/types.js';
import { isConnectorHash } from '../../../../src/detect/text/connectors.js';
import {
  CONNECTOR_OPENING_CONFIDENCE,
  CONNECTOR_RUN_CONFIDENCE,
  finding,
  MAX_CONFIDENCE,
  MeasurementLog,
  round3,
} from '../../../../src/detect/text/finding.js';
import { lzRedundancy } from '../../../../src/detect/text/lz.js';
import { JACCARD_SCALES, MultiScaleJaccard, NGRAM_CHARS } from '../text/ngram.js';
import { MarkdownNormalizer, type NormalizedSink } from '../text/normalize.js';
import { OpeningTracker, PeriodTracker } from '../../../../src/detect/text/period.js';
import { ArrayPool } from '../../../../src/detect/text/pool.js';
import { growRing, INITIAL_RING } from '../../../../src/detect/text/ring.js';
import { ShingleIndex } from '../text/shingle.js';
import { assignState, encodeState } from '../../../../src/detect/text/state.js';
import { COUNTER_LETTER, WordTokenizer, type Word } from '../text/tokens.js';
import { completeSection } from '../../../../src/config/section.js';
import { compressionThreshold, OUTPUT_SECTION, type OutputConfig } from '../../../../src/detect/output/config.js';

/** Seed 002: compression corroboration promotes an ambiguous near repetition at this confidence. */
const PROMOTED_CONFIDENCE = 0.88;
/** A verbatim block at the minimum repeat count: high, since verbatim copies are not chance. */
const EXACT_BASE_CONFIDENCE = 0.9;
/** Each copy past the minimum adds this much (capped below certainty). */
const PER_EXTRA_COPY = 0.02;
/** Chanting at the minimum run: as certain as a verbatim block. */
const SHORT_BASE_CONFIDENCE = 0.9;
const PER_EXTRA_UNIT = 0.01;
/** Parallel counter series tracked ("step 3 of 10": the "of 10" must not end the step series). */
const PROGRESSION_SLOTS = 4;
/** Digit words enter the data checksum modulo this prime, so prefix sums stay exact doubles. */
const DATA_MODULUS = 1000003;
/** A progression silences a candidate when they share at least half of the shorter span. */
const EXPLAINS_OVERLAP = 0.5;
/** A recurring phrase explains a near repetition whose newer window it fills at least half of. */
const NEAR_EXPLAINED = 0.5;

interface Span {
  start: number;
  end: number;
}

interface ExactRun {
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
interface RegionStart {
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

interface Progression {
  kind: number;
  last: number;
  terms: number;
  firstWord: number;
  lastWord: number;
  firstChar: number;
  lastChar: number;
  firstValue: number;
}

export interface OutputDetectorStats {
  /** Analysis passes run (strided or forced). */
  passes: number;
  /** Normalized characters consumed. */
  chars: number;
  /** Words consumed. */
  words: number;
  /** Characters currently held by the text window (bounded by 2 × window_chars). */
  windowChars: number;
  /** Distinct shingles indexed (bounded by the word window). */
  shingles: number;
}

export class OutputLoopDetector {
  readonly config: Readonly<OutputConfig>;
  private readonly warnings: string[] = [];
  private readonly sink: NormalizedSink;
  private readonly onWord: (w: Word) => void;
  private readonly log = new MeasurementLog('output');
  private collected: Finding[] = [];
  private st!: State;
  private readonly pool: ArrayPool;
  private released = false;

  /**
   * A parsed `output` section is trusted as it is; partial settings are completed and checked.
   * Detectors built one after another (a turn each) share a `pool`, so the arrays one releases
   * are the next one's.
   */
  constructor(config: Partial<OutputConfig> = {}, pool = new ArrayPool()) {
    this.config = completeSection(OUTPUT_SECTION, config, (w) => this.warnings.push(w));
    this.pool = pool;
    this.sink = {
      text: (piece) => {
        const codes = new Uint16Array(piece.length);
        for (let i = 0; i < piece.length; i++) codes[i] = piece.charCodeAt(i);
        this.text(codes, 0, codes.length);
      },
      codes: (buf, from, to) => this.text(buf, from, to),
      boundary: () => this.st.tok.boundary(this.onWord),
      // Issue 54: dropped structure breaks connector runs and stands as one non-connector opener.
      dropped: () => {
        const s = this.st;
        s.tok.endWord(this.onWord);
        if (s.cnBreakWord !== s.words) s.openings.push(0);
        s.cnBreakWord = s.words;
      },
      raw: (chars) => {
        // The segment's raw size (structure included) is what a repetition's share is taken of.
        const s = this.st;
        if (s.rawFresh) {
          s.rawFresh = false;
          s.segRaw = 0;
        }
        s.segRaw += chars;
      },
    };
    this.onWord = (w) => this.word(w);
    this.reset();
  }

  /** What the section's repairs changed in the configuration this detector was given. */
  configWarnings(): readonly string[] {
    return this.warnings;
  }

  /** Feed a text delta. Runs an analysis pass each time `strideChars` more text is committed. */
  feed(delta: string): Finding[] {
    this.live();
    this.collected = [];
    if (delta.length > 0) this.st.norm.push(delta, this.sink);
    return this.drain();
  }

  /** A chunk boundary that ends a segment (a round's text): the unfinished line is committed. */
  endSegment(): Finding[] {
    this.live();
    this.collected = [];
    this.st.norm.boundary(this.sink);
    // The next segment starts with the next committed text, not here: the forced pass that
    // usually follows still judges the segment that just ended.
    this.st.segEnded = true;
    this.st.rawFresh = true;
    return this.drain();
  }

  /** Force an analysis pass over everything committed; returns what it found. */
  analyze(): Finding[] {
    this.live();
    this.collected = [];
    this.pass();
    return this.drain();
  }

  /** Measurements of every comparison since the last call, one per (kind, statistic). */
  takeMeasurements() {
    return this.log.take();
  }

  stats(): OutputDetectorStats {
    const s = this.st;
    return {
      passes: s.passes,
      chars: s.tok.pos,
      words: s.words,
      windowChars: Math.min(s.tok.pos, s.chars.length),
      shingles: s.shingles.used,
    };
  }

  /** The compression proxy over the current window (the statistic that corroborates). */
  redundancy(): number {
    return lzRedundancy(this.tail(this.config.windowChars));
  }

  reset(): void {
    this.live();
    if (this.st) this.giveBack(this.st);
    this.st = freshState(this.config, this.pool);
    this.log.take();
    this.collected = [];
  }

  /** Hand the windows to the pool for the next detector's; this one must not be used again. */
  release(): void {
    if (this.released) return;
    this.giveBack(this.st);
    this.released = true;
  }

  private giveBack(s: State): void {
    this.pool.give(s.wordStart, s.wordEnd, s.dataPrefix, s.chars);
    s.norm.release();
    s.jac.release();
    s.shingles.release();
  }

  /** Arrays released are someone else's now: using this detector would corrupt theirs. */
  private live(): void {
    if (this.released) throw new Error('output detector used after release()');
  }

  /** Plain JSON-able state; `restore` of it continues exactly where this left off. */
  snapshot(): unknown {
    this.live();
    const s = this.st;
    return encodeState({
      v: 1,
      config: this.config,
      scalars: {
        words: s.words,
        passes: s.passes,
        nextPassAt: s.nextPassAt,
        nearReportedAt: s.nearReportedAt,
        segStartPos: s.segStartPos,
        segStartWord: s.segStartWord,
        segFirstShingle: s.segFirstShingle,
        segEnded: s.segEnded,
        segRaw: s.segRaw,
        rawFresh: s.rawFresh,
        exRun: s.exRun,
        exBest: s.exBest,
        exMax: s.exMax,
        shBest: s.shBest,
        shMax: s.shMax,
        shStart: s.shStart,
        cnStart: s.cnStart,
        cnBreakWord: s.cnBreakWord,
        cnBest: s.cnBest,
        cnMax: s.cnMax,
        opBest: s.opBest,
        opMax: s.opMax,
        progressions: s.progressions,
        drBest: s.drBest,
        drMax: s.drMax,
      },
      wordStart: s.wordStart,
      wordEnd: s.wordEnd,
      dataPrefix: s.dataPrefix,
      chars: s.chars,
      norm: { ...s.norm },
      tok: { ...s.tok },
      jac: { ...s.jac },
      shingles: { ...s.shingles },
      period: { ...s.period },
      openings: { ...s.openings },
      measurements: this.log.entries(),
    });
  }

  restore(snapshot: unknown): void {
    const o = snapshot as Record<string, unknown>;
    if (!o || typeof o !== 'object' || o['v'] !== 1) throw new Error('not an output detector snapshot');
    this.live();
    const s = freshState(this.config, this.pool);
    assignState(s, o['scalars']);
    const rest = { ...(o as Record<string, unknown>) };
    assignState(s.norm, rest['norm']);
    assignState(s.tok, rest['tok']);
    assignState(s.jac, rest['jac']);
    assignState(s.shingles, rest['shingles']);
    assignState(s.period, rest['period']);
    assignState(s.openings, rest['openings']);
    const arrays = assignState(
      { wordStart: s.wordStart, wordEnd: s.wordEnd, dataPrefix: s.dataPrefix, chars: s.chars },
      { wordStart: rest['wordStart'], wordEnd: rest['wordEnd'], dataPrefix: rest['dataPrefix'], chars: rest['chars'] },
    );
    s.chars = arrays.chars;
    s.wordStart = arrays.wordStart;
    s.wordEnd = arrays.wordEnd;
    s.dataPrefix = arrays.dataPrefix;
    this.st = s;
    this.log.load((rest['measurements'] as Parameters<MeasurementLog['load']>[0]) ?? []);
  }

  private drain(): Finding[] {
    const out = this.collected;
    this.collected = [];
    return out;
  }

  // ---- per piece / per word ----

  private text(buf: Uint16Array, from: number, to: number): void {
    const s = this.st;
    if (s.segEnded) {
      s.segEnded = false;
      s.segStartPos = s.tok.pos;
      s.segStartWord = s.words;
      s.segFirstShingle = s.words + this.config.exactBlockMinWords - 1;
    }
    s.jac.pushCodes(buf, from, to);
    s.tok.pushCodes(buf, from, to, this.onWord);
    // The text itself is kept in a character ring, not a growing string: no garbage per piece.
    // The ring starts small and doubles up to the window while it still holds everything seen,
    // so every read of it sees what a full-size ring would hold.
    const base = s.tok.pos - (to - from);
    if (s.tok.pos > s.chars.length && s.chars.length < pow2(this.config.windowChars)) {
      let size = s.chars.length * 2;
      while (size < s.tok.pos && size < pow2(this.config.windowChars)) size *= 2;
      const next = this.pool.uint16(size);
      // Positions [0, base) are all held, at their own index (the ring never wrapped).
      next.set(s.chars.subarray(0, base));
      this.pool.give(s.chars);
      s.chars = next;
    }
    // Copied as at most two blocks (the ring's end, then its start), not a code at a time.
    // A piece longer than the ring leaves only its tail there.
    const ring = s.chars;
    const start = Math.max(from, to - ring.length);
    const at = (base + start - from) & (ring.length - 1);
    const first = Math.min(to - start, ring.length - at);
    ring.set(buf.subarray(start, start + first), at);
    if (start + first < to) ring.set(buf.subarray(start + first, to), 0);
    if (s.tok.pos >= s.nextPassAt) this.pass();
  }

  private word(w: Word): void {
    const s = this.st;
    const c = this.config;
    const n = s.words++;
    if (n >= s.wordStart.length && s.wordStart.length < wordCapacity(c)) {
      const size = Math.min(wordCapacity(c), s.wordStart.length * 2);
      s.wordStart = growRing(s.wordStart, n, size, this.pool);
      s.wordEnd = growRing(s.wordEnd, n, size, this.pool);
      s.dataPrefix = growRing(s.dataPrefix, n, size, this.pool);
    }
    const cap = s.wordStart.length;
    s.wordStart[n % cap] = w.start;
    s.wordEnd[n % cap] = w.end;
    const prevSum = n > 0 ? s.dataPrefix[(n - 1) % cap]! : 0;
    s.dataPrefix[n % cap] = prevSum + (w.hasDigit ? (w.hash % DATA_MODULUS) + 1 : 0);

    // Short periods and connector runs (a unit made only of connectors is stalling).
    const p = s.period.push(w.hash);
    // A shingle inside a chant belongs to short_period: exact blocks are the longer units.
    const inShortPeriod = p > 0 && s.period.regionWords(p) >= c.exactBlockMinWords;
    // Only a run whose last two units are in this segment is evidence of it: chanting is a
    // response repeating itself. One copy per round of a short phrase that is a whole round's
    // text ("Let me check the output.") is a habit of narration, not a chant.
    if (p > 0 && n - 2 * p + 1 >= s.segStartWord) {
      let region = s.period.regionWords(p);
      let reps = Math.floor(region / p);
      if (s.period.allConnectors(p)) {
        region = Math.min(region, n - s.cnBreakWord + 1);
        reps = Math.floor(region / p);
        if (reps > s.cnMax) s.cnMax = reps;
        if (reps >= c.connectorMinRepeats && (!s.cnBest || region >= s.cnBest.region)) {
          s.cnBest = { period: p, region, last: n, start: this.regionStart(s.cnStart, p, n - region + 1) };
        }
      } else {
        if (reps > s.shMax) s.shMax = reps;
        if (reps >= c.shortPeriodMinRepeats && (!s.shBest || region >= s.shBest.region)) {
          s.shBest = { period: p, region, last: n, start: this.regionStart(s.shStart, p, n - region + 1) };
        }
      }
    }

    // Exact blocks: a stretch of repeated shingles (each seen before, one period back) that
    // holds a shingle seen min_repeats times, with a period longer than a short period. The
    // stretch is followed from its first repeat, so its extent is exact however long it grows.
    s.shingles.push(w.hash);
    const occ = s.shingles.occurrences;
    const per = s.shingles.period;
    // A repeat counts for this segment once the shingle ending here lies wholly in it.
    if (occ > 1 && per > c.shortPeriodMaxUnits && occ > s.exMax && n >= s.segFirstShingle) s.exMax = occ;
    // Changing data only matters once a copy could be reported (min_repeats): checking it for
    // every second and third copy cost a tenth of the detector on repetitive text.
    if (occ > 1 && per > c.shortPeriodMaxUnits && !inShortPeriod && (occ < c.exactBlockMinRepeats || !this.changingData(n))) {
      const r = s.exRun;
      if (r && r.last === n - 1) {
        r.last = n;
        r.occurrences = Math.max(r.occurrences, occ);
        r.period = per;
      } else {
        const k = c.exactBlockMinWords;
        const cap = s.wordStart.length;
        // The shingle's first word and the one a period back are in the ring (period < ring).
        s.exRun = {
          first: n,
          last: n,
          occurrences: occ,
          period: per,
          startChar: s.wordStart[(n - k + 1) % cap]!,
          copyStartChar: s.wordStart[(n - k + 1 - per) % cap]!,
        };
      }
      const cur = s.exRun!;
      if (
        cur.occurrences >= c.exactBlockMinRepeats &&
        n >= s.segFirstShingle &&
        (!s.exBest || cur.last - cur.first >= s.exBest.last - s.exBest.first)
      ) {
        s.exBest = { ...cur };
      }
    } else {
      s.exRun = null;
    }

    // Sentence openers.
    if (w.sentenceStart) {
      const conn = isConnectorHash(w.hash);
      const same = s.openings.push(conn ? w.hash : 0);
      if (same > s.opMax) s.opMax = same;
      if (conn && same >= c.connectorOpeningMin && (!s.opBest || same >= s.opBest.region)) {
        s.opBest = { period: 1, region: same, last: n, start: w.start };
      }
    }

    if (w.counterKind !== 0) this.counter(w, n);
  }

  /**
   * Templated records, not a loop: the text between this copy and the previous one carries
   * different numbers than the text between the two copies before ("Batch 3: wrote orders.csv
   * with 1204 rows …", polling lines with elapsed times). A verbatim loop repeats its numbers too.
   */
  private changingData(n: number): boolean {
    const s = this.st;
    const k = this.config.exactBlockMinWords;
    const cap = s.dataPrefix.length;
    const last = s.shingles.previous;
    const prev = s.shingles.beforePrevious;
    if (last < 0 || prev < 0 || n - prev >= cap) return false;
    const sum = (a: number, b: number) => (b > a ? s.dataPrefix[b % cap]! - s.dataPrefix[a % cap]! : 0);
    const current = sum(last, n - k);
    const before = sum(prev, last - k);
    return (current !== 0 || before !== 0) && current !== before;
  }

  /** The counter-progression classifier: values rising by one, in up to four parallel series. */
  private counter(w: Word, n: number): void {
    const s = this.st;
    const c = this.config;
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

  // ---- the analysis pass ----

  /** Offsets of words still in the ring (callers ask only for recent words). */
  private wordSpan(firstWord: number, lastWord: number): Span {
    const s = this.st;
    const cap = s.wordStart.length;
    const first = Math.max(firstWord, s.words - cap, 0);
    return { start: s.wordStart[first % cap]!, end: s.wordEnd[lastWord % cap]! };
  }

  private wordEnd(word: number): number {
    const s = this.st;
    return s.wordEnd[word % s.wordStart.length]!;
  }

  /**
   * Whether an exact run recurs once per round (the copy it repeats lies in an earlier round) and
   * is then only a recurring phrase. Such a unit is a loop only when the round re-emits it
   * verbatim: nothing new between the copies (they touch, as a chant's do), longer than a
   * sentence, and most of the round. A phrase among changing text (an opener before a new list, a
   * closer after new findings, a template whose file name changes) or a one-sentence narration is
   * seed 002's repeated sentence.
   */
  private perRound(run: ExactRun, shape: ExactShape, span: Span): { perRound: boolean; share: number; recurring: boolean } {
    const c = this.config;
    const share = this.roundShare(span);
    const perRound = run.last - run.period < this.st.segFirstShingle;
    const recurring = perRound && (!shape.touching || shape.unitWords < c.perRoundMinWords || share < c.dominanceMin);
    return { perRound, share, recurring };
  }

  /**
   * Start offset of a period region's first word. While that word is still in the word ring it
   * is read there and remembered; a chant that outgrows the ring keeps the offset remembered
   * while it was held (the region is reported at every word, so it was).
   */
  private regionStart(memo: RegionStart, period: number, firstWord: number): number {
    const s = this.st;
    const cap = s.wordStart.length;
    if (firstWord >= s.words - cap) {
      const start = s.wordStart[Math.max(0, firstWord) % cap]!;
      memo.period = period;
      memo.firstWord = firstWord;
      memo.start = start;
      return start;
    }
    if (memo.period === period && memo.firstWord === firstWord) return memo.start;
    return s.wordStart[(s.words - cap) % cap]!;
  }

  /**
   * The share of this round's raw text (structure included: a list the opener introduces is
   * part of what the round says) that lies in `span` of the normalized stream.
   */
  private roundShare(span: Span): number {
    const s = this.st;
    if (s.segRaw <= 0) return 0;
    const inSegment = Math.max(0, span.end - Math.max(span.start, s.segStartPos));
    return Math.min(1, inSegment / s.segRaw);
  }

  /** Normalized text at absolute offsets [from, to), which must lie within the ring. */
  private text_(from: number, to: number): string {
    const ring = this.st.chars;
    const rm = ring.length - 1;
    let out = '';
    // In slices, so a long tail never hits the argument limit of fromCharCode.
    for (let i = from; i < to; i += 4096) {
      const end = Math.min(to, i + 4096);
      const codes: number[] = [];
      for (let k = i; k < end; k++) codes.push(ring[k & rm]!);
      out += String.fromCharCode(...codes);
    }
    return out;
  }

  /** The last `n` normalized characters held. */
  private tail(n: number): string {
    const pos = this.st.tok.pos;
    return this.text_(Math.max(0, pos - Math.min(n, this.st.chars.length)), pos);
  }

  private excerpt(span: Span): string[] {
    const s = this.st;
    const from = Math.max(span.start, s.tok.pos - s.chars.length, 0);
    const to = Math.min(span.end, s.tok.pos, from + 80);
    if (to <= from) return [];
    return [this.text_(from, to)];
  }

  /**
   * An analysis pass: each signal's candidate since the last pass is judged, in a fixed order
   * (the measurement log and the findings keep it), and the candidates start over.
   */
  private pass(): void {
    const s = this.st;
    s.passes++;
    const pos = s.tok.pos;
    s.nextPassAt = pos + this.config.strideChars;
    const p: PassContext = { pos, out: [], live: this.liveSeries(), explained: 0, repetition: false, recurringRun: null };
    this.judgeExactBlock(p);
    this.judgeRecurringStretch(p);
    this.judgeShortPeriod(p);
    this.judgeConnectors(p);
    this.judgeNearRepetition(p);
    this.judgeDrift(p);
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
    for (const f of p.out) this.collected.push(f);
  }

  /**
   * The span of the counter series that silences repetition inside it: the pass's best series,
   * or a live one with more terms even when it gained no term since the last pass (a region it
   * explained a moment ago is still explained).
   */
  private liveSeries(): Span | null {
    const s = this.st;
    const c = this.config;
    let live: Progression | null = s.drBest;
    for (const pr of s.progressions) {
      if (pr.terms >= c.predictableDriftMinTerms && s.words - 1 - pr.lastWord <= c.predictableDriftMaxGapWords) {
        if (!live || pr.terms > live.terms) live = pr;
      }
    }
    return live ? { start: live.firstChar, end: live.lastChar } : null;
  }

  /** A repetition the live counter series explains (they share half the shorter span): counted, not reported. */
  private silenced(p: PassContext, span: Span): boolean {
    const live = p.live;
    if (!live) return false;
    const shared = Math.min(span.end, live.end) - Math.max(span.start, live.start);
    const shorter = Math.min(span.end - span.start, live.end - live.start);
    if (shared > 0 && shared >= EXPLAINS_OVERLAP * shorter) {
      p.explained++;
      return true;
    }
    return false;
  }

  /** exact_block, or recurring_phrase when the run is a phrase recurring once per round. */
  private judgeExactBlock(p: PassContext): void {
    const s = this.st;
    const c = this.config;
    const log = this.log;
    if (s.exMax > 0) log.note('exact_block', 'repeats', s.exMax, c.exactBlockMinRepeats);
    const ex = s.exBest;
    if (!ex) return;
    const m = log.record('exact_block', 'repeats', ex.occurrences, c.exactBlockMinRepeats);
    const shape = exactShape(ex, c.exactBlockMinWords);
    // The unit is the latest copy: always held, however long the run.
    const unit = this.wordSpan(ex.last - shape.unitWords + 1, ex.last);
    const run: Span = { start: shape.startChar, end: this.wordEnd(ex.last) };
    const { perRound, share, recurring } = this.perRound(ex, shape, run);
    if (this.silenced(p, run)) return;
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
      p.out.push(finding('output', 'recurring_phrase', c.recurringPhraseConfidence, evidence, [m], this.excerpt(unit)));
      return;
    }
    const crossed = perRound ? [m, log.record('exact_block', 'round_share', share, c.dominanceMin)] : [m];
    const f = finding(
      'output',
      'exact_block',
      Math.min(MAX_CONFIDENCE, EXACT_BASE_CONFIDENCE + PER_EXTRA_COPY * (ex.occurrences - c.exactBlockMinRepeats)),
      evidence,
      crossed,
      this.excerpt(unit),
    );
    f.dominant = share >= c.dominanceMin && (!perRound || shape.unitWords >= c.perRoundMinWords);
    p.out.push(f);
  }

  /**
   * A stretch still short of min_repeats copies can already be a phrase recurring once per
   * round: it too explains near repetition (a template's second and third copies).
   */
  private judgeRecurringStretch(p: PassContext): void {
    const s = this.st;
    const st = s.exRun;
    if (p.recurringRun !== null || !st || st.last < s.segFirstShingle) return;
    const shape = exactShape(st, this.config.exactBlockMinWords);
    const run: Span = { start: shape.startChar, end: this.wordEnd(st.last) };
    if (this.perRound(st, shape, run).recurring) p.recurringRun = run;
  }

  /** short_period: chanting, a unit of a few words repeated back to back. */
  private judgeShortPeriod(p: PassContext): void {
    const s = this.st;
    const c = this.config;
    const log = this.log;
    if (s.shMax > 0) log.note('short_period', 'repeats', s.shMax, c.shortPeriodMinRepeats);
    const sh = s.shBest;
    if (!sh) return;
    const reps = Math.floor(sh.region / sh.period);
    const m = log.record('short_period', 'repeats', reps, c.shortPeriodMinRepeats);
    const run: Span = { start: sh.start, end: this.wordEnd(sh.last) };
    const unit = this.wordSpan(sh.last - sh.period + 1, sh.last);
    if (this.silenced(p, run)) return;
    p.repetition = true;
    const share = this.roundShare(run);
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
      this.excerpt(unit),
    );
    f.dominant = share >= c.dominanceMin;
    p.out.push(f);
  }

  /** connector_stalling: a run made only of connectors, else sentences opened by the same one. */
  private judgeConnectors(p: PassContext): void {
    const s = this.st;
    const c = this.config;
    const log = this.log;
    if (s.cnMax > 0) log.note('connector_stalling', 'run_repeats', s.cnMax, c.connectorMinRepeats);
    if (s.opMax > 0) log.note('connector_stalling', 'openings', s.opMax, c.connectorOpeningMin);
    const cn = s.cnBest;
    let connectorReported = false;
    if (cn) {
      const reps = Math.floor(cn.region / cn.period);
      const m = log.record('connector_stalling', 'run_repeats', reps, c.connectorMinRepeats);
      const run: Span = { start: cn.start, end: this.wordEnd(cn.last) };
      const unit = this.wordSpan(cn.last - cn.period + 1, cn.last);
      if (!this.silenced(p, run)) {
        p.repetition = true;
        connectorReported = true;
        const share = this.roundShare(run);
        const f = finding(
          'output',
          'connector_stalling',
          CONNECTOR_RUN_CONFIDENCE,
          { pattern: 'run', period_units: cn.period, repeats: reps, run_words: cn.region, offset: run.start, round_share: round3(share) },
          [m],
          this.excerpt(unit),
        );
        f.dominant = share >= c.dominanceMin;
        p.out.push(f);
      }
    }
    const op = s.opBest;
    if (!op || connectorReported) return;
    const m = log.record('connector_stalling', 'openings', op.region, c.connectorOpeningMin);
    const at = this.wordSpan(op.last, op.last);
    p.out.push(
      finding(
        'output',
        'connector_stalling',
        CONNECTOR_OPENING_CONFIDENCE,
        { pattern: 'openings', openings: op.region, window_sentences: c.connectorOpeningWindow, offset: at.start },
        [m],
        this.excerpt(at),
      ),
    );
  }

  /**
   * near_repetition: the most similar scale that has two full windows and whose newer window is
   * at least half text of this segment; the ambiguous band is promoted by compression only.
   */
  private judgeNearRepetition(p: PassContext): void {
    const s = this.st;
    const c = this.config;
    const log = this.log;
    const pos = p.pos;
    let best = -1;
    let bestLen = 0;
    let bestScale = 0;
    const segmentChars = pos - s.segStartPos;
    for (let i = 0; i < JACCARD_SCALES.length; i++) {
      const len = JACCARD_SCALES[i]!;
      if (2 * segmentChars < len) continue;
      const j = s.jac.jaccard(i);
      if (j < 0) continue;
      log.note('near_repetition', JACCARD_STATS[i]!, j, c.nearRepetitionAmbiguous);
      if (j > best) {
        best = j;
        bestLen = len;
        bestScale = i;
      }
    }
    if (!(best >= c.nearRepetitionAmbiguous && pos > s.nearReportedAt)) {
      if (p.repetition) s.nearReportedAt = pos;
      return;
    }
    s.nearReportedAt = pos;
    const region: Span = { start: pos - 2 * bestLen, end: pos };
    // Windows that are mostly a phrase already judged to recur once per round are similar
    // because of it: near repetition would only say the same thing louder.
    const newer: Span = { start: pos - bestLen, end: pos };
    const explained = p.recurringRun !== null && overlap(newer, p.recurringRun) >= NEAR_EXPLAINED * bestLen;
    if (p.repetition || explained || this.silenced(p, region)) return;
    const crossed = [log.record('near_repetition', JACCARD_STATS[bestScale]!, best, c.nearRepetitionAmbiguous)];
    let ambiguous = best < c.nearRepetitionStrong;
    let confidence = Math.min(MAX_CONFIDENCE, best);
    let redundancy: number | null = null;
    let promoted = false;
    if (ambiguous) {
      const threshold = compressionThreshold(c);
      redundancy = lzRedundancy(this.tail(2 * bestLen));
      const m = log.record('near_repetition', 'compression_redundancy', redundancy, threshold);
      if (redundancy >= threshold) {
        // Seed 002: compression is the one factor that promotes the ambiguous band.
        ambiguous = false;
        promoted = true;
        confidence = PROMOTED_CONFIDENCE;
        crossed.push(m);
      }
    } else {
      crossed.push(log.record('near_repetition', JACCARD_STATS[bestScale]!, best, c.nearRepetitionStrong));
    }
    p.out.push(
      finding(
        'output',
        'near_repetition',
        confidence,
        {
          similarity: Math.round(best * 1000) / 1000,
          scale_chars: bestLen,
          ngram_chars: NGRAM_CHARS,
          compression_redundancy: redundancy === null ? null : Math.round(redundancy * 1000) / 1000,
          promoted,
          offset: Math.max(0, region.start),
        },
        crossed,
        this.excerpt({ start: pos - bestLen, end: pos }),
        ambiguous,
      ),
    );
  }

  /** predictable_drift: a counter series ("step 3", "step 4", …); says whether it explained a repetition. */
  private judgeDrift(p: PassContext): void {
    const s = this.st;
    const c = this.config;
    const log = this.log;
    if (s.drMax > 0) log.note('predictable_drift', 'terms', s.drMax, c.predictableDriftMinTerms);
    const drift = s.drBest;
    if (!drift) return;
    const m = log.record('predictable_drift', 'terms', drift.terms, c.predictableDriftMinTerms);
    p.out.push(
      finding(
        'output',
        'predictable_drift',
        c.predictableDriftConfidence,
        {
          series: drift.kind === COUNTER_LETTER ? 'letter' : 'numeric',
          terms: drift.terms,
          first_value: drift.firstValue,
          span_chars: drift.lastChar - drift.firstChar,
          offset: drift.firstChar,
          explains_repetition: p.explained > 0,
        },
        [m],
        [],
      ),
    );
  }
}

/** What one analysis pass carries from signal to signal. */
interface PassContext {
  /** Normalized characters committed when the pass ran. */
  pos: number;
  out: Finding[];
  /** The counter series that silences repetition inside it, if any. */
  live: Span | null;
  /** Repetitions the series silenced (predictable_drift says whether it explained any). */
  explained: number;
  /** A repetition signal was reported (near repetition then says nothing more). */
  repetition: boolean;
  /** The run of a phrase found recurring once per round (not a loop), if any. */
  recurringRun: Span | null;
}

interface State {
  norm: MarkdownNormalizer;
  tok: WordTokenizer;
  jac: MultiScaleJaccard;
  shingles: ShingleIndex;
  period: PeriodTracker;
  openings: OpeningTracker;
  wordStart: Float64Array;
  wordEnd: Float64Array;
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
  cnBreakWord: number;
  cnBest: PeriodRun | null;
  cnMax: number;
  opBest: PeriodRun | null;
  opMax: number;
  progressions: Progression[];
  drBest: Progression | null;
  drMax: number;
}

/**
 * A run's extent in words and copies. Copies that touch (the run is at least a period long, as in
 * chanting) make one region from the first copy's start; otherwise the run is the repeated text
 * of the latest copy and the count is the shingle's occurrences in the window.
 */
interface ExactShape {
  unitWords: number;
  runWords: number;
  repeats: number;
  startChar: number;
  /** Copies follow each other with nothing between them. */
  touching: boolean;
}

function exactShape(
  run: Pick<ExactRun, 'first' | 'last' | 'occurrences' | 'period' | 'startChar' | 'copyStartChar'>,
  k: number,
): ExactShape {
  const repeated = run.last - run.first + k;
  if (repeated >= run.period) {
    return {
      unitWords: run.period,
      runWords: repeated + run.period,
      repeats: Math.max(run.occurrences, Math.floor(repeated / run.period) + 1),
      startChar: run.copyStartChar,
      touching: true,
    };
  }
  return { unitWords: repeated, runWords: repeated, repeats: run.occurrences, startChar: run.startChar, touching: false };
}

function overlap(a: Span, b: Span): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

/** Statistic names of the Jaccard scales, built once. */
const JACCARD_STATS: readonly string[] = JACCARD_SCALES.map((len) => `jaccard_${len}`);

/** Initial text ring: a typical round or two; it doubles up to the window as a turn grows. */
const INITIAL_CHARS = 4096;

function pow2(n: number): number {
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

function freshState(c: OutputConfig, pool: ArrayPool): State {
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
