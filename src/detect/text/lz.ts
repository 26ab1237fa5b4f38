// A dependency-free LZ77-style redundancy proxy: the share of characters a greedy parser can
// copy from earlier in the text. Seed 002 deviates from "zlib ratio" for the same reason (no
// compression dependency); the proxy is deterministic and conservative, since it only counts
// verbatim back-references of MIN_MATCH or more characters, never entropy coding gains.

/** Shorter matches are common syllables and spaces: prose would look redundant. */
const MIN_MATCH = 6;
/** Hash bits for the 4-character match finder: enough slots for a 32k window. */
const TABLE_BITS = 15;
/** Characters hashed to find a candidate match. */
const PROBE = 4;

/**
 * Redundancy of `text` in 0..1: covered characters over length. Prose scores 0.1 on a sentence and up to
 * about 0.5 on an 8k window; text built from copies of one unit approaches 1. Linear in the text length.
 */
export function lzRedundancy(text: string, maxDistance = 32768): number {
  const n = text.length;
  if (n < MIN_MATCH * 2) return 0;
  const table = new Int32Array(1 << TABLE_BITS).fill(-1);
  const mask = (1 << TABLE_BITS) - 1;
  const probe = (i: number): number => {
    let h = 0;
    for (let k = 0; k < PROBE; k++) h = Math.imul(h ^ text.charCodeAt(i + k), 0x9e3779b1);
    return (h >>> (32 - TABLE_BITS)) & mask;
  };
  let covered = 0;
  let i = 0;
  while (i + PROBE <= n) {
    const slot = probe(i);
    const cand = table[slot]!;
    table[slot] = i;
    if (cand >= 0 && i - cand <= maxDistance) {
      let len = 0;
      while (i + len < n && text.charCodeAt(cand + len) === text.charCodeAt(i + len)) len++;
      if (len >= MIN_MATCH) {
        for (let k = 1; k < len && i + k + PROBE <= n; k++) table[probe(i + k)] = i + k;
        covered += len;
        i += len;
        continue;
      }
    }
    i++;
  }
  return covered / n;
}
