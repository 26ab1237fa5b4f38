// Oracle: src/detect/thinking/detector.ts as it was on main at fbc8a1f (before the text-speed work), imports
// repointed and two exports nobody here imports made local, otherwise verbatim. test/detect/fast-path.property.test.ts checks the fast path against it.

// The thinking loop detector of seed 002: completed thinking blocks and per-round usage in,
// findings out. Readable blocks are compared with the previous one (stagnation; an identical
// block is stagnation with identical=true, as the seed folds it into adjacent-block similarity)
// and scanned for connector stalling. Opaque reasoning (redacted or encrypted) can only be judged
// by its usage: reasoning tokens growing against tiny visible output, capped so it only steers.
// Every text finding is evidence of the block just fed, so a later short or unrelated block never
// re-reports an earlier stagnant pair (the ladder would count that as an unheeded steer): a block
// too short to compare neither compares nor replaces the previous one, runs restart per block,
// and an openings finding needs a connector opener in the block itself.

import type { Finding } from '../../../../src/detect/types.js';
import { isConnectorHash } from '../../../../src/detect/text/connectors.js';
import {
  CONNECTOR_OPENING_CONFIDENCE,
  CONNECTOR_RUN_CONFIDENCE,
  finding,
  MAX_CONFIDENCE,
  MeasurementLog,
} from '../../../../src/detect/text/finding.js';
import { blockMask, BlockSets } from '../text/ngram.js';
import { MarkdownNormalizer, type NormalizedSink } from '../text/normalize.js';
import { OpeningTracker, PeriodTracker } from '../../../../src/detect/text/period.js';
import { ArrayPool } from '../../../../src/detect/text/pool.js';
import { assignState, encodeState } from '../../../../src/detect/text/state.js';
import { WordTokenizer, type Word } from '../text/tokens.js';
import { completeSection } from '../../../../src/config/section.js';
import { THINKING_SECTION, type ThinkingConfig } from '../../../../src/detect/thinking/config.js';

/** A verbatim repeat of the previous block: as sure as text evidence gets. */
const IDENTICAL_CONFIDENCE = 0.95;
/** Connector units: one to three words ("wait", "but actually", "wait, but actually"). */
const CONNECTOR_MAX_UNITS = 3;
/** Runaway confidence starts here at the minimum streak and grows per extra round, up to the cap. */
const RUNAWAY_BASE_CONFIDENCE = 0.5;
const RUNAWAY_PER_ROUND = 0.05;

export interface UsageObservation {
  /** Reasoning tokens of the round, null when the format does not report them. */
  reasoningTokens: number | null;
  /** Visible output of the round, in tokens (estimated from its text and tool arguments). */
  visibleTokens: number;
  /** The round's reasoning is not readable (redacted, encrypted, or absent while billed). */
  opaque: boolean;
}

interface State {
  blocks: number;
  prevSet: Int32Array | null;
  prevMask: number;
  /** The previous block's normalized tail (bounded by max_block_chars), for the identity check. */
  prevText: Uint16Array;
  prevChars: number;
  norm: MarkdownNormalizer;
  tok: WordTokenizer;
  period: PeriodTracker;
  openings: OpeningTracker;
  words: number;
  breakWord: number;
  runBest: { period: number; region: number } | null;
  runMax: number;
  openBest: number;
  openMax: number;
  streak: number;
  streakTokens: number;
}

function fresh(c: ThinkingConfig, pool: ArrayPool): State {
  return {
    blocks: 0,
    prevSet: null,
    prevMask: 0,
    prevText: new Uint16Array(0),
    prevChars: 0,
    norm: new MarkdownNormalizer(pool),
    tok: new WordTokenizer(),
    period: new PeriodTracker(CONNECTOR_MAX_UNITS),
    openings: new OpeningTracker(c.connectorOpeningWindow),
    words: 0,
    breakWord: 0,
    runBest: null,
    runMax: 0,
    openBest: 0,
    openMax: 0,
    streak: 0,
    streakTokens: 0,
  };
}

