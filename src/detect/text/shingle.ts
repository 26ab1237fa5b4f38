// Exact-block index: a rolling window of k word hashes folded into one 52-bit key per position,
// counted over a bounded window of words. A position whose key has been seen before tells how
// often this k-word run occurred and how far back the last copy was (the period). Runs of such
// positions are verbatim blocks of any length: the period has no upper bound but the window.

import { HIGH_MASK, TWO_POW_32 } from './hash.js';

/** Bases of the two independent rolling polynomial hashes (odd, well-mixed constants). */
const K1 = 0x9e3779b1;
const K2 = 0x85ebca77;

function power(base: number, k: number): number {
  let x = 1;
  for (let i = 0; i < k; i++) x = Math.imul(x, base);
  return x;
}

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
  /** Rolling hashes of the last k words, and the bases raised to k (to remove the oldest word). */
  h1 = 0;
  h2 = 0;
  private readonly out1: number;
  private readonly out2: number;
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
    this.out1 = power(K1, k);
    this.out2 = power(K2, k);
  }

  push(hash: number): void {
    const n = this.count;
    const old = n >= this.k ? this.words[n % this.k]! : 0;
    this.words[n % this.k] = hash | 0;
    this.h1 = (Math.imul(this.h1, K1) + (hash | 0) - Math.imul(old, this.out1)) | 0;
    this.h2 = (Math.imul(this.h2, K2) + (hash | 0) - Math.imul(old, this.out2)) | 0;
    this.count = n + 1;
    const slot = n % this.capacity;
    // The word leaving the window takes its shingle's count with it.
    const leaving = this.keys[slot]!;
    if (!Number.isNaN(leaving)) {
      const e = this.map.get(leaving);
      if (e) {
        e.c--;
        if (e.c <= 0) this.map.delete(leaving);
      }
      this.keys[slot] = Number.NaN;
    }
    this.occurrences = 0;
    this.period = 0;
    this.previous = -1;
    this.beforePrevious = -1;
    if (n + 1 < this.k) return;
    const key = (this.h1 >>> 0) + ((this.h2 >>> 0) & HIGH_MASK) * TWO_POW_32;
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
