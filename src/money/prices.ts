// List prices, request by request, from @pydantic/genai-prices: its price data is compiled into
// the package, so nothing is fetched (its update functions are never called). The package takes
// about 100 ms to load, so it is imported only when a price is asked for: commands that price
// nothing never pay for it.

import type { ModelInfo, ModelPrice, PriceOptions, Provider, Usage as GenaiUsage } from '@pydantic/genai-prices';
import { isUsableAmount } from './amount.js';
import type { Quote } from './usage.js';
import type { RequestParts } from './tokens.js';

const PRICES_SOURCE = '@pydantic/genai-prices';
/** Pinned exactly in package.json (0.x: its data and API may change at any release). */
export const PRICES_VERSION = '0.1.8';
/**
 * The day PRICES_VERSION was published (`npm view @pydantic/genai-prices time`): its bundled
 * prices are as of that day. Change it with the pin; a test checks the installed version.
 */
export const PRICES_DATA_DATE = '2026-09-23';

type Genai = typeof import('@pydantic/genai-prices');

let genai: Promise<Genai> | null = null;

/** The package, imported on first use (once per thread). */
export function loadGenai(): Promise<Genai> {
  genai ??= import('@pydantic/genai-prices');
  return genai;
}

/** The `pricing` block of the JSON ledger: enough to reproduce every figure. */
export interface PricingInfo {
  source: string;
  version: string;
  data_date: string;
  /** The `--prices` file whose prices were added or took precedence, else null. */
  overrides: string | null;
}

/** Prices added or overridden by the user (`--prices FILE`), in the package's Provider shape. */
export interface PriceOverrides {
  path: string;
  providers: Provider[];
}

export function pricingInfo(overrides: PriceOverrides | null | undefined): PricingInfo {
  return { source: PRICES_SOURCE, version: PRICES_VERSION, data_date: PRICES_DATA_DATE, overrides: overrides?.path ?? null };
}

export type { Quote } from './usage.js';

/** A request without a timestamp is priced as of the price data's date, never as of "now". */
const UNDATED = new Date(`${PRICES_DATA_DATE}T00:00:00Z`);

export function requestDate(timestamp: string | Date | null): Date {
  if (timestamp instanceof Date) return timestamp;
  if (timestamp === null) return UNDATED;
  const ms = Date.parse(timestamp);
  return Number.isFinite(ms) ? new Date(ms) : UNDATED;
}

/** The package's usage keys: `input_tokens` is the whole prompt, the cache parts are inside it. */
export function genaiUsage(p: RequestParts): GenaiUsage {
  const cacheWrite = p.cacheWrite5m + p.cacheWrite1h;
  const usage: GenaiUsage = { input_tokens: p.input + p.cacheRead + cacheWrite, output_tokens: p.output };
  if (p.cacheRead > 0) usage['cache_read_tokens'] = p.cacheRead;
  if (cacheWrite > 0) usage['cache_write_tokens'] = cacheWrite;
  if (p.cacheWrite1h > 0) usage['cache_write_1h_tokens'] = p.cacheWrite1h;
  return usage;
}

export class PriceBook {
  private readonly models = new Map<string, ModelRates | string>();
  /** Requests priced by a call to the package rather than by derived rates (the slow path). */
  readonly stats = { direct: 0 };

  constructor(
    private readonly gp: Genai,
    private readonly overrides: readonly Provider[] = [],
  ) {}

  /**
   * The list price of one request of `model` made at `when` (its timestamp, parsed only if the
   * model's prices change over time). Never throws; never guesses.
   */
  price(model: string | null, parts: RequestParts, when: Date | string | null): Quote {
    if (model === null) return { usd: null, reason: 'the transcript names no model' };
    let rates = this.models.get(model);
    if (rates === undefined) {
      rates = this.resolve(model);
      this.models.set(model, rates);
    }
    if (typeof rates === 'string') return { usd: null, reason: rates };
    try {
      const usd = rates.price(parts, when);
      // 1e308 per token times a few thousand tokens is Infinity: refused with a reason, never a
      // silent null, so the session is counted as unpriced.
      if (!isUsableAmount(usd)) return { usd: null, reason: `the price of ${model} gives ${String(usd)} dollars for one request: no usable price (absurd rates?)` };
      return { usd };
    } catch (e) {
      return { usd: null, reason: `no price for ${model}: ${(e as Error)?.message ?? String(e)}` };
    }
  }