export class ThinkingLoopDetector {
  readonly config: Readonly<ThinkingConfig>;
  private readonly warnings: string[] = [];
  private readonly log = new MeasurementLog('thinking');
  private st: State;
  /**
   * The block's normalized characters as codes, not a growing string: concatenated pieces are
   * rope strings that every later char read would flatten. Holds at most 2 × max_block_chars
   * before the tail is shifted down, so memory stays bounded by the comparison window.
   */
  private buf: Uint16Array;
  private len = 0;
  /** Holds the previous block (the state's prevText is a view of it): a copy per block was garbage. */
  private prevBuf: Uint16Array = new Uint16Array(0);
  private readonly sets: BlockSets;
  private readonly onWord: (w: Word) => void;
  private readonly sink: NormalizedSink;
  private readonly pool: ArrayPool;
  private released = false;

  /**
   * A parsed `thinking` section is trusted as it is; partial settings are completed and checked.
   * Detectors built one after another (a turn each) share a `pool`, so the arrays one releases
   * are the next one's.
   */
  constructor(config: Partial<ThinkingConfig> = {}, pool = new ArrayPool()) {
    this.config = completeSection(THINKING_SECTION, config, (w) => this.warnings.push(w));
    this.pool = pool;
    this.buf = pool.uint16(1024);
    this.sets = new BlockSets(pool);
    this.st = fresh(this.config, pool);
    this.onWord = (w) => this.word(w);
    this.sink = {
      text: (piece: string) => {
        const codes = new Uint16Array(piece.length);
        for (let i = 0; i < piece.length; i++) codes[i] = piece.charCodeAt(i);
        this.codes(codes, 0, codes.length);
      },
      codes: (buf, from, to) => this.codes(buf, from, to),
      boundary: () => this.st.tok.boundary(this.onWord),
      // Issue 54: dropped structure breaks connector runs and stands as one non-connector opener.
      dropped: () => {
        const s = this.st;
        s.tok.endWord(this.onWord);
        if (s.breakWord !== s.words) s.openings.push(0);
        s.breakWord = s.words;
      },
    };
  }

  private codes(piece: Uint16Array, start: number, end: number): void {
    this.st.tok.pushCodes(piece, start, end, this.onWord);
    let n = end - start;
    const max = this.config.maxBlockChars;
    let skip = start;
    if (n >= max) {
      // A piece as long as the window replaces it: only its own tail can be compared.
      skip = end - max;
      n = max;
      this.len = 0;
    }
    if (this.len + n > this.buf.length) {
      // Only the tail is compared: shift it down before growing past twice the window.
      if (this.len > max) {
        this.buf.copyWithin(0, this.len - max, this.len);
        this.len = max;
      }
      if (this.len + n > this.buf.length) {
        let size = this.buf.length * 2;
        while (size < this.len + n) size *= 2;
        const next = this.pool.uint16(size);
        next.set(this.buf.subarray(0, this.len));
        this.pool.give(this.buf);
        this.buf = next;
      }
    }
    this.buf.set(piece.subarray(skip, end), this.len);
    this.len += end - skip;
  }

  configWarnings(): readonly string[] {
    return this.warnings;
  }

