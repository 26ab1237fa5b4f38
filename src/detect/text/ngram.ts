// Character n-gram similarity. MultiScaleJaccard compares, at several window lengths L, the set
// of n-grams in the last L characters with the set in the L before, updated per character in
// constant time: a near-repeated unit of any length up to L makes the two windows share almost
// all their n-grams, whatever the alignment. blockJaccard compares two whole texts (thinking).

import { ArrayPool } from './pool.js';

/** Five characters: longer than most English syllables, short enough to survive a changed word. */
export const NGRAM_CHARS = 5;
/** Window lengths: a sentence-sized unit, a paragraph, and a ~900-token block (about 3.7k chars). */
export const JACCARD_SCALES: readonly number[] = [256, 1024, 4096];
/**
 * Samples kept per window: n-grams are kept by hash (the same n-gram is always kept or always
 * dropped, so the Jaccard estimate stays unbiased), at a rate that leaves about 64 samples in a
 * window whatever its length: ±0.06 on the estimate, a quarter of the work at the smallest scale.
 */
const SAMPLES_PER_WINDOW = 64;
/** Buckets per expected sample: ~6% of distinct samples collide, a small upward bias only. */
const BUCKETS_PER_SAMPLE = 16;
/** Multiplier of the rolling polynomial n-gram hash. */
const NG_BASE = 0x01000193;
/** NG_BASE^NGRAM_CHARS (mod 2^32): removes the character leaving the n-gram. */
const NG_BASE_OUT = (() => {
  let x = 1;
  for (let i = 0; i < NGRAM_CHARS; i++) x = Math.imul(x, NG_BASE);
  return x;
})();

/** The last characters, in a ring of 8 (>= NGRAM_CHARS) so positions wrap with a mask. */
const RING_MASK = 7;
/** Odd multiplier (golden ratio) for the cheap per-character mix. */
const MIX = 0x9e3779b1;
/** Sampling reads the hash's top bits (the best mixed of a multiplicative hash). */
const SAMPLE_SHIFT = 24;

/** Smallest power of two >= n: ring indexes and buckets become masks instead of divisions. */
function pow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/** Sampling mask for a window length: keep 1 in 2^k with 2^k ≈ len / SAMPLES_PER_WINDOW. */
function maskFor(len: number): number {
  let m = 1;
  while (m * 2 * SAMPLES_PER_WINDOW <= len) m *= 2;
  return m - 1;
}

export interface ScaleState {
  len: number;
  /** Keep an n-gram at this scale when (hash & mask) === 0; nested across scales. */
  mask: number;
  /** Bucket count of A and of B. */
  buckets: number;
  /**
   * Bucket counts, null until this scale can first be compared (2L characters seen): a turn
   * shorter than that never pays for them, and until then samples only go into the ring.
   */
  a: Uint16Array | null;
  b: Uint16Array | null;
  distinctA: number;
  distinctB: number;
  inter: number;
  /** Absolute sample index of the oldest sample in A, and in B. */
  tailA: number;
  tailB: number;
  /** Position of the newest sample (-1: none), which the windows are measured back from. */
  last: number;
}

type SampleRing = { pos: Float64Array; hash: Int32Array; count: number };

/** N-grams hashed before the kept ones go to their scales (the scratch arrays' length). */
const SCRATCH = 1024;

/** Initial ring slots: a turn's first paragraph; rings double on demand. */
const INITIAL_SAMPLES = 256;

/**
 * Per scale, a ring of its own samples (position, hash) and bucket counts for window A (the last
 * L characters) and window B (the L before). A sample only goes into its ring when it arrives;
 * the counts catch up when they are read (`jaccard`, a snapshot) or before a ring slot still in
 * their windows is overwritten. They are a function of the ring and the newest sample alone, so
 * catching up late reaches exactly the state entering every sample at once would have: a pass
 * every stride reads the smallest scale's two windows wholly new, and rebuilding them costs a
 * third of moving each sample through A and B.
 */
