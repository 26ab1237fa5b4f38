// Short periods over word units: for each period p in 1..maxUnits, how long the stream has
// matched itself p words back. "la la la" is period 1, "wait, but actually, wait, but actually"
// period 3. Constant work per word, so chanting is found without any window scan.

import { isConnectorHash } from './connectors.js';
import { slotOf } from './ring.js';
import type { WordSink, WordTokenizer } from './tokens.js';

export class PeriodTracker {
  readonly maxUnits: number;
  /** Ring of the last maxUnits+1 word hashes and whether each is a connector. */
  hashes: Int32Array;
  conn: Uint8Array;
  /** run[p]: consecutive words equal to the word p back. */
  run: Int32Array;
  count = 0;

  constructor(maxUnits: number) {
    this.maxUnits = maxUnits;
    this.hashes = new Int32Array(maxUnits + 1);
    this.conn = new Uint8Array(maxUnits + 1);
    this.run = new Int32Array(maxUnits + 1);
  }

  /** Back to empty, in place (a fresh tracker per thinking block was an allocation per block). */
  reset(): void {
    this.hashes.fill(0);
    this.conn.fill(0);
    this.run.fill(0);
    this.count = 0;
  }

  /**
   * Add a word. Returns the period (0 when none) whose repeated region ending here is longest,
   * the smallest period on ties; `regionWords()` and `allConnectors()` describe it.
   */
  push(hash: number): number {
    const size = this.maxUnits + 1;
    const n = this.count;
    const slot = slotOf(n, size);
    this.hashes[slot] = hash | 0;
    this.conn[slot] = isConnectorHash(hash) ? 1 : 0;
    let best = 0;
    let bestRegion = 0;
    const hashes = this.hashes;
    const run = this.run;
    const x = hash | 0;
    // The slot p words back, stepped down from this one (no division per period).
    let back = slot;
    for (let p = 1; p <= this.maxUnits; p++) {
      back = back === 0 ? size - 1 : back - 1;
      if (n >= p && hashes[back] === x) run[p]!++;
      else run[p] = 0;
      const r = run[p]!;
      if (r > 0 && r + p > bestRegion) {
        bestRegion = r + p;
        best = p;
      }
    }
    this.count = n + 1;
    return best;
  }

  /** Words in the repeated region of period p ending at the last word. */
  regionWords(p: number): number {
    return this.run[p]! + p;
  }

  /** Whether the unit (the last p words) is made only of connectors. */
  allConnectors(p: number): boolean {
    const size = this.maxUnits + 1;
    const n = this.count;
    for (let k = 1; k <= p; k++) if (this.conn[(n - k) % size] !== 1) return false;
    return true;
  }
}

/**
 * Sentence openers over the last `window` sentences: how often the same connector opens them
 * ("Wait, … Wait, … Wait, …"). Non-connector openers count as 0 and never match.
 */
export class OpeningTracker {
  ring: Int32Array;
  count = 0;

  constructor(window: number) {
    this.ring = new Int32Array(window);
  }

  /** Record an opener (its hash if a connector, else 0); returns how many of the window match it. */
  push(connectorHash: number): number {
    const w = this.ring.length;
    this.ring[slotOf(this.count, w)] = connectorHash | 0;
    this.count++;
    if (connectorHash === 0) return 0;
    let same = 0;
    const filled = Math.min(this.count, w);
    for (let i = 0; i < filled; i++) if (this.ring[i] === (connectorHash | 0)) same++;
    return same;
  }

  /** How many openers pushed since `mark` (a past `count`), still in the window, are `connectorHash`. */
  since(mark: number, connectorHash: number): number {
    const w = this.ring.length;
    let same = 0;
    for (let k = Math.max(mark, this.count - w); k < this.count; k++) if (this.ring[slotOf(k, w)] === (connectorHash | 0)) same++;
    return same;
  }
}

/**
 * How many of the openings one round holds itself: the most sentences of this round still in the
 * tracker's window that one connector opens. Fewer than the bar means an openings finding leans on
 * earlier rounds (issue 54 item 5). Not part of a snapshot: a round is begun and judged in one call.
 */
export class RoundOpenings {
  private mark = 0;
  private ownMax = 0;

  begin(openings: OpeningTracker): void {
    this.mark = openings.count;
    this.ownMax = 0;
  }

  /** After a sentence opener was pushed to `openings`. */
  see(openings: OpeningTracker, hash: number): void {
    if (!isConnectorHash(hash)) return;
    const own = openings.since(this.mark, hash);
    if (own > this.ownMax) this.ownMax = own;
  }

  carried(min: number): boolean {
    return this.ownMax < min;
  }
}

/**
 * A line of structure (list item, heading, fence, table row, tree) was dropped between two words:
 * the open word ends there, and in the openings' window the stretch stands as one sentence opened
 * by no connector. Returns the index of the first word after it, which no connector run spans.
 */
export function dropStructure(s: { readonly tok: WordTokenizer; readonly openings: OpeningTracker; readonly words: number }, onWord: WordSink, lastBreak: number): number {
  s.tok.endWord(onWord);
  if (lastBreak !== s.words) s.openings.push(0);
  return s.words;
}
