// Exact-block index: a rolling window of k word hashes folded into one 52-bit key per position,
// counted over a bounded window of words. A position whose key has been seen before tells how
// often this k-word run occurred and where the last two copies were (the period). Runs of such
// positions are verbatim blocks of any length: the period has no upper bound but the window.
// The counts live in an open-addressing table of typed arrays: one allocation per growth, not
// one object per word, which is what keeps the per-word cost flat.

import { HIGH_MASK } from './hash.js';
import { ArrayPool } from './pool.js';
import { INITIAL_RING, slotOf } from './ring.js';

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
  /**
   * Key of the shingle ending at each word index (ring over the window, grown on demand), as its
   * low 32 bits and its high 20 bits; high -1: none. Keys are two int32 halves, not one 52-bit
   * double: hashing and comparing doubles above 2^32 went through slow conversions per word.
   */
  keysLo: Int32Array;
  keysHi: Int32Array;
  /** Open-addressing table: key halves (high -1 empty), occurrences, last and previous word. */
  tLo: Int32Array;
  tHi: Int32Array;
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
  /** #private: a snapshot (a spread of the fields) leaves it out. */
  readonly #pool: ArrayPool;

  constructor(k: number, capacity: number, pool = new ArrayPool()) {
    this.k = k;
    this.capacity = capacity;
    this.#pool = pool;
    this.words = new Int32Array(k);
    const ring = Math.min(capacity, INITIAL_RING);
    this.keysLo = pool.int32(ring);
    this.keysHi = pool.int32(ring, -1);
    this.tLo = pool.int32(INITIAL_SLOTS);
    this.tHi = pool.int32(INITIAL_SLOTS, -1);
    this.tCount = pool.int32(INITIAL_SLOTS);
    this.tLast = pool.int32(INITIAL_SLOTS);
    this.tPrev = pool.int32(INITIAL_SLOTS);
    this.out1 = power(K1, k);
    this.out2 = power(K2, k);
  }

  /** Hand the ring and table to the pool; this index is not used again. */
  release(): void {
    this.#pool.give(this.keysLo, this.keysHi, this.tLo, this.tHi, this.tCount, this.tLast, this.tPrev);
  }

  push(hash: number): void {
    const n = this.count;
    const wslot = slotOf(n, this.k);
    const old = n >= this.k ? this.words[wslot]! : 0;
    this.words[wslot] = hash | 0;
    this.h1 = (Math.imul(this.h1, K1) + (hash | 0) - Math.imul(old, this.out1)) | 0;
    this.h2 = (Math.imul(this.h2, K2) + (hash | 0) - Math.imul(old, this.out2)) | 0;
    this.count = n + 1;
    if (n >= this.keysLo.length && this.keysLo.length < this.capacity) {
      const size = Math.min(this.capacity, this.keysLo.length * 2);
      this.keysLo = growRing32(this.keysLo, n, size, 0, this.#pool);
      this.keysHi = growRing32(this.keysHi, n, size, -1, this.#pool);
    }
    const slot = slotOf(n, this.keysLo.length);
    // The word leaving the window takes its shingle's count with it.
    const leavingHi = this.keysHi[slot]!;
    if (leavingHi !== -1) {
      const at = this.find(this.keysLo[slot]!, leavingHi);
      if (at >= 0 && --this.tCount[at]! <= 0) this.remove(at);
      this.keysHi[slot] = -1;
    }
    this.occurrences = 0;
    this.period = 0;
    this.previous = -1;
    this.beforePrevious = -1;
    if (n + 1 < this.k) return;
    const lo = this.h1;
    const hi = this.h2 & HIGH_MASK;
    this.keysLo[slot] = lo;
    this.keysHi[slot] = hi;
    // One probe finds the key or the empty slot it would take (where insert would put it).
    const tLo = this.tLo;
    const tHi = this.tHi;
    const mask = tLo.length - 1;
    let at = this.home(lo, hi);
    for (let h = tHi[at]!; h !== -1 && (h !== hi || tLo[at] !== lo); h = tHi[at]!) at = (at + 1) & mask;
    if (tHi[at] !== -1) {
      const last = this.tLast[at]!;
      this.occurrences = ++this.tCount[at]!;
      this.period = n - last;
      this.previous = last;
      this.beforePrevious = this.tPrev[at]!;
      this.tPrev[at] = last;
      this.tLast[at] = n;
    } else {
      if ((this.used + 1) * 2 > tLo.length) this.insert(lo, hi, n);
      else this.place(at, lo, hi, n);
      this.occurrences = 1;
    }
  }

  private home(lo: number, hi: number): number {
    return (Math.imul(lo ^ hi, SLOT_MIX) >>> 7) & (this.tLo.length - 1);
  }

  private find(lo: number, hi: number): number {
    const mask = this.tLo.length - 1;
    const tLo = this.tLo;
    const tHi = this.tHi;
    for (let i = this.home(lo, hi); ; i = (i + 1) & mask) {
      const h = tHi[i]!;
      if (h === -1) return -1;
      if (h === hi && tLo[i] === lo) return i;
    }
  }

  private insert(lo: number, hi: number, n: number): void {
    // Load stays at most one half, so probes stay short.
    if ((this.used + 1) * 2 > this.tLo.length) this.rehash(this.tLo.length * 2);
    const mask = this.tLo.length - 1;
    let i = this.home(lo, hi);
    while (this.tHi[i] !== -1) i = (i + 1) & mask;
    this.place(i, lo, hi, n);
  }

  private place(i: number, lo: number, hi: number, n: number): void {
    this.tLo[i] = lo;
    this.tHi[i] = hi;
    this.tCount[i] = 1;
    this.tLast[i] = n;
    this.tPrev[i] = -1;
    this.used++;
  }

  /** Backward-shift deletion: later entries of the probe run move up, so no tombstones remain. */
  private remove(at: number): void {
    const mask = this.tLo.length - 1;
    let hole = at;
    for (let j = (at + 1) & mask; this.tHi[j] !== -1; j = (j + 1) & mask) {
      const h = this.home(this.tLo[j]!, this.tHi[j]!);
      if (((j - h) & mask) >= ((j - hole) & mask)) {
        this.tLo[hole] = this.tLo[j]!;
        this.tHi[hole] = this.tHi[j]!;
        this.tCount[hole] = this.tCount[j]!;
        this.tLast[hole] = this.tLast[j]!;
        this.tPrev[hole] = this.tPrev[j]!;
        hole = j;
      }
    }
    this.tHi[hole] = -1;
    this.used--;
  }

  private rehash(size: number): void {
    const { tLo, tHi, tCount, tLast, tPrev } = this;
    const pool = this.#pool;
    this.tLo = pool.int32(size);
    this.tHi = pool.int32(size, -1);
    this.tCount = pool.int32(size);
    this.tLast = pool.int32(size);
    this.tPrev = pool.int32(size);
    const mask = size - 1;
    for (let s = 0; s < tLo.length; s++) {
      const hi = tHi[s]!;
      if (hi === -1) continue;
      const lo = tLo[s]!;
      let i = this.home(lo, hi);
      while (this.tHi[i] !== -1) i = (i + 1) & mask;
      this.tLo[i] = lo;
      this.tHi[i] = hi;
      this.tCount[i] = tCount[s]!;
      this.tLast[i] = tLast[s]!;
      this.tPrev[i] = tPrev[s]!;
    }
    pool.give(tLo, tHi, tCount, tLast, tPrev);
  }
}

/** `growRing` for int32 rings, empty slots holding `fill`. */
function growRing32(ring: Int32Array, count: number, size: number, fill: number, pool: ArrayPool): Int32Array {
  const out = pool.int32(size, fill);
  const from = Math.max(0, count - ring.length);
  for (let i = from; i < count; i++) out[i % size] = ring[i % ring.length]!;
  pool.give(ring);
  return out;
}
