// The thinking loop detector of seed 002: completed thinking blocks and per-round usage in,
// findings out. Readable blocks are compared with the previous one (stagnation; an identical
// block is stagnation with identical=true, as the seed folds it into adjacent-block similarity)
// and scanned for connector stalling. Opaque reasoning (redacted or encrypted) can only be judged
// by its usage: reasoning tokens growing against tiny visible output, capped so it only steers.
// Every text finding is evidence of the block just fed, so a later short or unrelated block never
// re-reports an earlier stagnant pair (the ladder would count that as an unheeded steer): a block
// too short to compare neither compares nor replaces the previous one, runs restart per block,
// and an openings finding needs a connector opener in the block itself.

import type { Finding } from '../types.js';
import { MeasurementLog } from '../text/finding.js';
import { blockMask, BlockSets } from '../text/ngram.js';
import type { NormalizedSink } from '../text/normalize.js';
import { ArrayPool } from '../text/pool.js';
import { dropStructure, RoundOpenings } from '../text/period.js';
import type { Word } from '../text/tokens.js';
import { completeSection } from '../../config/section.js';
import { BlockBuffer } from './block.js';
import { THINKING_SECTION, type ThinkingConfig } from './config.js';
import { reasoningRunaway, type UsageObservation } from './runaway.js';
import { connectorStalling } from './stalling.js';
import { thinkingStagnation } from './stagnation.js';
import { decodeSnapshot, encodeSnapshot, freshState, isSnapshot, type State, trackWord } from './state.js';

export type { UsageObservation } from './runaway.js';

export class ThinkingLoopDetector {
  readonly config: Readonly<ThinkingConfig>;
  private readonly warnings: string[] = [];
  private readonly log = new MeasurementLog('thinking');
  private st: State;
  private readonly block: BlockBuffer;
  private readonly sets: BlockSets;
  private readonly onWord: (w: Word) => void;
  private readonly ownOpenings = new RoundOpenings();
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
    this.block = new BlockBuffer(this.config.maxBlockChars, pool);
    this.sets = new BlockSets(pool);
    this.st = freshState(this.config, pool);
    this.onWord = (w) => {
      trackWord(this.st, this.config, w);
      if (w.sentenceStart) this.ownOpenings.see(this.st.openings, w.hash);
    };
    this.sink = {
      text: (piece: string) => {
        const codes = new Uint16Array(piece.length);
        for (let i = 0; i < piece.length; i++) codes[i] = piece.charCodeAt(i);
        this.codes(codes, 0, codes.length);
      },
      codes: (buf, from, to) => this.codes(buf, from, to),
      boundary: () => this.st.tok.boundary(this.onWord),
      dropped: () => {
        this.st.breakWord = dropStructure(this.st, this.onWord, this.st.breakWord);
      },
    };
  }

  private codes(piece: Uint16Array, start: number, end: number): void {
    this.st.tok.pushCodes(piece, start, end, this.onWord);
    this.block.append(piece, start, end);
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
    this.block.clear();
    // Runs are inside one block ("ok" closing every block is no stall); openings carry over.
    s.period.reset();
    s.norm.push(text, this.sink);
    s.norm.boundary(this.sink);
    const norm = this.block.tail();
    // Adjacent-block similarity; blocks too short to say anything neither compare nor replace.
    if (norm.length >= c.minBlockChars) {
      const mask = blockMask(norm.length);
      const set = this.sets.set(norm, mask);
      const stagnant = thinkingStagnation(s, c, this.log, this.sets, norm, set, mask);
      if (stagnant) out.push(stagnant);
      s.prevSet = set;
      s.prevMask = mask;
      s.prevText = this.block.keep(norm);
      s.prevChars = norm.length;
    }
    const stalled = connectorStalling(s, c, this.log);
    if (stalled) out.push(stalled);
    return out;
  }

  /** A round begins: sentence openings from here on are its own. */
  beginRound(): void {
    this.live();
    this.ownOpenings.begin(this.st.openings);
  }

  /** Whether the round's own reasoning holds too few of one connector's openings to cross the bar. */
  openingsCarried(): boolean {
    return this.ownOpenings.carried(this.config.connectorOpeningMin);
  }

  /** One round's usage: the bypass for reasoning that cannot be read. */
  observeUsage(u: UsageObservation): Finding[] {
    return reasoningRunaway(this.st, this.config, this.log, u);
  }

  takeMeasurements() {
    return this.log.take();
  }

  reset(): void {
    this.live();
    this.st.norm.release();
    this.st = freshState(this.config, this.pool);
    this.block.clear();
    this.log.take();
  }

  /** Hand the buffers to the pool for the next detector's; this one must not be used again. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.st.norm.release();
    this.sets.release();
    this.block.release();
  }

  /** Arrays released are someone else's now: using this detector would corrupt theirs. */
  private live(): void {
    if (this.released) throw new Error('thinking detector used after release()');
  }

  snapshot(): unknown {
    this.live();
    return encodeSnapshot(this.st, this.log);
  }

  restore(snapshot: unknown): void {
    if (!isSnapshot(snapshot)) throw new Error('not a thinking detector snapshot');
    this.live();
    const { state, measurements } = decodeSnapshot(snapshot, this.config, this.pool);
    this.st = state;
    this.log.load(measurements);
  }
}
