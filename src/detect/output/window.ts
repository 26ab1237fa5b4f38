// The windows a pass reads: the ring of normalized characters (excerpts, the compression proxy)
// and the rings of word offsets (where a run starts and ends). Both are indexed by absolute
// position, so a finding's offsets stay exact however far the stream has run past the ring.

import type { ArrayPool } from '../text/pool.js';
import type { OutputConfig } from './config.js';
import { pow2, type RegionStart, type Span, type State } from './state.js';

/**
 * The piece `buf[from, to)` (already counted by the tokenizer) into the character ring. The ring
 * starts small and doubles up to the window while it still holds everything seen, so every read
 * of it sees what a full-size ring would hold; a piece longer than the ring leaves its tail.
 */
export function keepText(s: State, buf: Uint16Array, from: number, to: number, c: OutputConfig, pool: ArrayPool): void {
  const base = s.tok.pos - (to - from);
  if (s.tok.pos > s.chars.length && s.chars.length < pow2(c.windowChars)) {
    let size = s.chars.length * 2;
    while (size < s.tok.pos && size < pow2(c.windowChars)) size *= 2;
    const next = pool.uint16(size);
    // Positions [0, base) are all held, at their own index (the ring never wrapped).
    next.set(s.chars.subarray(0, base));
    pool.give(s.chars);
    s.chars = next;
  }
  // Copied as at most two blocks (the ring's end, then its start), not a code at a time.
  const ring = s.chars;
  const start = Math.max(from, to - ring.length);
  const at = (base + start - from) & (ring.length - 1);
  const first = Math.min(to - start, ring.length - at);
  ring.set(buf.subarray(start, start + first), at);
  if (start + first < to) ring.set(buf.subarray(start + first, to), 0);
}

/** Offsets of words still in the ring (callers ask only for recent words). */
export function wordSpan(s: State, firstWord: number, lastWord: number): Span {
  const cap = s.wordStart.length;
  const first = Math.max(firstWord, s.words - cap, 0);
  return { start: s.wordStart[first % cap]!, end: s.wordEnd[lastWord % cap]! };
}

export function wordEnd(s: State, word: number): number {
  return s.wordEnd[word % s.wordStart.length]!;
}

/**
 * Start offset of a period region's first word. While that word is still in the word ring it
 * is read there and remembered; a chant that outgrows the ring keeps the offset remembered
 * while it was held (the region is reported at every word, so it was).
 */
export function regionStart(s: State, memo: RegionStart, period: number, firstWord: number): number {
  const cap = s.wordStart.length;
  if (firstWord >= s.words - cap) {
    const start = s.wordStart[Math.max(0, firstWord) % cap]!;
    memo.period = period;
    memo.firstWord = firstWord;
    memo.start = start;
    return start;
  }
  if (memo.period === period && memo.firstWord === firstWord) return memo.start;
  return s.wordStart[(s.words - cap) % cap]!;
}

/**
 * The share of this round's raw text (structure included: a list the opener introduces is
 * part of what the round says) that lies in `span` of the normalized stream.
 */
export function roundShare(s: State, span: Span): number {
  if (s.segRaw <= 0) return 0;
  const inSegment = Math.max(0, span.end - Math.max(span.start, s.segStartPos));
  return Math.min(1, inSegment / s.segRaw);
}

/** Normalized text at absolute offsets [from, to), which must lie within the ring. */
function textAt(s: State, from: number, to: number): string {
  const ring = s.chars;
  const rm = ring.length - 1;
  let out = '';
  // In slices, so a long tail never hits the argument limit of fromCharCode.
  for (let i = from; i < to; i += 4096) {
    const end = Math.min(to, i + 4096);
    const codes: number[] = [];
    for (let k = i; k < end; k++) codes.push(ring[k & rm]!);
    out += String.fromCharCode(...codes);
  }
  return out;
}

/** The last `n` normalized characters held. */
export function tail(s: State, n: number): string {
  const pos = s.tok.pos;
  return textAt(s, Math.max(0, pos - Math.min(n, s.chars.length)), pos);
}

/** At most the first 80 characters of `span` that the ring still holds. */
export function excerpt(s: State, span: Span): string[] {
  const from = Math.max(span.start, s.tok.pos - s.chars.length, 0);
  const to = Math.min(span.end, s.tok.pos, from + 80);
  if (to <= from) return [];
  return [textAt(s, from, to)];
}
