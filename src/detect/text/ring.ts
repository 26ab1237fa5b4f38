// Rings indexed by an absolute counter (slot = i % length) that start small and double up to
// their bound: a turn with little text allocates little, and a long one still stops at the bound.

import type { ArrayPool } from './pool.js';

/**
 * `n % length` for an index n >= 0: a mask when the length is a power of two (rings are, unless
 * capped at an odd bound) instead of an integer division, which several rings paid per word.
 */
export function slotOf(n: number, length: number): number {
  return (length & (length - 1)) === 0 && n <= 0x7fffffff ? n & (length - 1) : n % length;
}

/** Initial slots: a few paragraphs of words. Most turns never grow past it. */
export const INITIAL_RING = 256;

/**
 * A copy of `ring` with `size` slots holding the same entries for absolute indexes
 * [count - ring.length, count), so `ring[i % length]` reads stay valid after growth. The copy
 * comes from `pool` and the old ring goes back to it.
 */
export function growRing(ring: Float64Array, count: number, size: number, pool: ArrayPool): Float64Array {
  const out = pool.float64(size);
  if (count <= ring.length && count <= size) {
    // Never wrapped: entries sit at their own index in both rings, one block copy.
    out.set(ring.subarray(0, count));
  } else {
    const from = Math.max(0, count - ring.length);
    for (let i = from; i < count; i++) out[i % size] = ring[i % ring.length]!;
  }
  pool.give(ring);
  return out;
}
