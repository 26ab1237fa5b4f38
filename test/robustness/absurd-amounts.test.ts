// Issue 27.18: an absurd price (1e308 dollars a token) or an absurd token count (a transcript's or
// a judge reply's 1e308) gives no non-finite dollars. The figure is refused with a reason: the
// session's cost is null with `reason` and the session is counted as unpriced; the judge's dollars
// are null with `usd_reason`. Never silent, and never a number merge would refuse.

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { audit } from '../../src/run/audit.js';
import { batch, claudeCode, repeat, scratch, user } from '../cli/helpers.js';
import { clearing, startJudgeServer } from '../judge/helpers.js';
import { ensureBuilt, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-absurd-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const SESSION = claudeCode([user('fix the test'), ...repeat([['Bash', { command: 'npm test' }]], 4, 'same'), batch([['Read', { path: 'a.ts' }]])]);
const SONNET = 'claude-sonnet-4-5-20250929';

async function ledger(args: string[]): Promise<LedgerReport> {
  const r = await spawnCli([...args, '--format', 'json']);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.toString('utf8')) as LedgerReport;
}

function unpriced(report: LedgerReport, reason: RegExp): void {
  const [s] = report.sessions;
  expect(s!.cost!.usd).toBeNull();
  expect(s!.cost!.reason).toMatch(reason);
  expect(report.summary.cost).toEqual({ usd: null, unpriced_sessions: 1 });
  // Every figure printed is one merge accepts: finite, never the JSON null of an Infinity.
  for (const e of s!.entries) if (e.round_usage?.usd !== undefined && e.round_usage.usd !== null) expect(Number.isFinite(e.round_usage.usd)).toBe(true);
}

describe('absurd figures are refused with a reason', () => {
  it('a --prices file at 1e308 dollars a million tokens: the session is unpriced, saying why', async () => {
    const file = tmp.write('house.jsonl', SESSION.replaceAll(SONNET, 'house-model-7b'));
    const prices = tmp.write('prices.json', JSON.stringify([{ id: 'house', models: [{ id: 'house-model-7b', prices: { input_mtok: 1e308, output_mtok: 1e308 } }] }]));
    const report = await ledger([file, '--prices', prices]);
    unpriced(report, /the price of house-model-7b gives (Infinity|NaN) dollars for one request: no usable price/);
    // The merge of it goes through (no figure it refuses), and says the same.
    const out = join(tmp.dir, 'house.json');
    expect((await spawnCli([file, '--prices', prices, '--format', 'json', '-o', out])).code).toBe(0);
    const merged = await spawnCli(['merge', out, '--format', 'json']);
    expect(merged.code, merged.stderr).toBe(0);
    unpriced(JSON.parse(merged.stdout.toString('utf8')) as LedgerReport, /no usable price/);
  });

  it('rates that are each finite but add up past 2^53 over the rounds', async () => {
    const file = tmp.write('sum.jsonl', SESSION.replaceAll(SONNET, 'house-model-7b'));
    // 1e305 $/Mtok × 15 tokens a request = 1.5e300 per request: finite, and so is their sum,
    // but far past what the ledger counts; each request is refused.
    const prices = tmp.write('sum-prices.json', JSON.stringify([{ id: 'house', models: [{ id: 'house-model-7b', prices: { input_mtok: 1e305, output_mtok: 1e305 } }] }]));
    unpriced(await ledger([file, '--prices', prices]), /no usable price/);
  });

  it("a transcript's input_tokens of 1e308", async () => {
    const file = tmp.write('tokens.jsonl', SESSION.replace('"input_tokens":10', '"input_tokens":1e308'));
    const report = await ledger([file]);
    unpriced(report, /a request records 1e\+308 input tokens, which is no count/);
    expect(Number.isSafeInteger(report.sessions[0]!.usage!.tokens)).toBe(true);
  });

  it("a judge reply's prompt_tokens of 1e308: the judge's dollars are null with the reason, its counters stay counts", async () => {
    const srv = await startJudgeServer(() => {
      const reply = clearing(0.95);
      (reply.json as { usage: Record<string, number> }).usage = { prompt_tokens: 1e308, completion_tokens: 24, total_tokens: 1e308 };
      return reply;
    });
    try {
      const template = fileURLToPath(new URL('../../fixtures/calibration/claude-code/clean-review-template.jsonl', import.meta.url));
      const config = (await loadConfig({ sets: [`judge.endpoint=${srv.url}`, 'judge.model=gpt-4o-mini'] })).values;
      const report = await audit([template], { config, jobs: 1, env: {} });
      const judge = report.summary.judge!;
      expect(judge.requests).toBeGreaterThan(0);
      expect(judge.usd).toBeNull();
      expect(judge.usd_reason).toMatch(/the judge reported 1e\+308 prompt tokens, which is no count/);
      expect(Number.isSafeInteger(judge.input_tokens)).toBe(true);
    } finally {
      await srv.close();
    }
  });
});
