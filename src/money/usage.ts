// The ledger's money fields as money/account.ts counts them: tokens and list price per round and
// per session, and what the rounds after an Enforce stop cost (SPEC 0.2 "usage", "cost").

/** The tokens and list price of the round an entry is on: tokens null when the round records no usage, usd null when it has no price. */
export interface RoundUsage {
  tokens: number | null;
  usd: number | null;
}

/** Billed tokens of a session, summed over its requests (SPEC 0.2 "usage"). */
export interface SessionUsage {
  requests: number;
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  /** Every billed token: input, cache reads, cache writes and output. */
  tokens?: number;
}

/** List price: `usd` null, with a reason, when the model has no price or the format records no usage. */
export interface SessionCost {
  usd: number | null;
  reason: string | null;
}

/** What Enforce would have saved: the rounds after a stop, with their tokens and dollars. */
export interface EnforceSaved {
  rounds: number;
  tokens: number | null;
  usd: number | null;
}

/** A request's list price in dollars, or why there is none. */
export type Quote = { usd: number; reason?: undefined } | { usd: null; reason: string };
