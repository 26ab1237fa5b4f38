// One request's billed tokens, in the parts a price needs. Pure arithmetic over the model's Usage:
// no prices here, so counting tokens never loads the price data.

import type { Usage } from '../model/transcript.js';

/** A request's tokens as disjoint parts: their sum is every billed token of the request. */
export interface RequestParts {
  /** Prompt tokens read at the plain input rate (neither cache reads nor cache writes). */
  input: number;
  cacheRead: number;
  /** Cache writes at the 5-minute rate. */
  cacheWrite5m: number;
  /** Cache writes at the one-hour rate. */
  cacheWrite1h: number;
  /** Every billed output token, reasoning included. */
  output: number;
  /** Of the output, reasoning (reported apart where the format has it). */
  reasoning: number;
}

function count(n: number | null | undefined): number {
  // A negative or non-finite count is a broken log, not a refund.
  return typeof n === 'number' && Number.isFinite(n) && n > 0 && n <= Number.MAX_SAFE_INTEGER ? n : 0;
}

/**
 * Why a request's recorded usage is no usage at all (a count past 2^53, such as 1e308), or null.
 * Such a request is accounted as unpriced with this reason, not as free.
 */
export function absurdUsage(u: Usage | null): string | null {
  if (u === null) return null;
  for (const [name, n] of [
    ['input', u.inputTokens],
    ['output', u.outputTokens],
    ['cache read', u.cacheReadTokens],
    ['cache write', u.cacheWriteTokens],
  ] as const) {
    if (typeof n === 'number' && n > Number.MAX_SAFE_INTEGER) return `a request records ${String(n)} ${name} tokens, which is no count`;
  }
  return null;
}

/**
 * The parts of one request's usage, or null when it records neither input nor output (then the
 * request is unaccounted, not free). Cache parts never exceed the prompt they are part of.
 */
export function requestParts(u: Usage | null): RequestParts | null {
  if (u === null || (u.inputTokens == null && u.outputTokens == null)) return null;
  const prompt = count(u.inputTokens);
  const cacheRead = Math.min(count(u.cacheReadTokens), prompt);
  const cacheWrite = Math.min(count(u.cacheWriteTokens), prompt - cacheRead);
  const cacheWrite1h = Math.min(count(u.cacheWrite1hTokens), cacheWrite);
  const output = count(u.outputTokens);
  return {
    input: prompt - cacheRead - cacheWrite,
    cacheRead,
    cacheWrite5m: cacheWrite - cacheWrite1h,
    cacheWrite1h,
    output,
    reasoning: Math.min(count(u.reasoningTokens), output),
  };
}

/** Every billed token of a request: input, cache reads, cache writes and output. */
export function billedTokens(p: RequestParts): number {
  return p.input + p.cacheRead + p.cacheWrite5m + p.cacheWrite1h + p.output;
}
