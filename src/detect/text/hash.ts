// Small deterministic hashes shared by the text detectors. 32-bit arithmetic through Math.imul
// keeps every step exact in JS numbers, so the same text hashes the same on every run.

/** FNV-1a offset basis: the standard starting value, so empty input has a fixed hash. */
export const FNV_OFFSET = 0x811c9dc5;
/** FNV-1a prime: spreads one character over the word's hash. */
export const FNV_PRIME = 0x01000193;

/** Folds one UTF-16 code unit into an FNV-1a hash. */
export function fnvStep(h: number, code: number): number {
  return Math.imul(h ^ code, FNV_PRIME) >>> 0;
}

export function fnvString(s: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) h = fnvStep(h, s.charCodeAt(i));
  return h;
}

/** Bits of the second hash kept in a packed key: 32 + 20 = 52 bits stays below 2^53. */
export const HIGH_MASK = 0xfffff;