export class MultiScaleJaccard {
  /** Characters seen (absolute position of the next). */
  pos = 0;
  codes = new Int32Array(RING_MASK + 1);
  /** Rolling hash of the last NGRAM_CHARS characters (before mixing). */
  rolling = 0;
  /** Loosest mask of all scales: an n-gram failing it is kept by none. */
  anyMask: number;
  scales: ScaleState[];
  rings: SampleRing[];
  /** #private: a snapshot (a spread of the fields) leaves it out. */
  readonly #pool: ArrayPool;
  /** Per scale, samples [0, entered) are in its counts (meaningful once the counts exist). */
  #entered: number[];
  /** Scratch: a stretch's n-grams (hash, position), and those one scale keeps. */
  readonly #hs: Int32Array;
  readonly #ps: Float64Array;
  readonly #mh: Int32Array[];
  readonly #mp: Float64Array[];
  /** How many of the scratch samples each scale kept (-1: all of them, in #hs). */
  readonly #kept: Int32Array;

  constructor(scales: readonly number[] = JACCARD_SCALES, pool = new ArrayPool()) {
    this.#pool = pool;
    this.scales = scales.map((len) => {
      const mask = maskFor(len);
      const buckets = pow2(BUCKETS_PER_SAMPLE * Math.ceil((2 * len) / (mask + 1)));
      return { len, mask, buckets, a: null, b: null, distinctA: 0, distinctB: 0, inter: 0, tailA: 0, tailB: 0, last: -1 };
    });
    this.anyMask = Math.min(...this.scales.map((s) => s.mask));
    // Rings start small (allocation per turn was most of a short turn's cost) and grow.
    this.rings = this.scales.map(() => ({ pos: pool.float64(INITIAL_SAMPLES), hash: pool.int32(INITIAL_SAMPLES), count: 0 }));
    this.#entered = this.scales.map(() => 0);
    this.#hs = pool.int32(SCRATCH);
    this.#ps = pool.float64(SCRATCH);
    this.#mh = this.scales.map(() => pool.int32(SCRATCH));
    this.#mp = this.scales.map(() => pool.float64(SCRATCH));
    this.#kept = new Int32Array(this.scales.length);
  }

