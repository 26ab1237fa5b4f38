// Exact-block index: a rolling window of k word hashes folded into one 52-bit key per position,
// counted over a bounded window of words. A position whose key has been seen before tells how
// often this k-word run occurred and how far back the last copy was (the period). Runs of such
// positions are verbatim blocks of any length: the period has no upper bound but the window.

import { HIGH_MASK, TWO_POW_32 } from './hash.js';

/** Multipliers for the two independent folds (odd, well-mixed constants). */
const K1 = 0x9e3779b1;
const K2 = 0x85ebca77;

export interface ShingleEntry {
  c: number;
  last: number;
  /** The occurrence before `last` (-1: none). */
  prev: number;
}

export class ShingleIndex {
  readonly k: number;
  readonly capacity: number;
  /** Last k word hashes (ring). */
  words: Int32Array;
  /** Key of the shingle ending at each word index (ring over the window); NaN: none. */
  keys: Float64Array;
  map = new Map<number, ShingleEntry>();
  count = 0;
  /** Set by push(): occurrences of the current shingle including this one, and its period. */
  occurrences = 0;
  period = 0;
  /** Word indexes of the two previous occurrences' shingle ends (-1: none). */
  previous = -1;
  beforePrevious = -1;

  constructor(k: number, capacity: number) {
    this.k = k;
    this.capacity = capacity;
    this.words = new Int32Array(k);
    this.keys = new Float64Array(capacity).fill(Number.NaN);
  }

  push(hash: number): void {
    const n = this.count;
    this.words[n % this.k] = hash | 0;
    this.count = n + 1;
    const slot = n % this.capacity;
    // The word leaving the window takes its shingle's count with it.
    const old = this.keys[slot]!;
    if (!Number.isNaN(old)) {
      const e = this.map.get(old);
      if (e) {
        e.c--;
        if (e.c <= 0) this.map.delete(old);
      }
      this.keys[slot] = Number.NaN;
    }
    this.occurrences = 0;
    this.period = 0;
    this.previous = -1;
    this.beforePrevious = -1;
    if (n + 1 < this.k) return;
    let h1 = 0;
    let h2 = 0;
    for (let i = n + 1 - this.k; i <= n; i++) {
      const w = this.words[i % this.k]!;
      h1 = Math.imul(h1 ^ w, K1);
      h2 = Math.imul(h2 + w, K2) ^ (h2 >>> 15);
    }
    const key = (h1 >>> 0) + ((h2 >>> 0) & HIGH_MASK) * TWO_POW_32;
    this.keys[slot] = key;
    const e = this.map.get(key);
    if (e) {
      e.c++;
      this.period = n - e.last;
      this.previous = e.last;
      this.beforePrevious = e.prev;
      e.prev = e.last;
      e.last = n;
      this.occurrences = e.c;
    } else {
      this.map.set(key, { c: 1, last: n, prev: -1 });
      this.occurrences = 1;
    }
  }
}
