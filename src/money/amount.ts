// What a figure of money or tokens may be: a leaf that account.ts and prices.ts both read, so
// neither imports the other.

/**
 * The largest amount (dollars or tokens) the ledger accepts: past 2^53 a double no longer counts
 * whole units, and such a figure is a broken price file or log, not a cost (`merge` refuses it too).
 */
export const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;

/** A figure the ledger can print and add up: finite, not negative, at most MAX_AMOUNT. */
export function isUsableAmount(n: number): boolean {
  return Number.isFinite(n) && n >= 0 && n <= MAX_AMOUNT;
}

/** Dollars to a billionth: enough for one token of the cheapest model, without float noise. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