  /** Hand the rings and counts to the pool; this tracker is not used again. */
  release(): void {
    const pool = this.#pool;
    for (const ring of this.rings) pool.give(ring.pos, ring.hash);
    pool.give(this.#hs, this.#ps, ...this.#mh, ...this.#mp);
    // A scale's two count windows are the halves of one array (see materialize).
    for (const s of this.scales) if (s.a) pool.give(new Uint16Array(s.a.buffer), s.b);
  }

  /** Every scale's counts brought up to date: what a snapshot must hold. */
  settle(): void {
    for (let k = 0; k < this.scales.length; k++) if (this.scales[k]!.a !== null) this.catchUp(k);
  }

  /** After a restore (whose snapshot was settled): every sample is in the counts. */
  restored(): void {
    this.#entered = this.rings.map((r) => r.count);
  }

  push(piece: string): void {
    const codes = new Uint16Array(piece.length);
    for (let i = 0; i < piece.length; i++) codes[i] = piece.charCodeAt(i);
    this.pushCodes(codes, 0, codes.length);
  }

  /** `push` of the codes in `buf[from, to)`. */
  pushCodes(buf: Uint16Array, from: number, to: number): void {
    const codes = this.codes;
    const any = this.anyMask;
    let p = this.pos;
    let rolling = this.rolling;
    let i = from;
    // The character leaving the n-gram was seen NGRAM_CHARS positions ago: in the ring of the
    // last characters for the piece's first ones, in the piece itself after that. The first
    // characters of the stream only fill the n-gram; after that every character ends one.
    for (; i < to && i < from + NGRAM_CHARS; i++, p++) {
      const c = buf[i]!;
      rolling = (Math.imul(rolling, NG_BASE) + c - Math.imul(codes[(p - NGRAM_CHARS) & RING_MASK]!, NG_BASE_OUT)) | 0;
      if (p < NGRAM_CHARS - 1) continue;
      const h = Math.imul(rolling ^ (rolling >>> 15), MIX);
      if (((h >>> SAMPLE_SHIFT) & any) === 0) this.sample(h, p);
    }
    const hs = this.#hs;
    const ps = this.#ps;
    while (i < to) {
      const end = Math.min(to, i + SCRATCH);
      let k = 0;
      for (; i < end; i++, p++) {
        const c = buf[i]!;
        rolling = (Math.imul(rolling, NG_BASE) + c - Math.imul(buf[i - NGRAM_CHARS]!, NG_BASE_OUT)) | 0;
        // Multiplicative mixing: the high bits decide sampling and buckets. Kept int32 (the
        // samples are stored as int32 anyway): a uint32 here made the hot loop's value a double.
        const h = Math.imul(rolling ^ (rolling >>> 15), MIX);
        // Every n-gram is written and a kept one counted without a branch ((x - 1) >>> 31 is 1
        // only for x = 0): a branch taken one time in four, at random, cost more than the loop.
        hs[k] = h;
        ps[k] = p;
        k += (((h >>> SAMPLE_SHIFT) & any) - 1) >>> 31;
      }
      for (let j = 0; j < this.scales.length; j++) this.keepAll(j, k);
    }
    // The ring keeps the piece's last characters (at most its size), each at its position.
    for (let k = Math.max(from, to - RING_MASK - 1); k < to; k++) codes[(p - (to - k)) & RING_MASK] = buf[k]!;
    this.pos = p;
    this.rolling = rolling;
  }

  /** An n-gram ending at `p` that the loosest scale keeps: every scale whose mask passes takes it. */
  private sample(h: number, p: number): void {
    const scales = this.scales;
    const top = h >>> SAMPLE_SHIFT;
    for (let k = 0; k < scales.length; k++) {
      const s = scales[k]!;
      if ((top & s.mask) === 0) this.advance(k, s, this.rings[k]!, h, p);
    }
  }

  /**
   * Scale k takes its samples of the first `n` in the scratch, in order (scales are independent
   * of each other). A scale's samples are picked from the previous scale's when its mask holds
   * that one's bits (the usual nesting), else from all of them.
   */
  private keepAll(k: number, n: number): void {
    const s = this.scales[k]!;
    let hs = this.#hs;
    let ps = this.#ps;
    if (s.mask !== this.anyMask) {
      const nested = k > 0 && (this.scales[k - 1]!.mask & s.mask) === this.scales[k - 1]!.mask && this.#kept[k - 1]! >= 0;
      const mh = this.#mh[k]!;
      const mp = this.#mp[k]!;
      if (nested) {
        hs = this.#mh[k - 1]!;
        ps = this.#mp[k - 1]!;
        n = this.#kept[k - 1]!;
      }
      const mask = s.mask;
      let m = 0;
      for (let q = 0; q < n; q++) {
        const h = hs[q]!;
        mh[m] = h;
        mp[m] = ps[q]!;
        m += (((h >>> SAMPLE_SHIFT) & mask) - 1) >>> 31;
      }
      hs = mh;
      ps = mp;
      n = m;
      this.#kept[k] = m;
    } else {
      this.#kept[k] = -1;
    }
    const ring = this.rings[k]!;
    // `advance` on locals: the rare cases (counts to catch up before a slot is reused, a ring
    // to grow, counts to create) take the general path.
    let pos = ring.pos;
    let hash = ring.hash;
    let rm = pos.length - 1;
    let idx = ring.count;
    let room = s.tailB + rm;
    let first = s.a === null ? 2 * s.len - 1 : Infinity;
    for (let q = 0; q < n; q++) {
      const p = ps[q]!;
      if (idx > room || p >= first) {
        ring.count = idx;
        this.advance(k, s, ring, hs[q]!, p);
        idx = ring.count;
        pos = ring.pos;
        hash = ring.hash;
        rm = pos.length - 1;
        room = s.tailB + rm;
        first = s.a === null ? 2 * s.len - 1 : Infinity;
        continue;
      }
      pos[idx & rm] = p;
      hash[idx & rm] = hs[q]!;
      idx++;
    }
    ring.count = idx;
    if (n > 0) s.last = ps[n - 1]!;
  }

  private advance(k: number, s: ScaleState, ring: SampleRing, h: number, p: number): void {
    const idx = ring.count++;
    let cap = ring.pos.length;
    // The slot taken holds sample idx - cap: the counts must be done with it first, and if the
    // windows still hold it, the ring doubles.
    if (idx - s.tailB >= cap) {
      if (s.a !== null) this.catchUp(k, idx);
      if (idx - s.tailB >= cap) {
        this.grow(ring, s.tailB, idx);
        cap = ring.pos.length;
      }
    }
    const rm = cap - 1;
    ring.pos[idx & rm] = p;
    ring.hash[idx & rm] = h | 0;
    s.last = p;
    if (s.a === null && p + 1 >= 2 * s.len) this.materialize(s, k);
  }

  /**
   * Samples [entered, end) into scale k's counts (end: the ring's count unless given), each
   * measured back from itself as when it arrived; or, when that is more work, the two windows
   * rebuilt from the ring as they stand after sample end - 1 (the same counts either way).
   */
  private catchUp(k: number, end = this.rings[k]!.count): void {
    const from = this.#entered[k]!;
    if (from >= end) return;
    const s = this.scales[k]!;
    const ring = this.rings[k]!;
    const pos = ring.pos;
    const rm = pos.length - 1;
    const last = pos[(end - 1) & rm]!;
    let tailB = s.tailB;
    while (tailB < end && pos[tailB & rm]! <= last - 2 * s.len) tailB++;
    // Each sample entered moves through A and B (three count changes, each a branch that is
    // hard to predict); a rebuild clears the counts and enters each sample of the windows once,
    // without a branch: measured, a sample entered costs about what sixteen rebuilt do.
    if (16 * (end - from) > end - tailB + (s.buckets >> 3)) this.rebuild(s, ring, tailB, end, last);
    else for (let idx = from; idx < end; idx++) this.enter(s, ring, idx, pos[idx & rm]!);
    this.#entered[k] = end;
  }

  /** The counts of windows B = samples [tailB, tailA) and A = [tailA, end), from nothing. */
  private rebuild(s: ScaleState, ring: SampleRing, tailB: number, end: number, last: number): void {
    const a = s.a!;
    const b = s.b!;
    a.fill(0);
    b.fill(0);
    const pos = ring.pos;
    const hash = ring.hash;
    const rm = pos.length - 1;
    const nb = s.buckets - 1;
    let tailA = Math.max(tailB, s.tailA);
    while (tailA < end && pos[tailA & rm]! <= last - s.len) tailA++;
    let distinctA = 0;
    let distinctB = 0;
    let inter = 0;
    // (x - 1) >>> 31 is 1 only for x = 0, and (-x) >>> 31 only for x > 0 (counts are small).
    for (let idx = tailB; idx < tailA; idx++) {
      const bk = hash[idx & rm]! & nb;
      const x = b[bk]!;
      b[bk] = x + 1;
      distinctB += (x - 1) >>> 31;
    }
    for (let idx = tailA; idx < end; idx++) {
      const bk = hash[idx & rm]! & nb;
      const x = a[bk]!;
      a[bk] = x + 1;
      const fresh = (x - 1) >>> 31;
      distinctA += fresh;
      inter += fresh & (-b[bk]! >>> 31);
    }
    s.distinctA = distinctA;
    s.distinctB = distinctB;
    s.inter = inter;
    s.tailA = tailA;
    s.tailB = tailB;
  }

  /** Sample `idx` (at `last`) enters A; samples older than L move from A to B, older than 2L leave B. */
  private enter(s: ScaleState, ring: SampleRing, idx: number, last: number): void {
    const a = s.a!;
    const b = s.b!;
    const pos = ring.pos;
    const hash = ring.hash;
    const rm = pos.length - 1;
    const nb = s.buckets - 1;
    const edgeA = last - s.len;
    const edgeB = edgeA - s.len;
    let distinctA = s.distinctA;
    let distinctB = s.distinctB;
    let inter = s.inter;
    let tailA = s.tailA;
    let tailB = s.tailB;
    const bucket = hash[idx & rm]! & nb;
    if (a[bucket]!++ === 0) {
      distinctA++;
      if (b[bucket]! > 0) inter++;
    }
    while (tailA <= idx && pos[tailA & rm]! <= edgeA) {
      const bk = hash[tailA & rm]! & nb;
      if (--a[bk]! === 0) {
        distinctA--;
        if (b[bk]! > 0) inter--;
      }
      if (b[bk]!++ === 0) {
        distinctB++;
        if (a[bk]! > 0) inter++;
      }
      tailA++;
    }
    while (tailB < tailA && pos[tailB & rm]! <= edgeB) {
      const bk = hash[tailB & rm]! & nb;
      if (--b[bk]! === 0) {
        distinctB--;
        if (a[bk]! > 0) inter--;
      }
      tailB++;
    }
    s.distinctA = distinctA;
    s.distinctB = distinctB;
    s.inter = inter;
    s.tailA = tailA;
    s.tailB = tailB;
  }

  /**
   * A scale's counts, once it can first be compared: every sample so far is still to enter
   * (nothing has left the ring before this: tails stay at 0 while there are no counts).
   */
  private materialize(s: ScaleState, k: number): void {
    const counts = this.#pool.uint16(2 * s.buckets);
    s.a = counts.subarray(0, s.buckets);
    s.b = counts.subarray(s.buckets);
    this.#entered[k] = s.tailB;
  }

  /**
   * Double a ring, keeping samples [from, to): more samples than slots happens when one repeated
   * n-gram is kept at every position; the ring never needs more than 2L + 1 slots.
   */
  private grow(ring: { pos: Float64Array; hash: Int32Array }, from: number, to: number): void {
    const size = ring.pos.length * 2;
    const pos = this.#pool.float64(size);
    const hash = this.#pool.int32(size);
    const om = ring.pos.length - 1;
    const nm = size - 1;
    for (let i = from; i < to; i++) {
      pos[i & nm] = ring.pos[i & om]!;
      hash[i & nm] = ring.hash[i & om]!;
    }
    this.#pool.give(ring.pos, ring.hash);
    ring.pos = pos;
    ring.hash = hash;
  }

  /**
   * Jaccard of the last two windows at scale i, or -1 when there is nothing to compare: fewer
   * than 2L characters seen, or no n-gram of the windows sampled at this scale (one repeated
   * n-gram that the hash drops; the smaller scales and the short-period tracker still see it).
   */
  jaccard(i: number): number {
    const s = this.scales[i]!;
    if (this.pos < 2 * s.len) return -1;
    if (s.a === null) this.materialize(s, i);
    this.catchUp(i);
    const union = s.distinctA + s.distinctB - s.inter;
    return union === 0 ? -1 : s.inter / union;
  }
}

/**
 * A whole block keeps about this many n-grams (hash-sampled, so two blocks sample alike): ±0.04
 * on the similarity, and a sort of a hundred numbers instead of thousands per block.
 */
const BLOCK_SAMPLES = 128;

/** Sampling mask for a block of `len` characters. */
export function blockMask(len: number): number {
  let m = 1;
  while (m * 2 * BLOCK_SAMPLES <= len) m *= 2;
  return m - 1;
}

/**
 * Block n-gram sets without sorting: distinct samples are found with a scratch open-addressing
 * table (a generation stamp per slot, so it is never cleared), and `jaccard` counts the shared
 * members through the same table. Sorting each block's samples cost more than hashing its text.
 * The sets are unordered, and the similarity is the same number `setJaccard` gives sorted ones.
 */
export class BlockSets {
  private readonly pool: ArrayPool;
  private keys: Int32Array;
  private stamps: Int32Array;
  private gen = 0;
  private found: Int32Array;
  /** Scratch: a stretch's sampled n-grams, before they go into the table. */
  private readonly picked: Int32Array;