  /** Which prices `model` takes: the user's first, then the bundled data, then a `provider/model` name split. */
  private resolve(model: string): ModelRates | string {
    const attempts: PriceOptions[] = this.overrides.map((provider) => ({ provider }));
    attempts.push({});
    if (model.includes('/')) attempts.push({ providerId: 'litellm' });
    for (const options of attempts) {
      try {
        const r = this.gp.calcPrice({ input_tokens: 0 }, model, { ...options, timestamp: UNDATED });
        if (r) return new ModelRates(this.gp, model, options, r.model, this.stats);
      } catch {
        // A provider whose data cannot price this model: try the next.
      }
    }
    return `no price for model ${model}`;
  }
}

/** Tiered prices switch on the whole prompt of a request: it must exceed a tier's `start`. */
interface Card {
  fixed: number;
  input: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  output: number;
}

/**
 * One model's prices. The package's calcPrice costs tens of microseconds a call, too slow for a
 * store of a million requests, yet within one price period and one long-context tier a price is
 * linear in each kind of token. So for each (period, tier) the per-token rates are read off the
 * package with a few probe requests, checked against it on mixed requests, and then applied
 * request by request. Whatever fails that check (or depends on the time of day) is priced by a
 * call to the package per request.
 */
class ModelRates {
  /** Start dates (ms) of the model's dated prices, sorted; null when a price depends on the time of day. */
  private readonly starts: number[] | null;
  private readonly tiers = new Map<number, number[]>();
  /** By period * 64 + tier (a model has a handful of each). */
  private readonly cards = new Map<number, Card | null>();

  constructor(
    private readonly gp: Genai,
    private readonly model: string,
    private readonly options: PriceOptions,
    info: ModelInfo,
    private readonly stats: { direct: number },
  ) {
    this.starts = datedStarts(info);
  }

  price(parts: RequestParts, when: Date | string | null): number {
    if (this.starts === null) return this.direct(parts, requestDate(when));
    // Most models have one price for all time: their requests' timestamps need no parsing.
    let at: Date | null = this.starts.length === 0 ? null : requestDate(when);
    let period = 0;
    while (at !== null && period < this.starts.length && this.starts[period]! <= at.getTime()) period++;
    let thresholds = this.tiers.get(period);
    if (thresholds === undefined) {
      at ??= requestDate(when);
      thresholds = tierStarts(this.calc({ input_tokens: 0 }, at).model_price);
      this.tiers.set(period, thresholds);
    }
    const prompt = parts.input + parts.cacheRead + parts.cacheWrite5m + parts.cacheWrite1h;
    let tier = 0;
    while (tier < thresholds.length && prompt > thresholds[tier]!) tier++;
    const key = period * 64 + tier;
    let card = this.cards.get(key);
    if (card === undefined) {
      card = this.deriveCard(thresholds, tier, (at ??= requestDate(when)));
      this.cards.set(key, card);
    }
    if (card === null) return this.direct(parts, at ?? requestDate(when));
    return applyCard(card, parts);
  }

  private calc(usage: GenaiUsage, at: Date) {
    const r = this.gp.calcPrice(usage, this.model, { ...this.options, timestamp: at });
    if (r === null) throw new Error('the price data changed while pricing');
    return r;
  }

  private direct(parts: RequestParts, at: Date): number {
    this.stats.direct += 1;
    return this.calc(genaiUsage(parts), at).total_price;
  }

