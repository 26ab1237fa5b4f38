// Money where a person looks: what a session cost, what its flagged rounds cost, what Enforce
// would have saved, the totals, and the list-price label, in every human and CI format.

import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/ledger/summary.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { pricingInfo } from '../../src/money/prices.js';
import { renderReport } from '../../src/report/index.js';
import { flaggedRounds, savedPhrase, sessionCostPhrase, totalsPhrases } from '../../src/report/money.js';
import { entry, session } from './fixtures.js';

const stopped = session({
  id: 'loop-1',
  rounds: 6,
  usage: { requests: 6, input_tokens: 6000, cache_read_tokens: 90_000, cache_write_tokens: 4000, output_tokens: 3000, reasoning_tokens: 0, tokens: 103_000 },
  cost: { usd: 0.12, reason: null },
  entries: [
    entry({ round: 2, round_usage: { tokens: 17_000, usd: 0.02 } }),
    entry({ round: 3, intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' }, round_usage: { tokens: 18_000, usd: 0.025 } }),
    // Two findings on one round: the round counts once.
    entry({ round: 3, detector: 'output', kind: 'exact_block', intervention: { off: 'none', telemetry: 'noted', enforce: 'noted' }, round_usage: { tokens: 18_000, usd: 0.025 } }),
    entry({ round: 4, after_stop: true, intervention: { off: 'none', telemetry: 'noted', enforce: 'none' }, round_usage: { tokens: 19_000, usd: 0.035 } }),
  ],
  // SPEC 0.3 "What a stop cuts": of the rounds the stop prevents, 3 are still in the loop and 2 come after the agent recovered.
  outcome: { enforce: { steers: 0, stops: [{ turn: 1, round: 3, recovered_at: 7 }], saved: { rounds: 3, tokens: 1_234_567, usd: 38.2 }, cut: { rounds: 2, tokens: 40_000, usd: 1.5 } } },
});

const unpriced = session({
  id: 'house-1',
  model: 'house-model-7b',
  usage: { requests: 2, input_tokens: 900, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 100, reasoning_tokens: 0, tokens: 1000 },
  cost: { usd: null, reason: 'no price for model house-model-7b (2 requests)' },
});

function report(): LedgerReport {
  return assembleReport({ version: '0.0.0', config: {}, inputs: [], sessions: [stopped, unpriced], pricing: pricingInfo(null) });
}

describe('money in words', () => {
  it('the flagged rounds count each round once, with its tokens and dollars', () => {
    expect(flaggedRounds(stopped)).toEqual({ rounds: 3, tokens: 17_000 + 18_000 + 19_000, usd: expect.closeTo(0.02 + 0.025 + 0.035, 12) });
  });

  it('a session: its cost, or why there is none', () => {
    expect(sessionCostPhrase(stopped)).toBe('103k tokens in 6 requests ≈ $0.12');
    expect(sessionCostPhrase(unpriced)).toBe('1k tokens in 2 requests, cost unknown: no price for model house-model-7b (2 requests)');
    expect(savedPhrase(stopped)).toBe('Enforce would have saved 3 rounds, 1.2M tokens ≈ $38.20 and cut 2 rounds of new work, 40k tokens ≈ $1.50');
  });

  it('the totals, as the issue words them', () => {
    expect(totalsPhrases(report())).toEqual([
      'list price ≈ $0.12 (1 session could not be priced)',
      // Issue 28: "Enforce would have saved $X in N sessions and cut M rounds of new work in K".
      'Enforce would have stopped 1 session, saved about $38.20 in 1 session (1.2M tokens in 3 rounds) and cut 2 rounds of new work in 1',
    ]);
  });
});

describe('money in every format', () => {
  const render = (format: Parameters<typeof renderReport>[1]) => renderReport(report(), format, { width: 200, failOn: 'none' });

  it('table: per session and in the totals, labelled as list-price estimates', async () => {
    const out = await render('table');
    expect(out).toContain('103k tokens in 6 requests ≈ $0.12 · flagged rounds: 3 rounds, 54k tokens ≈ $0.08 · Enforce would have saved 3 rounds, 1.2M tokens ≈ $38.20 and cut 2 rounds of new work, 40k tokens ≈ $1.50');
    expect(out).toContain('Enforce would have stopped 1 session, saved about $38.20 in 1 session (1.2M tokens in 3 rounds) and cut 2 rounds of new work in 1');
    expect(out).toContain('Dollar figures are list-price estimates (@pydantic/genai-prices 0.1.8, prices as of 2026-09-23); subscription plans are not billed per token.');
  });

  it('markdown: the totals in words, the sessions table and each session carry the dollars', async () => {
    const out = await render('markdown');
    expect(out).toContain('List price ≈ \\$0.12 (1 session could not be priced). Enforce would have stopped 1 session, saved about \\$38.20 in 1 session (1.2M tokens in 3 rounds) and cut 2 rounds of new work in 1. Dollar figures are list-price estimates');
    expect(out).toContain('| session | path | format | rounds | findings | worst under enforce | tokens | list price | Enforce would save |');
    expect(out).toMatch(/\| loop-1 \| .* \| 103k \| \\\$0\.12 \| \\\$38\.20 · 3 rounds \|/);
    expect(out).toMatch(/\| house-1 \| .* \| 1k \| – \| – \|/);
    expect(out).toContain('103k tokens in 6 requests ≈ \\$0.12 · flagged rounds: 3 rounds, 54k tokens ≈ \\$0.08 · Enforce would have saved 3 rounds, 1.2M tokens ≈ \\$38.20 and cut 2 rounds of new work, 40k tokens ≈ \\$1.50');
  });

  it('junit: the failure message says what Enforce would have saved', async () => {
    const out = await render('junit');
    expect(out).toContain('message="enforce would stop the turn: stop at turn 1 round 3; Enforce would have saved 3 rounds, 1.2M tokens ≈ $38.20 and cut 2 rounds of new work, 40k tokens ≈ $1.50 (list price)"');
  });

  it('sarif: the stop result says it; round figures and totals are properties', async () => {
    const sarif = JSON.parse(await render('sarif'));
    const run = sarif.runs[0];
    const stop = run.results.find((r: { level: string }) => r.level === 'error');
    expect(stop.message.text).toContain('Enforce would have saved 3 rounds, 1.2M tokens ≈ $38.20 and cut 2 rounds of new work, 40k tokens ≈ $1.50 in this session (list-price estimate)');
    expect(stop.properties.round_usage).toEqual({ tokens: 18_000, usd: 0.025 });
    expect(run.properties.cost).toEqual({ usd: 0.12, unpriced_sessions: 1 });
    expect(run.properties.pricing).toMatchObject({ source: '@pydantic/genai-prices', version: '0.1.8' });
  });

  it('github: the stop annotation and the closing lines', async () => {
    const out = await render('github');
    expect(out).toMatch(/^::error .*Enforce would have saved 3 rounds, 1\.2M tokens ≈ \$38\.20 and cut 2 rounds of new work, 40k tokens ≈ \$1\.50 in this session \(list price\)$/m);
    expect(out).toContain('loopledger: list price ≈ $0.12 (1 session could not be priced); Enforce would have stopped 1 session, saved about $38.20 in 1 session (1.2M tokens in 3 rounds) and cut 2 rounds of new work in 1 (list-price estimates)');
  });

  it('a ledger without money (built by hand, or pricing off) renders as before', async () => {
    const plain = assembleReport({ version: '0', config: {}, inputs: [], sessions: [session({ id: 'bare' })] });
    delete plain.summary.cost;
    delete plain.summary.enforce.saved;
    const out = await renderReport(plain, 'table', { width: 120 });
    expect(out).not.toContain('$');
    const md = await renderReport(plain, 'markdown', { width: 120 });
    expect(md).not.toContain('list price');
  });
});