  constructor(pool = new ArrayPool()) {
    this.pool = pool;
    this.keys = pool.int32(1024);
    this.stamps = pool.int32(1024);
    this.found = pool.int32(256);
    this.picked = pool.int32(SCRATCH);
  }

  /** Hand the table to the pool; these sets are not used again. */
  release(): void {
    this.pool.give(this.keys, this.stamps, this.found, this.picked);
  }

  /** Distinct hash-sampled n-grams of `text` (unordered). */
  set(text: Uint16Array, mask: number): Int32Array {
    const n = text.length - NGRAM_CHARS + 1;
    if (n <= 0) return new Int32Array(0);
    this.prepare(2 * Math.ceil(n / (mask + 1)) + 16);
    let keys = this.keys;
    let stamps = this.stamps;
    let tm = keys.length - 1;
    let gen = this.gen;
    let found = this.found;
    let k = 0;
    let h = 0;
    const picked = this.picked;
    let i = 0;
    for (; i < NGRAM_CHARS - 1; i++) h = (Math.imul(h, NG_BASE) + text[i]!) | 0;
    while (i < text.length) {
      // A stretch's sampled n-grams first, kept without a branch (as in MultiScaleJaccard), then
      // each into the table.
      const end = Math.min(text.length, i + SCRATCH);
      let c = 0;
      for (; i < end; i++) {
        const out = i >= NGRAM_CHARS ? text[i - NGRAM_CHARS]! : 0;
        h = (Math.imul(h, NG_BASE) + text[i]! - Math.imul(out, NG_BASE_OUT)) | 0;
        const m = Math.imul(h ^ (h >>> 15), MIX);
        picked[c] = m;
        c += (((m >>> SAMPLE_SHIFT) & mask) - 1) >>> 31;
      }
      for (let q = 0; q < c; q++) {
        const m = picked[q]!;
        let at = Math.imul(m ^ (m >>> 16), 0x85ebca6b) & tm;
        while (stamps[at] === gen && keys[at] !== m) at = (at + 1) & tm;
        if (stamps[at] === gen) continue;
        stamps[at] = gen;
        keys[at] = m;
        if (k === found.length) {
          const grown = this.pool.int32(k * 2);
          grown.set(found);
          this.pool.give(found);
          found = this.found = grown;
        }
        found[k++] = m;
        if (2 * k > keys.length) {
          this.rehash(found, k);
          keys = this.keys;
          stamps = this.stamps;
          tm = keys.length - 1;
          gen = this.gen;
        }
      }
    }
    return found.slice(0, k);
  }

