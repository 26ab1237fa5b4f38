// Character n-gram similarity. MultiScaleJaccard compares, at several window lengths L, the set
// of n-grams in the last L characters with the set in the L before, updated per character in
// constant time: a near-repeated unit of any length up to L makes the two windows share almost
// all their n-grams, whatever the alignment. blockJaccard compares two whole texts (thinking).

import { mix32 } from './hash.js';

/** Five characters: longer than most English syllables, short enough to survive a changed word. */
export const NGRAM_CHARS = 5;
/** Window lengths: a sentence-sized unit, a paragraph, and a ~900-token block (about 3.7k chars). */
export const JACCARD_SCALES: readonly number[] = [256, 1024, 4096];
/**
 * Keep one n-gram in two, chosen by hash (so the same n-gram is always kept or always dropped):
 * the Jaccard estimate stays unbiased at half the table work.
 */
const SAMPLE_MASK = 1;
/** Buckets per window character: ~5% of distinct n-grams collide, a small upward bias only. */
const BUCKETS_PER_CHAR = 8;
/** Multiplier of the polynomial n-gram hash. */
const NG_BASE = 0x01000193;

function ngramHash(codes: Int32Array, pos: number): number {
  let h = 0;
  for (let i = 0; i < NGRAM_CHARS; i++) h = Math.imul(h, NG_BASE) + codes[(pos + i) % NGRAM_CHARS]!;
  return mix32(h);
}

export interface ScaleState {
  len: number;
  a: Uint16Array;
  b: Uint16Array;
  distinctA: number;
  distinctB: number;
  inter: number;
  /** Absolute sample index of the oldest sample in A, and in B. */
  tailA: number;
  tailB: number;
}

export class MultiScaleJaccard {
  /** Characters seen (absolute position of the next). */
  pos = 0;
  codes = new Int32Array(NGRAM_CHARS);
  samplePos: Float64Array;
  sampleBucket: Int32Array;
  samples = 0;
  scales: ScaleState[];

  constructor(scales: readonly number[] = JACCARD_SCALES) {
    const maxLen = Math.max(...scales);
    const cap = 2 * maxLen + 1;
    this.samplePos = new Float64Array(cap);
    this.sampleBucket = new Int32Array(cap);
    this.scales = scales.map((len) => ({
      len,
      a: new Uint16Array(len * BUCKETS_PER_CHAR),
      b: new Uint16Array(len * BUCKETS_PER_CHAR),
      distinctA: 0,
      distinctB: 0,
      inter: 0,
      tailA: 0,
      tailB: 0,
    }));
  }

  push(piece: string): void {
    const cap = this.samplePos.length;
    for (let i = 0; i < piece.length; i++) {
      const p = this.pos;
      this.codes[p % NGRAM_CHARS] = piece.charCodeAt(i);
      this.pos = p + 1;
      if (p + 1 < NGRAM_CHARS) continue;
      const h = ngramHash(this.codes, p + 1);
      if ((h & SAMPLE_MASK) !== 0) continue;
      const idx = this.samples++;
      this.samplePos[idx % cap] = p;
      this.sampleBucket[idx % cap] = h >>> 1;
      for (const s of this.scales) this.advance(s, idx, p);
    }
  }

  private advance(s: ScaleState, idx: number, p: number): void {
    const cap = this.samplePos.length;
    const bucket = this.sampleBucket[idx % cap]! % s.a.length;
    if (s.a[bucket]++ === 0) {
      s.distinctA++;
      if (s.b[bucket]! > 0) s.inter++;
    }
    // Samples older than L move from window A to window B; older than 2L leave B.
    while (s.tailA <= idx && this.samplePos[s.tailA % cap]! <= p - s.len) {
      const bk = this.sampleBucket[s.tailA % cap]! % s.a.length;
      if (--s.a[bk]! === 0) {
        s.distinctA--;
        if (s.b[bk]! > 0) s.inter--;
      }
      if (s.b[bk]++ === 0) {
        s.distinctB++;
        if (s.a[bk]! > 0) s.inter++;
      }
      s.tailA++;
    }
    while (s.tailB < s.tailA && this.samplePos[s.tailB % cap]! <= p - 2 * s.len) {
      const bk = this.sampleBucket[s.tailB % cap]! % s.a.length;
      if (--s.b[bk]! === 0) {
        s.distinctB--;
        if (s.a[bk]! > 0) s.inter--;
      }
      s.tailB++;
    }
  }

  /** Jaccard of the last two windows at scale i, or -1 until 2L characters were seen. */
  jaccard(i: number): number {
    const s = this.scales[i]!;
    if (this.pos < 2 * s.len) return -1;
    const union = s.distinctA + s.distinctB - s.inter;
    return union === 0 ? 0 : s.inter / union;
  }
}

/** Distinct hashed n-grams of a text, sorted (for set similarity of whole blocks). */
export function ngramSet(text: string): Int32Array {
  const out = new Set<number>();
  let h = 0;
  const codes = new Int32Array(NGRAM_CHARS);
  for (let i = 0; i < text.length; i++) {
    codes[i % NGRAM_CHARS] = text.charCodeAt(i);
    if (i + 1 >= NGRAM_CHARS) {
      h = ngramHash(codes, i + 1);
      out.add(h | 0);
    }
  }
  return Int32Array.from(out).sort();
}

/** Jaccard similarity of two sorted n-gram sets. Two empty sets are identical (1). */
export function setJaccard(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! === b[j]!) {
      inter++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return inter / (a.length + b.length - inter);
}
