// Exact-block index: a rolling window of k word hashes folded into one 52-bit key per position,
// counted over a bounded window of words. A position whose key has been seen before tells how
// often this k-word run occurred and where the last two copies were (the period). Runs of such
// positions are verbatim blocks of any length: the period has no upper bound but the window.
// The counts live in an open-addressing table of typed arrays: one allocation per growth, not
// one object per word, which is what keeps the per-word cost flat.

import { HIGH_MASK, TWO_POW_32 } from './hash.js';
import { growRing, INITIAL_RING } from './ring.js';

/** Bases of the two independent rolling polynomial hashes (odd, well-mixed constants). */
const K1 = 0x9e3779b1;
const K2 = 0x85ebca77;
/** Multiplier that spreads a key over the table's slots. */
const SLOT_MIX = 0x2c1b3c6d;
/** Initial table slots (a power of two). */
const INITIAL_SLOTS = 512;

function power(base: number, k: number): number {
  let x = 1;
  for (let i = 0; i < k; i++) x = Math.imul(x, base);
  return x;
}

export class ShingleIndex {
  readonly k: number;
  readonly capacity: number;
  /** Last k word hashes (ring). */
  words: Int32Array;
  /** Key of the shingle ending at each word index (ring over the window, grown on demand); NaN: none. */
  keys: Float64Array;
  /** Open-addressing table: key (NaN empty), occurrences in the window, last and previous word. */
  tKey: Float64Array;
  tCount: Int32Array;
  tLast: Int32Array;
  tPrev: Int32Array;
  /** Distinct shingles held. */
  used = 0;
  count = 0;
  /** Rolling hashes of the last k words. */
  h1 = 0;
  h2 = 0;
  /** Set by push(): occurrences of the current shingle including this one, and its period. */
  occurrences = 0;
  period = 0;
  /** Word indexes of the two previous occurrences' shingle ends (-1: none). */
  previous = -1;
  beforePrevious = -1;
  private readonly out1: number;
  private readonly out2: number;

  constructor(k: number, capacity: number) {
    this.k = k;
    this.capacity = capacity;
    this.words = new Int32Array(k);
    this.keys = new Float64Array(Math.min(capacity, INITIAL_RING)).fill(Number.NaN);
    this.tKey = new Float64Array(INITIAL_SLOTS).fill(Number.NaN);
    this.tCount = new Int32Array(INITIAL_SLOTS);
    this.tLast = new Int32Array(INITIAL_SLOTS);
    this.tPrev = new Int32Array(INITIAL_SLOTS);
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
    if (n >= this.keys.length && this.keys.length < this.capacity) {
      this.keys = growRing(this.keys, n, Math.min(this.capacity, this.keys.length * 2), Number.NaN);
    }
    const slot = n % this.keys.length;
    // The word leaving the window takes its shingle's count with it.
    const leaving = this.keys[slot]!;
    if (!Number.isNaN(leaving)) {
      const at = this.find(leaving);
      if (at >= 0 && --this.tCount[at]! <= 0) this.remove(at);
      this.keys[slot] = Number.NaN;
    }
    this.occurrences = 0;
    this.period = 0;
    this.previous = -1;
    this.beforePrevious = -1;
    if (n + 1 < this.k) return;
    const key = (this.h1 >>> 0) + ((this.h2 >>> 0) & HIGH_MASK) * TWO_POW_32;
    this.keys[slot] = key;
    const at = this.find(key);
    if (at >= 0) {
      const last = this.tLast[at]!;
      this.occurrences = ++this.tCount[at]!;
      this.period = n - last;
      this.previous = last;
      this.beforePrevious = this.tPrev[at]!;
      this.tPrev[at] = last;
      this.tLast[at] = n;
    } else {
      this.insert(key, n);
      this.occurrences = 1;
    }
  }

  private home(key: number): number {
    const mask = this.tKey.length - 1;
    return (Math.imul((key | 0) ^ Math.floor(key / TWO_POW_32), SLOT_MIX) >>> 7) & mask;
  }

  private find(key: number): number {
    const mask = this.tKey.length - 1;
    for (let i = this.home(key); ; i = (i + 1) & mask) {
      const k = this.tKey[i]!;
      if (k === key) return i;
      if (Number.isNaN(k)) return -1;
    }
  }

  private insert(key: number, n: number): void {
    // Load stays at most one half, so probes stay short.
    if ((this.used + 1) * 2 > this.tKey.length) this.rehash(this.tKey.length * 2);
    const mask = this.tKey.length - 1;
    let i = this.home(key);
    while (!Number.isNaN(this.tKey[i]!)) i = (i + 1) & mask;
    this.tKey[i] = key;
    this.tCount[i] = 1;
    this.tLast[i] = n;
    this.tPrev[i] = -1;
    this.used++;
  }

  /** Backward-shift deletion: later entries of the probe run move up, so no tombstones remain. */
  private remove(at: number): void {
    const mask = this.tKey.length - 1;
    let hole = at;
    for (let j = (at + 1) & mask; !Number.isNaN(this.tKey[j]!); j = (j + 1) & mask) {
      const h = this.home(this.tKey[j]!);
      if (((j - h) & mask) >= ((j - hole) & mask)) {
        this.tKey[hole] = this.tKey[j]!;
        this.tCount[hole] = this.tCount[j]!;
        this.tLast[hole] = this.tLast[j]!;
        this.tPrev[hole] = this.tPrev[j]!;
        hole = j;
      }
    }
    this.tKey[hole] = Number.NaN;
    this.used--;
  }

  private rehash(size: number): void {
    const { tKey, tCount, tLast, tPrev } = this;
    this.tKey = new Float64Array(size).fill(Number.NaN);
    this.tCount = new Int32Array(size);
    this.tLast = new Int32Array(size);
    this.tPrev = new Int32Array(size);
    const mask = size - 1;
    for (let s = 0; s < tKey.length; s++) {
      const key = tKey[s]!;
      if (Number.isNaN(key)) continue;
      let i = this.home(key);
      while (!Number.isNaN(this.tKey[i]!)) i = (i + 1) & mask;
      this.tKey[i] = key;
      this.tCount[i] = tCount[s]!;
      this.tLast[i] = tLast[s]!;
      this.tPrev[i] = tPrev[s]!;
    }
  }
}