  /**
   * `setJaccard(coarsen(cur, curMask, m), coarsen(prev, prevMask, m))` with m the coarser mask,
   * where `cur` is what the last `set` call returned: its members are still in the table, so
   * nothing is re-inserted or copied; a coarsened member is one whose sampling bits pass `m`.
   */
  similarityToLast(cur: Int32Array, curMask: number, prev: Int32Array, prevMask: number): number {
    const common = Math.max(curMask, prevMask);
    let na = cur.length;
    if (common !== curMask) {
      na = 0;
      for (let i = 0; i < cur.length; i++) if (((cur[i]! >>> SAMPLE_SHIFT) & common) === 0) na++;
    }
    let nb = 0;
    let inter = 0;
    for (let i = 0; i < prev.length; i++) {
      const x = prev[i]!;
      if (((x >>> SAMPLE_SHIFT) & common) !== 0) continue;
      nb++;
      if (this.has(x)) inter++;
    }
    if (na === 0 && nb === 0) return 1;
    return inter / (na + nb - inter);
  }

  /** Jaccard similarity of two distinct sets, in any order. Two empty sets are identical (1). */
  jaccard(a: Int32Array, b: Int32Array): number {
    if (a.length === 0 && b.length === 0) return 1;
    this.prepare(a.length);
    for (let i = 0; i < a.length; i++) this.add(a[i]!);
    let inter = 0;
    for (let i = 0; i < b.length; i++) if (this.has(b[i]!)) inter++;
    return inter / (a.length + b.length - inter);
  }