  /** A completed, readable thinking block. */
  feedBlock(text: string): Finding[] {
    this.live();
    const s = this.st;
    const c = this.config;
    const out: Finding[] = [];
    s.blocks++;
    this.len = 0;
    // Runs are inside one block ("ok" closing every block is no stall); openings carry over.
    s.period.reset();
    s.norm.push(text, this.sink);
    s.norm.boundary(this.sink);
    const from = Math.max(0, this.len - c.maxBlockChars);
    const normLen = this.len - from;

    // Adjacent-block similarity; blocks too short to say anything neither compare nor replace.
    if (normLen >= c.minBlockChars) {
      const norm = this.buf.subarray(from, this.len);
      const mask = blockMask(normLen);
      const set = this.sets.set(norm, mask);
      if (s.prevSet) {
        const identical = sameCodes(norm, s.prevText);
        // Two blocks are compared at the coarser of their two samplings (the masks nest).
        const sim = identical ? 1 : this.sets.similarityToLast(set, mask, s.prevSet, s.prevMask);
        const m = this.log.record('thinking_stagnation', 'similarity', sim, c.similarityAmbiguous);
        if (sim >= c.similarityAmbiguous) {
          const ambiguous = !identical && sim < c.similarityStrong;
          const crossed = [m];
          if (!ambiguous) crossed.push(this.log.record('thinking_stagnation', 'similarity', sim, c.similarityStrong));
          const f = finding(
            'thinking',
            'thinking_stagnation',
            identical ? IDENTICAL_CONFIDENCE : Math.min(MAX_CONFIDENCE, sim),
            {
              similarity: Math.round(sim * 1000) / 1000,
              identical,
              block_chars: normLen,
              previous_chars: s.prevChars,
              block: s.blocks,
            },
            crossed,
            [String.fromCharCode(...norm.subarray(0, 80))],
            ambiguous,
          );
          // A block that is the previous one verbatim is a loop filling the round's reasoning.
          f.dominant = identical;
          out.push(f);
        }
      }
      s.prevSet = set;
      s.prevMask = mask;
      s.prevText = this.keep(norm);
      s.prevChars = normLen;
    }

    // Connector stalling inside the block (runs within the block; openings across the turn's blocks).
    if (s.runMax > 0) this.log.note('connector_stalling', 'run_repeats', s.runMax, c.connectorMinRepeats);
    if (s.openMax > 0) this.log.note('connector_stalling', 'openings', s.openMax, c.connectorOpeningMin);
    if (s.runBest) {
      const reps = Math.floor(s.runBest.region / s.runBest.period);
      const m = this.log.record('connector_stalling', 'run_repeats', reps, c.connectorMinRepeats);
      out.push(
        finding(
          'thinking',
          'connector_stalling',
          CONNECTOR_RUN_CONFIDENCE,
          { pattern: 'run', period_units: s.runBest.period, repeats: reps, run_words: s.runBest.region, block: s.blocks },
          [m],
          [],
        ),
      );
    } else if (s.openBest > 0) {
      const m = this.log.record('connector_stalling', 'openings', s.openBest, c.connectorOpeningMin);
      out.push(
        finding(
          'thinking',
          'connector_stalling',
          CONNECTOR_OPENING_CONFIDENCE,
          { pattern: 'openings', openings: s.openBest, window_sentences: c.connectorOpeningWindow, block: s.blocks },
          [m],
          [],
        ),
      );
    }
    s.runBest = null;
    s.runMax = 0;
    s.openBest = 0;
    s.openMax = 0;
    return out;
  }

  /** One round's usage: the bypass for reasoning that cannot be read. */
  observeUsage(u: UsageObservation): Finding[] {
    const s = this.st;
    const c = this.config;
    if (!u.opaque || u.reasoningTokens === null || u.reasoningTokens <= 0) {
      // Readable reasoning is judged by its text; a round without figures breaks the streak.
      s.streak = 0;
      s.streakTokens = 0;
      return [];
    }
    const visible = Math.max(1, u.visibleTokens);
    const ratio = u.reasoningTokens / visible;
    const mRatio = this.log.record('reasoning_runaway', 'reasoning_to_visible', ratio, c.runawayMinRatio);
    if (ratio < c.runawayMinRatio) {
      s.streak = 0;
      s.streakTokens = 0;
      return [];
    }
    s.streak++;
    s.streakTokens += u.reasoningTokens;
    const mTokens = this.log.record('reasoning_runaway', 'streak_reasoning_tokens', s.streakTokens, c.runawayMinReasoningTokens);
    const mRounds = this.log.record('reasoning_runaway', 'streak_rounds', s.streak, c.runawayMinRounds);
    if (s.streak < c.runawayMinRounds || s.streakTokens < c.runawayMinReasoningTokens) return [];
    const confidence = Math.min(
      c.runawayConfidenceCap,
      RUNAWAY_BASE_CONFIDENCE + RUNAWAY_PER_ROUND * (s.streak - c.runawayMinRounds),
    );
    return [
      finding(
        'thinking',
        'reasoning_runaway',
        confidence,
        {
          reasoning_tokens: u.reasoningTokens,
          visible_tokens: u.visibleTokens,
          ratio: Math.round(ratio * 10) / 10,
          streak_rounds: s.streak,
          streak_reasoning_tokens: s.streakTokens,
          confidence_cap: c.runawayConfidenceCap,
          opaque: true,
        },
        [mRatio, mTokens, mRounds],
        [],
      ),
    ];
  }