  /** Per-token rates for prompts in tier `tier`, read off the package and checked; null when they do not hold. */
  private deriveCard(thresholds: number[], tier: number, at: Date): Card | null {
    const low = tier === 0 ? 0 : thresholds[tier - 1]! + 1;
    const high = tier < thresholds.length ? thresholds[tier]! : low + 1_000_000;
    if (high - low < 1000) return null;
    try {
      const price = (u: GenaiUsage) => this.calc(u, at).total_price;
      const atHigh = price({ input_tokens: high });
      const input = (atHigh - price({ input_tokens: low })) / (high - low);
      const fixed = atHigh - input * high;
      const card: Card = {
        fixed,
        input,
        cacheRead: (price({ input_tokens: high, cache_read_tokens: high }) - fixed) / high,
        cacheWrite5m: (price({ input_tokens: high, cache_write_tokens: high }) - fixed) / high,
        cacheWrite1h: (price({ input_tokens: high, cache_write_tokens: high, cache_write_1h_tokens: high }) - fixed) / high,
        output: (price({ input_tokens: high, output_tokens: high }) - atHigh) / high,
      };
      for (const prompt of [high, Math.floor((low + high) / 2)]) {
        const mixed = mixedRequest(prompt);
        const expected = price(genaiUsage(mixed));
        if (Math.abs(applyCard(card, mixed) - expected) > 1e-9 * Math.max(1, Math.abs(expected))) return null;
      }
      return card;
    } catch {
      return null;
    }
  }
}

function applyCard(c: Card, p: RequestParts): number {
  return (
    c.fixed +
    c.input * p.input +
    c.cacheRead * p.cacheRead +
    c.cacheWrite5m * p.cacheWrite5m +
    c.cacheWrite1h * p.cacheWrite1h +
    c.output * p.output
  );
}

/** A request with some of every part, `prompt` tokens of prompt in all. */
function mixedRequest(prompt: number): RequestParts {
  const cacheRead = Math.floor(prompt * 0.3);
  const cacheWrite5m = Math.floor(prompt * 0.15);
  const cacheWrite1h = Math.floor(prompt * 0.1);
  return {
    input: prompt - cacheRead - cacheWrite5m - cacheWrite1h,
    cacheRead,
    cacheWrite5m,
    cacheWrite1h,
    output: Math.floor(prompt / 7) + 13,
    reasoning: 0,
  };
}

function datedStarts(info: ModelInfo): number[] | null {
  if (!Array.isArray(info.prices)) return [];
  const starts: number[] = [];
  for (const p of info.prices) {
    const c = p.constraint;
    if (c === undefined) continue;
    if (c.type !== 'start_date') return null;
    const ms = Date.parse(`${c.start_date}T00:00:00Z`);
    if (!Number.isFinite(ms)) return null;
    starts.push(ms);
  }
  return starts.sort((a, b) => a - b);
}

function tierStarts(price: ModelPrice): number[] {
  const starts = new Set<number>();
  for (const v of Object.values(price)) {
    if (typeof v === 'object' && v !== null && Array.isArray(v.tiers)) for (const t of v.tiers) starts.add(t.start);
  }
  return [...starts].sort((a, b) => a - b);
}

/** What to price with: `false` prices nothing; otherwise the bundled data plus any overrides. */
export type PricingOptions = false | { overrides?: PriceOverrides | null };

/** Stands in when the price data cannot be loaded (a broken install): the ledger still runs, every figure says why it has no price. */
class NoPrices {
  constructor(private readonly reason: string) {}
  price(_model: string | null, _parts: RequestParts, _when: Date | string | null): Quote {
    return { usd: null, reason: this.reason };
  }
}

const books = new Map<string, Promise<PriceBook | NoPrices>>();

/**
 * The price book for `pricing` (null when pricing is off), one per thread and set of overrides,
 * so what it learned about a model serves every file of the run.
 */
export function priceBookFor(pricing: PricingOptions | undefined): Promise<PriceBook | NoPrices> | null {
  if (pricing === false) return null;
  const providers = pricing?.overrides?.providers ?? [];
  const key = providers.length === 0 ? '' : JSON.stringify(providers);
  let book = books.get(key);
  if (!book) {
    book = loadGenai().then(
      (gp) => new PriceBook(gp, providers),
      (e: unknown) => new NoPrices(`the price data (${PRICES_SOURCE}) could not be loaded: ${(e as Error)?.message ?? String(e)}`),
    );
    books.set(key, book);
  }
  return book;
}
