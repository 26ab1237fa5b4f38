// The price book reads per-token rates off the package once per (model, price period, tier) and
// applies them request by request (calcPrice itself costs tens of microseconds a call). Whatever
// the request, its figure must be the package's own: checked here against calcPrice directly,
// on random requests across tier lines, price periods and models.

import { calcPrice } from '@pydantic/genai-prices';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { genaiUsage, PriceBook, loadGenai, requestDate } from '../../src/money/prices.js';
import type { RequestParts } from '../../src/money/tokens.js';

const MODELS = [
  'claude-sonnet-4-5-20250929', // tiers at 200K on every part
  'claude-opus-4-5-20251101',
  'claude-haiku-4-5',
  'gpt-5-codex',
  'gpt-5.5', // a tier at 272K
  'gpt-4o-2024-08-06',
  'gemini-2.5-pro',
  'gemini-2.5-flash',
  'gemini-3.6-flash', // dated: introductory rates until 2026-12-31
  'deepseek-chat', // off-peak prices by time of day: priced by the package call by call
  'anthropic/claude-sonnet-4-20250514', // a provider/model name
];

const parts = fc
  .record({
    input: fc.integer({ min: 0, max: 400_000 }),
    cacheRead: fc.integer({ min: 0, max: 400_000 }),
    cacheWrite5m: fc.integer({ min: 0, max: 100_000 }),
    cacheWrite1h: fc.integer({ min: 0, max: 100_000 }),
    output: fc.integer({ min: 0, max: 64_000 }),
  })
  .map((p): RequestParts => ({ ...p, reasoning: 0 }));

const dates = fc.constantFrom(null, '2025-06-01T00:00:00Z', '2026-09-23T12:00:00Z', '2026-12-31T23:59:59Z', '2027-01-01T00:00:00Z', 'not a date');

describe('PriceBook', () => {
  it('prices every request exactly as calcPrice does', async () => {
    const book = new PriceBook(await loadGenai());
    let timeOfDay = 0;
    fc.assert(
      fc.property(fc.constantFrom(...MODELS), parts, dates, (model, p, ts) => {
        if (model === 'deepseek-chat') timeOfDay += 1;
        const at = requestDate(ts);
        const quote = book.price(model, p, at);
        const direct =
          calcPrice(genaiUsage(p), model, { timestamp: at }) ??
          calcPrice(genaiUsage(p), model, { timestamp: at, providerId: 'litellm' });
        expect(direct, model).not.toBeNull();
        expect(quote.usd, model).not.toBeNull();
        expect(Math.abs(quote.usd! - direct!.total_price)).toBeLessThanOrEqual(1e-9 * Math.max(1, direct!.total_price));
      }),
      { numRuns: 3000 },
    );
    // Only the time-of-day model takes the slow path: for every other model the derived rates
    // passed their own check against the package in every (period, tier) they met.
    expect(book.stats.direct).toBe(timeOfDay);
  });

  it('right at a tier line: the last token under it at the base rate, one more at the tier rate', async () => {
    const book = new PriceBook(await loadGenai());
    const at = requestDate(null);
    for (const prompt of [199_999, 200_000, 200_001]) {
      const p: RequestParts = { input: prompt, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, output: 0, reasoning: 0 };
      // Sonnet 4.5: $3 per million up to 200K of prompt, $6 above (anthropic.com/pricing).
      const rate = prompt > 200_000 ? 6 : 3;
      expect(book.price('claude-sonnet-4-5', p, at).usd).toBeCloseTo((prompt * rate) / 1e6, 9);
    }
  });

  it('an unknown model or none at all is a reason, never a price', async () => {
    const book = new PriceBook(await loadGenai());
    const p: RequestParts = { input: 10, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, output: 10, reasoning: 0 };
    expect(book.price('house-model-7b', p, requestDate(null))).toEqual({ usd: null, reason: 'no price for model house-model-7b' });
    expect(book.price(null, p, requestDate(null))).toEqual({ usd: null, reason: 'the transcript names no model' });
  });
});