  takeMeasurements() {
    return this.log.take();
  }

  reset(): void {
    this.live();
    this.st.norm.release();
    this.st = fresh(this.config, this.pool);
    this.len = 0;
    this.log.take();
  }

  /** Hand the buffers to the pool for the next detector's; this one must not be used again. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.st.norm.release();
    this.sets.release();
    this.pool.give(this.buf, this.prevBuf);
  }

  /** Arrays released are someone else's now: using this detector would corrupt theirs. */
  private live(): void {
    if (this.released) throw new Error('thinking detector used after release()');
  }

  /** `norm` copied into prevBuf (grown by doubling), as a view of its length. */
  private keep(norm: Uint16Array): Uint16Array {
    if (this.prevBuf.length < norm.length) {
      let size = Math.max(1024, this.prevBuf.length);
      while (size < norm.length) size *= 2;
      this.pool.give(this.prevBuf);
      this.prevBuf = this.pool.uint16(size);
    }
    this.prevBuf.set(norm);
    return this.prevBuf.subarray(0, norm.length);
  }

  snapshot(): unknown {
    this.live();
    const s = this.st;
    return encodeState({
      v: 1,
      scalars: { ...s, norm: undefined, tok: undefined, period: undefined, openings: undefined },
      norm: { ...s.norm },
      tok: { ...s.tok },
      period: { ...s.period },
      openings: { ...s.openings },
      measurements: this.log.entries(),
    });
  }

  restore(snapshot: unknown): void {
    const o = snapshot as Record<string, unknown>;
    if (!o || typeof o !== 'object' || o['v'] !== 1) throw new Error('not a thinking detector snapshot');
    this.live();
    const s = fresh(this.config, this.pool);
    const scalars = { ...(o['scalars'] as Record<string, unknown>) };
    for (const k of ['norm', 'tok', 'period', 'openings']) delete scalars[k];
    assignState(s, scalars);
    assignState(s.norm, o['norm']);
    assignState(s.tok, o['tok']);
    assignState(s.period, o['period']);
    assignState(s.openings, o['openings']);
    this.st = s;
    this.log.load((o['measurements'] as Parameters<MeasurementLog['load']>[0]) ?? []);
  }

  private word(w: Word): void {
    const s = this.st;
    const c = this.config;
    const n = s.words++;
    const p = s.period.push(w.hash);
    if (p > 0 && s.period.allConnectors(p)) {
      const region = Math.min(s.period.regionWords(p), n - s.breakWord + 1);
      const reps = Math.floor(region / p);
      if (reps > s.runMax) s.runMax = reps;
      if (reps >= c.connectorMinRepeats && (!s.runBest || region >= s.runBest.region)) s.runBest = { period: p, region };
    }
    if (w.sentenceStart) {
      const conn = isConnectorHash(w.hash);
      const same = s.openings.push(conn ? w.hash : 0);
      if (same > s.openMax) s.openMax = same;
      if (conn && same >= c.connectorOpeningMin && same >= s.openBest) s.openBest = same;
    }
  }
}

function sameCodes(a: Uint16Array, b: Uint16Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