  /** A fresh generation with room for `count` members at load one half. */
  private prepare(count: number): void {
    let size = this.keys.length;
    while (size < 2 * count) size *= 2;
    if (size !== this.keys.length) {
      this.pool.give(this.keys, this.stamps);
      this.keys = this.pool.int32(size);
      this.stamps = this.pool.int32(size);
      this.gen = 0;
    }
    this.gen++;
  }

  private slot(v: number): number {
    return Math.imul(v ^ (v >>> 16), 0x85ebca6b);
  }

  /** Inserts `v`; false when it is already a member. */
  private add(v: number): boolean {
    const mask = this.keys.length - 1;
    for (let i = this.slot(v) & mask; ; i = (i + 1) & mask) {
      if (this.stamps[i] !== this.gen) {
        this.stamps[i] = this.gen;
        this.keys[i] = v;
        return true;
      }
      if (this.keys[i] === v) return false;
    }
  }

  private has(v: number): boolean {
    const mask = this.keys.length - 1;
    for (let i = this.slot(v) & mask; ; i = (i + 1) & mask) {
      if (this.stamps[i] !== this.gen) return false;
      if (this.keys[i] === v) return true;
    }
  }

  private rehash(members: Int32Array, k: number): void {
    const size = this.keys.length * 2;
    this.pool.give(this.keys, this.stamps);
    this.keys = this.pool.int32(size);
    this.stamps = this.pool.int32(size);
    this.gen = 1;
    for (let i = 0; i < k; i++) this.add(members[i]!);
  }
}
