// One session's money, kept as its rounds stream by: tokens and list price per request, their
// sums, and what the rounds Enforce would have cut cost. Sums only: nothing per round is kept.

import type { EnforceSaved, Quote, RoundUsage, SessionCost, SessionUsage } from './usage.js';
import type { FormatName, Round } from '../model/transcript.js';
import { isUsableAmount, roundUsd } from './amount.js';
import { absurdUsage, billedTokens, requestParts, type RequestParts } from './tokens.js';

// Read from here by the ledger and the judge since before amount.ts was the leaf.
export { isUsableAmount, MAX_AMOUNT, roundUsd } from './amount.js';

/** Prices one request (PriceBook does; tests may stand in). */
export interface Pricer {
  price(model: string | null, parts: RequestParts, when: Date | string | null): Quote;
}

/** Formats that never record token usage: their sessions say so instead of costing nothing. */
const NO_USAGE_FORMATS: Partial<Record<FormatName, string>> = {
  chatgpt: 'ChatGPT exports record no token usage',
};


interface Tally {
  rounds: number;
  /** Rounds that record usage. */
  requests: number;
  tokens: number;
  usd: number;
  /** Why requests could not be priced, with how many each. */
  unpriced: Map<string, number>;
}

const tally = (): Tally => ({ rounds: 0, requests: 0, tokens: 0, usd: 0, unpriced: new Map() });

function add(t: Tally, tokens: number | null, quote: Quote | null): void {
  t.rounds += 1;
  if (tokens === null) return;
  t.requests += 1;
  t.tokens += tokens;
  if (quote === null) return;
  if (quote.usd !== null) t.usd += quote.usd;
  else t.unpriced.set(quote.reason, (t.unpriced.get(quote.reason) ?? 0) + 1);
}

export class SessionAccount {
  private readonly all = tally();
  private readonly saved = tally();
  private readonly cut = tally();
  private input = 0;
  private cacheRead = 0;
  private cacheWrite = 0;
  private output = 0;
  private reasoning = 0;

  /** `pricer` null: tokens are counted, dollars are not (every cost says "not priced"). */
  constructor(
    private readonly pricer: Pricer | null,
    private readonly format: FormatName,
  ) {}

  /** The last round's tokens and dollars (see roundUsage). */
  private lastTokens: number | null = null;
  private lastQuote: Quote | null = null;

  /** Account one round (one request). */
  round(round: Round, model: string | null): void {
    const parts = requestParts(round.usage);
    let tokens: number | null = null;
    let quote: Quote | null = null;
    if (parts !== null) {
      tokens = billedTokens(parts);
      this.input += parts.input;
      this.cacheRead += parts.cacheRead;
      this.cacheWrite += parts.cacheWrite5m + parts.cacheWrite1h;
      this.output += parts.output;
      this.reasoning += parts.reasoning;
      const absurd = absurdUsage(round.usage);
      if (absurd !== null) quote = { usd: null, reason: absurd };
      else if (this.pricer) quote = this.pricer.price(model, parts, round.timestamp);
    }
    add(this.all, tokens, quote);
    this.lastTokens = tokens;
    this.lastQuote = quote;
  }

  /**
   * The last accounted round would not have happened under Enforce (its turn was stopped): still in
   * the loop (`saved`), or new work after the agent had recovered (`cut`, ledger/cut.ts).
   */
  prevented(part: 'saved' | 'cut'): void {
    add(part === 'saved' ? this.saved : this.cut, this.lastTokens, this.lastQuote);
  }

  /** The last accounted round's figures, for its entries (made only for rounds that have some). */
  roundUsage(): RoundUsage {
    const usd = this.lastQuote?.usd ?? null;
    return { tokens: this.lastTokens, usd: usd === null ? null : roundUsd(usd) };
  }

  usage(): SessionUsage {
    return {
      requests: this.all.requests,
      input_tokens: this.input,
      cache_read_tokens: this.cacheRead,
      cache_write_tokens: this.cacheWrite,
      output_tokens: this.output,
      reasoning_tokens: this.reasoning,
      tokens: this.all.tokens,
    };
  }

  cost(): SessionCost {
    const t = this.all;
    if (t.rounds === 0) return { usd: 0, reason: null };
    if (t.requests === 0) {
      return { usd: null, reason: NO_USAGE_FORMATS[this.format] ?? 'the transcript records no token usage' };
    }
    if (!this.pricer) return { usd: null, reason: 'not priced' };
    if (t.unpriced.size > 0) return { usd: null, reason: unpricedReason(t.unpriced) };
    if (!isUsableAmount(t.usd)) return { usd: null, reason: TOO_LARGE_SUM };
    const missing = t.rounds - t.requests;
    return {
      usd: roundUsd(t.usd),
      reason: missing > 0 ? `${missing} of ${t.rounds} rounds ${missing === 1 ? 'records no usage and is' : 'record no usage and are'} not counted` : null,
    };
  }

  /** The rounds after a stop, in its turn, still in the loop. */
  savedByEnforce(): EnforceSaved {
    return this.prevention(this.saved);
  }

  /** The rounds after a stop, in its turn, after the agent had recovered: what a stop would break. */
  cutByEnforce(): EnforceSaved {
    return this.prevention(this.cut);
  }

  private prevention(t: Tally): EnforceSaved {
    if (t.rounds === 0) return { rounds: 0, tokens: 0, usd: 0 };
    const known = t.requests > 0;
    const priced = known && this.pricer !== null && t.unpriced.size === 0 && isUsableAmount(t.usd);
    return { rounds: t.rounds, tokens: known ? t.tokens : null, usd: priced ? roundUsd(t.usd) : null };
  }
}

/** Every round had a price, but together they pass what a double counts exactly. */
const TOO_LARGE_SUM = 'the rounds\' prices add up to more than the ledger can count (a price file with absurd rates?)';

function unpricedReason(unpriced: Map<string, number>): string {
  return [...unpriced]
    .map(([reason, n]) => `${reason} (${n} ${n === 1 ? 'request' : 'requests'})`)
    .join('; ');
}
