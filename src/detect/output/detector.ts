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

import type { Finding } from '../types.js';
import { MeasurementLog } from '../text/finding.js';
import { lzRedundancy } from '../text/lz.js';
import type { NormalizedSink } from '../text/normalize.js';
import { ArrayPool } from '../text/pool.js';
import { dropStructure, RoundOpenings } from '../text/period.js';
import type { Word } from '../text/tokens.js';
import { completeSection } from '../../config/section.js';
import { OUTPUT_SECTION, type OutputConfig } from './config.js';
import { runPass } from './pass.js';
import { decodeSnapshot, encodeSnapshot, isSnapshot } from './snapshot.js';
import { freshState, releaseState, type State } from './state.js';
import { keepText, tail } from './window.js';
import { trackWord } from './words.js';

export { PROMOTED_CONFIDENCE } from './rules/near-repetition.js';

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
  private readonly ownOpenings = new RoundOpenings();
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
      dropped: () => {
        this.st.cnBreakWord = dropStructure(this.st, this.onWord, this.st.cnBreakWord);
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
    this.onWord = (w) => {
      trackWord(this.st, this.config, this.pool, w);
      if (w.sentenceStart) this.ownOpenings.see(this.st.openings, w.hash);
    };
    this.reset();
  }

  /** What the section's repairs changed in the configuration this detector was given. */
  configWarnings(): readonly string[] {
    return this.warnings;
  }

  /** A round (segment) begins: sentence openings from here on are its own. */
  beginRound(): void {
    this.live();
    this.ownOpenings.begin(this.st.openings);
  }

  /** Whether the round's own text holds too few of one connector's openings to cross the bar. */
  openingsCarried(): boolean {
    return this.ownOpenings.carried(this.config.connectorOpeningMin);
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
    return lzRedundancy(tail(this.st, this.config.windowChars));
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
    releaseState(s, this.pool);
  }

  /** Arrays released are someone else's now: using this detector would corrupt theirs. */
  private live(): void {
    if (this.released) throw new Error('output detector used after release()');
  }

  /** Plain JSON-able state; `restore` of it continues exactly where this left off. */
  snapshot(): unknown {
    this.live();
    return encodeSnapshot(this.st, this.config, this.log);
  }

  restore(snapshot: unknown): void {
    if (!isSnapshot(snapshot)) throw new Error('not an output detector snapshot');
    this.live();
    const { state, measurements } = decodeSnapshot(snapshot, this.config, this.pool);
    this.st = state;
    this.log.load(measurements);
  }

  private drain(): Finding[] {
    const out = this.collected;
    this.collected = [];
    return out;
  }

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
    keepText(s, buf, from, to, this.config, this.pool);
    if (s.tok.pos >= s.nextPassAt) this.pass();
  }

  private pass(): void {
    for (const f of runPass(this.st, this.config, this.log)) this.collected.push(f);
  }
}
