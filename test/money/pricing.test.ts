// Each pricing rule pinned on a hand-computed figure. Every expected dollar amount is computed
// here from the providers' published per-million-token list prices (the constants below, with
// where they are published), never copied from the program's output. A transcript in each format
// goes through the library's front door (`audit`), so the adapters' usage is what gets priced.

import { afterAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/run/audit.js';
import type { LedgerReport, SessionLedger } from '../../src/ledger/types.js';
import { scratchDir } from '../read/tmp.js';

const M = 1_000_000;

// anthropic.com/pricing (Claude Sonnet 4.5): $3 / MTok input, $15 output; prompt caching: 5-minute
// writes $3.75, 1-hour writes $6, hits $0.30. Prompts over 200K input tokens: $6 input, $22.50
// output, writes $7.50 / $12, hits $0.60.
const SONNET_45 = { input: 3, output: 15, write5m: 3.75, write1h: 6, read: 0.3 };
const SONNET_45_LONG = { input: 6, output: 22.5, write5m: 7.5, write1h: 12, read: 0.6 };
// anthropic.com/pricing (Claude Opus 4.5): $5 input, $25 output, writes $6.25 / $10, hits $0.50.
const OPUS_45 = { input: 5, output: 25, write5m: 6.25, write1h: 10, read: 0.5 };
// openai.com/api/pricing (GPT-5, and gpt-5-codex, which is billed as GPT-5): $1.25 input,
// $0.125 cached input, $10 output (reasoning tokens are billed as output and counted inside it).
const GPT_5 = { input: 1.25, read: 0.125, output: 10 };
// openai.com/api/pricing (GPT-4o): $2.50 input, $1.25 cached input, $10 output.
const GPT_4O = { input: 2.5, read: 1.25, output: 10 };
// ai.google.dev/gemini-api/docs/pricing (Gemini 2.5 Pro, prompts up to 200K tokens): $1.25 input,
// $10 output (thinking tokens included), context caching $0.125; over 200K: $2.50 / $15 / $0.25.
const GEMINI_25_PRO = { input: 1.25, output: 10, read: 0.125 };
const GEMINI_25_PRO_LONG = { input: 2.5, output: 15, read: 0.25 };

const tmp = scratchDir('loopledger-money-');
afterAll(() => tmp.cleanup());

let n = 0;
async function ledgerOf(name: string, content: string, extra: Parameters<typeof audit>[1] = {}): Promise<LedgerReport> {
  const file = tmp.file(`${++n}-${name}`, content);
  return audit([file], { jobs: 1, ...extra });
}

async function sessionOf(name: string, content: string, extra: Parameters<typeof audit>[1] = {}): Promise<SessionLedger> {
  const report = await ledgerOf(name, content, extra);
  expect(report.sessions).toHaveLength(1);
  return report.sessions[0]!;
}

const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

// ---- Claude Code ---------------------------------------------------------------------------

let uuid = 0;
function cc(type: 'user' | 'assistant', message: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { type, sessionId: 'cc-1', uuid: `u${++uuid}`, timestamp: '2026-09-01T10:00:00.000Z', message, ...extra };
}
const ccUser = (text: string) => cc('user', { role: 'user', content: text });
const ccAssistant = (id: string, block: Record<string, unknown>, usage: Record<string, unknown>, model = 'claude-sonnet-4-5-20250929') =>
  cc('assistant', { id, model, role: 'assistant', type: 'message', content: [block], usage });
const text = (t: string) => ({ type: 'text', text: t });

describe('Claude Code', () => {
  it('input_tokens excludes the cache: the three parts are priced each at its own rate', async () => {
    const usage = { input_tokens: 1200, cache_read_input_tokens: 50_000, cache_creation_input_tokens: 8000, output_tokens: 900 };
    const s = await sessionOf('cc-parts.jsonl', jsonl([ccUser('go'), ccAssistant('msg_1', text('ok'), usage)]));
    const expected = (1200 * SONNET_45.input + 50_000 * SONNET_45.read + 8000 * SONNET_45.write5m + 900 * SONNET_45.output) / M;
    expect(s.cost!.usd).toBeCloseTo(expected, 9);
    expect(s.cost!.reason).toBeNull();
    expect(s.usage).toEqual({
      requests: 1,
      input_tokens: 1200,
      cache_read_tokens: 50_000,
      cache_write_tokens: 8000,
      output_tokens: 900,
      reasoning_tokens: 0,
      tokens: 1200 + 50_000 + 8000 + 900,
    });
  });

  it('lines sharing message.id are one request at the largest usage seen, never the sum', async () => {
    const first = { input_tokens: 10, cache_read_input_tokens: 30_000, output_tokens: 12 };
    const last = { input_tokens: 10, cache_read_input_tokens: 30_000, output_tokens: 640 };
    const s = await sessionOf(
      'cc-dedup.jsonl',
      jsonl([
        ccUser('go'),
        ccAssistant('msg_1', { type: 'thinking', thinking: 'plan', signature: 'x' }, first),
        ccAssistant('msg_1', text('running'), last),
        ccAssistant('msg_1', { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }, first),
        cc('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }] }),
      ]),
    );
    const expected = (10 * SONNET_45.input + 30_000 * SONNET_45.read + 640 * SONNET_45.output) / M;
    expect(s.usage!.requests).toBe(1);
    expect(s.usage!.tokens).toBe(10 + 30_000 + 640);
    expect(s.cost!.usd).toBeCloseTo(expected, 9);
  });

  it('one-hour cache writes at their own rate (cache_creation.ephemeral_1h_input_tokens)', async () => {
    const usage = {
      input_tokens: 50,
      cache_creation_input_tokens: 30_000,
      cache_creation: { ephemeral_5m_input_tokens: 10_000, ephemeral_1h_input_tokens: 20_000 },
      output_tokens: 100,
    };
    const s = await sessionOf('cc-1h.jsonl', jsonl([ccUser('go'), ccAssistant('msg_1', text('ok'), usage, 'claude-opus-4-5-20251101')]));
    const expected = (50 * OPUS_45.input + 10_000 * OPUS_45.write5m + 20_000 * OPUS_45.write1h + 100 * OPUS_45.output) / M;
    expect(s.cost!.usd).toBeCloseTo(expected, 9);
  });

  it('long-context prices apply per request: two 150K requests cost the base rate, not the >200K rate of their sum', async () => {
    const usage = { input_tokens: 150_000, output_tokens: 0 };
    const s = await sessionOf(
      'cc-tiers.jsonl',
      jsonl([ccUser('go'), ccAssistant('msg_1', text('a'), usage), ccUser('again'), ccAssistant('msg_2', text('b'), usage)]),
    );
    const perRequest = 2 * ((150_000 * SONNET_45.input) / M);
    const summedWrongly = (300_000 * SONNET_45_LONG.input) / M;
    expect(s.cost!.usd).toBeCloseTo(perRequest, 9);
    expect(s.cost!.usd).not.toBeCloseTo(summedWrongly, 2);
  });

  it('a request over 200K prompt tokens (cache included) pays the long-context rate on every part', async () => {
    // 100K plain + 120K read from cache = 220K of prompt: over the line, though input_tokens alone is not.
    const usage = { input_tokens: 100_000, cache_read_input_tokens: 120_000, output_tokens: 2000 };
    const s = await sessionOf('cc-long.jsonl', jsonl([ccUser('go'), ccAssistant('msg_1', text('ok'), usage)]));
    const expected = (100_000 * SONNET_45_LONG.input + 120_000 * SONNET_45_LONG.read + 2000 * SONNET_45_LONG.output) / M;
    expect(s.cost!.usd).toBeCloseTo(expected, 9);
  });

  it('exactly 200K prompt tokens is not over 200K: base rate', async () => {
    const usage = { input_tokens: 200_000, output_tokens: 10 };
    const s = await sessionOf('cc-edge.jsonl', jsonl([ccUser('go'), ccAssistant('msg_1', text('ok'), usage)]));
    expect(s.cost!.usd).toBeCloseTo((200_000 * SONNET_45.input + 10 * SONNET_45.output) / M, 9);
  });
});

// ---- Codex ---------------------------------------------------------------------------------

describe('Codex', () => {
  it('last_token_usage: input includes the cached part, reasoning is inside output (not added)', async () => {
    const ev = (type: string, payload: Record<string, unknown>, ts = '2026-09-01T10:00:00.000Z') => ({ timestamp: ts, type, payload });
    const usage = (input: number, cached: number, output: number, reasoning: number) => ({
      input_tokens: input,
      cached_input_tokens: cached,
      output_tokens: output,
      reasoning_output_tokens: reasoning,
      total_tokens: input + output,
    });
    const s = await sessionOf(
      'rollout-2026-09-01T10-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl',
      jsonl([
        ev('session_meta', { id: '0199aaaa-0000-7000-8000-000000000001', cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.50.0' }),
        ev('turn_context', { cwd: '/w', model: 'gpt-5-codex' }),
        ev('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }] }),
        ev('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'looking' }] }),
        ev('event_msg', { type: 'token_count', info: { last_token_usage: usage(10_000, 6000, 500, 300), total_token_usage: usage(10_000, 6000, 500, 300) } }),
        ev('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }),
        ev('event_msg', { type: 'token_count', info: { last_token_usage: usage(12_000, 10_000, 80, 0), total_token_usage: usage(22_000, 16_000, 580, 300) } }),
      ]),
    );
    expect(s.model).toBe('gpt-5-codex');
    const expected = ((10_000 - 6000) * GPT_5.input + 6000 * GPT_5.read + 500 * GPT_5.output + (12_000 - 10_000) * GPT_5.input + 10_000 * GPT_5.read + 80 * GPT_5.output) / M;
    expect(s.usage).toMatchObject({ requests: 2, input_tokens: 6000, cache_read_tokens: 16_000, output_tokens: 580, reasoning_tokens: 300, tokens: 22_580 });
    expect(s.cost!.usd).toBeCloseTo(expected, 9);
  });
});

// ---- OpenAI Chat Completions and Responses -------------------------------------------------

describe('OpenAI', () => {
  it('Chat Completions usage: prompt_tokens include prompt_tokens_details.cached_tokens', async () => {
    const doc = {
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: 'hello',
          usage: { prompt_tokens: 2000, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 0 } },
        },
      ],
    };
    const s = await sessionOf('chat.json', JSON.stringify(doc));
    expect(s.cost!.usd).toBeCloseTo(((2000 - 1024) * GPT_4O.input + 1024 * GPT_4O.read + 300 * GPT_4O.output) / M, 9);
  });

  it('Responses usage: input_tokens include input_tokens_details.cached_tokens; reasoning inside output', async () => {
    const doc = {
      model: 'gpt-5',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: 'hello',
          usage: { input_tokens: 8000, input_tokens_details: { cached_tokens: 3000 }, output_tokens: 1500, output_tokens_details: { reasoning_tokens: 1200 } },
        },
      ],
    };
    const s = await sessionOf('responses-usage.json', JSON.stringify(doc));
    expect(s.usage).toMatchObject({ input_tokens: 5000, cache_read_tokens: 3000, output_tokens: 1500, reasoning_tokens: 1200 });
    expect(s.cost!.usd).toBeCloseTo((5000 * GPT_5.input + 3000 * GPT_5.read + 1500 * GPT_5.output) / M, 9);
  });
});

// ---- Gemini CLI ----------------------------------------------------------------------------

describe('Gemini CLI', () => {
  const session = (tokens: Record<string, number>) =>
    JSON.stringify({
      sessionId: 'g-1',
      projectHash: 'p',
      startTime: '2026-09-01T10:00:00.000Z',
      lastUpdated: '2026-09-01T10:01:00.000Z',
      messages: [
        { id: 'm1', timestamp: '2026-09-01T10:00:00.000Z', type: 'user', content: 'go' },
        { id: 'm2', timestamp: '2026-09-01T10:00:05.000Z', type: 'gemini', content: 'ok', model: 'gemini-2.5-pro', tokens },
      ],
    });

  it('thoughts are billed as output; cached is part of input; the parts add up to total', async () => {
    const tokens = { input: 10_000, output: 200, cached: 4000, thoughts: 800, tool: 0, total: 11_000 };
    const s = await sessionOf('session-g1.json', session(tokens));
    expect(s.usage).toMatchObject({ input_tokens: 6000, cache_read_tokens: 4000, output_tokens: 1000, reasoning_tokens: 800, tokens: tokens.total });
    expect(s.cost!.usd).toBeCloseTo((6000 * GEMINI_25_PRO.input + 4000 * GEMINI_25_PRO.read + 1000 * GEMINI_25_PRO.output) / M, 9);
  });

  it('over 200K of prompt, Gemini 2.5 Pro pays its long-context rates', async () => {
    const tokens = { input: 250_000, output: 100, cached: 0, thoughts: 400, tool: 0, total: 250_500 };
    const s = await sessionOf('session-g2.json', session(tokens));
    expect(s.cost!.usd).toBeCloseTo((250_000 * GEMINI_25_PRO_LONG.input + 500 * GEMINI_25_PRO_LONG.output) / M, 9);
  });
});

// ---- What cannot be priced -----------------------------------------------------------------

describe('no guess, no silent zero', () => {
  it('an unknown model: usd null with a reason naming it, tokens still counted', async () => {
    const s = await sessionOf(
      'unknown.jsonl',
      jsonl([ccUser('go'), ccAssistant('msg_1', text('ok'), { input_tokens: 100, output_tokens: 5 }, 'house-model-7b')]),
    );
    expect(s.cost).toEqual({ usd: null, reason: 'no price for model house-model-7b (1 request)' });
    expect(s.usage!.tokens).toBe(105);
  });

  it('one unpriced request makes the session unpriced (a partial sum would pass for a total)', async () => {
    const s = await sessionOf(
      'mixed.jsonl',
      jsonl([
        ccUser('go'),
        ccAssistant('msg_1', text('a'), { input_tokens: 100, output_tokens: 5 }),
        ccAssistant('msg_2', text('b'), { input_tokens: 100, output_tokens: 5 }, 'house-model-7b'),
      ]),
    );
    expect(s.cost!.usd).toBeNull();
    expect(s.cost!.reason).toContain('house-model-7b');
  });

  it('an export without usage says so', async () => {
    const conversation = {
      id: 'c1',
      title: 't',
      current_node: 'n2',
      mapping: {
        root: { id: 'root', message: null, parent: null, children: ['n1'] },
        n1: { id: 'n1', parent: 'root', children: ['n2'], message: { id: 'n1', author: { role: 'user' }, content: { content_type: 'text', parts: ['hi'] }, recipient: 'all' } },
        n2: {
          id: 'n2',
          parent: 'n1',
          children: [],
          message: { id: 'n2', author: { role: 'assistant' }, content: { content_type: 'text', parts: ['hello'] }, recipient: 'all', metadata: { model_slug: 'gpt-4o' } },
        },
      },
    };
    const report = await ledgerOf('conversations.json', JSON.stringify([conversation]));
    const s = report.sessions[0]!;
    expect(s.format).toBe('chatgpt');
    expect(s.cost).toEqual({ usd: null, reason: 'ChatGPT exports record no token usage' });
    expect(report.summary.cost).toEqual({ usd: null, unpriced_sessions: 1 });
  });

  it('a session without rounds cost nothing; the summary adds priced sessions and counts the rest', async () => {
    const usage = { input_tokens: 1000, output_tokens: 100 };
    const a = tmp.file('sum-a.jsonl', jsonl([ccUser('go'), ccAssistant('msg_1', text('ok'), usage)]));
    const b = tmp.file('sum-b.jsonl', jsonl([ccUser('go'), ccAssistant('msg_1', text('ok'), usage, 'house-model-7b')]));
    const report = await audit([a, b], { jobs: 1 });
    expect(report.summary.cost).toEqual({ usd: expect.closeTo((1000 * SONNET_45.input + 100 * SONNET_45.output) / M, 9), unpriced_sessions: 1 });
  });
});

// ---- Overrides ------------------------------------------------------------------------------

describe('--prices overrides', () => {
  const provider = (models: unknown[]) => ({ path: 'prices.json', providers: [{ id: 'house', name: 'House', api_pattern: '(?!)', models }] });

  it('adds a price for a model the data lacks', async () => {
    const overrides = provider([{ id: 'house-model-7b', match: { equals: 'house-model-7b' }, prices: { input_mtok: 0.2, output_mtok: 0.8 } }]);
    const s = await sessionOf(
      'house.jsonl',
      jsonl([ccUser('go'), ccAssistant('msg_1', text('ok'), { input_tokens: 40_000, output_tokens: 2500 }, 'house-model-7b')]),
      { pricing: { overrides: overrides as never } },
    );
    expect(s.cost!.usd).toBeCloseTo((40_000 * 0.2 + 2500 * 0.8) / M, 9);
  });

  it('takes precedence over the bundled price of a known model', async () => {
    // A negotiated rate: half of Sonnet 4.5's list input and output, no cache discount.
    const overrides = provider([{ id: 'sonnet', match: { starts_with: 'claude-sonnet-4-5' }, prices: { input_mtok: 1.5, output_mtok: 7.5 } }]);
    const s = await sessionOf(
      'negotiated.jsonl',
      jsonl([ccUser('go'), ccAssistant('msg_1', text('ok'), { input_tokens: 1000, output_tokens: 100 })]),
      { pricing: { overrides: overrides as never } },
    );
    expect(s.cost!.usd).toBeCloseTo((1000 * 1.5 + 100 * 7.5) / M, 9);
  });

  it('dated prices follow each request\'s own timestamp; an undated request is priced as of the data date', async () => {
    const overrides = provider([
      {
        id: 'house-model-7b',
        match: { equals: 'house-model-7b' },
        prices: [{ prices: { input_mtok: 1, output_mtok: 2 } }, { constraint: { start_date: '2026-06-01', type: 'start_date' }, prices: { input_mtok: 4, output_mtok: 8 } }],
      },
    ]);
    const at = (ts: string, id: string) => ({ ...ccAssistant(id, text('ok'), { input_tokens: 1000, output_tokens: 100 }, 'house-model-7b'), timestamp: ts });
    const s = await sessionOf('dated.jsonl', jsonl([ccUser('go'), at('2026-05-31T23:59:59Z', 'msg_1'), at('2026-06-01T00:00:00Z', 'msg_2')]), {
      pricing: { overrides: overrides as never },
    });
    expect(s.cost!.usd).toBeCloseTo((1000 * 1 + 100 * 2 + 1000 * 4 + 100 * 8) / M, 9);
  });
});

// ---- What Enforce would have saved ------------------------------------------------------------

describe('saved by Enforce and round_usage', () => {
  it('every round of the turn after the stop, with its tokens and dollars; entries carry their round\'s figures', async () => {
    // The same failing batch five times in one turn: max_strikes 2 stops the third, so rounds 4
    // and 5 would not have happened. Each round's usage differs so the sums are checkable.
    const records: unknown[] = [ccUser('fix the test')];
    const usages = [1000, 2000, 3000, 4000, 5000].map((input, i) => ({ input_tokens: input, cache_read_input_tokens: 10_000, output_tokens: 100 * (i + 1) }));
    usages.forEach((usage, i) => {
      records.push(ccAssistant(`msg_${i + 1}`, { type: 'tool_use', id: `t${i + 1}`, name: 'Bash', input: { command: 'npm test' } }, usage));
      records.push(cc('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i + 1}`, content: 'FAIL', is_error: true }] }));
    });
    const s = await sessionOf('saved.jsonl', jsonl(records));
    expect(s.outcome.enforce.stops).toEqual([{ turn: 1, round: 3 }]);
    const price = (u: { input_tokens: number; cache_read_input_tokens: number; output_tokens: number }) =>
      (u.input_tokens * SONNET_45.input + u.cache_read_input_tokens * SONNET_45.read + u.output_tokens * SONNET_45.output) / M;
    const tokens = (u: { input_tokens: number; cache_read_input_tokens: number; output_tokens: number }) => u.input_tokens + u.cache_read_input_tokens + u.output_tokens;
    const saved = s.outcome.enforce.saved!;
    expect(saved.rounds).toBe(2);
    expect(saved.tokens).toBe(tokens(usages[3]!) + tokens(usages[4]!));
    expect(saved.usd).toBeCloseTo(price(usages[3]!) + price(usages[4]!), 9);
    for (const e of s.entries) {
      const u = usages[e.round - 1]!;
      expect(e.round_usage!.tokens).toBe(tokens(u));
      expect(e.round_usage!.usd).toBeCloseTo(price(u), 9);
    }
    const report = await ledgerOf('saved-2.jsonl', jsonl(records));
    expect(report.summary.enforce.saved).toEqual({ rounds: 2, tokens: saved.tokens, usd: expect.closeTo(saved.usd!, 9), unpriced_sessions: 0, sessions: 1 });
    // Rounds 4 and 5 are the same failing batch again: still in the loop, so nothing is cut.
    expect(s.outcome.enforce.cut).toEqual({ rounds: 0, tokens: 0, usd: 0 });
    expect(report.summary.enforce.cut).toEqual({ rounds: 0, tokens: 0, usd: 0, unpriced_sessions: 0, sessions: 0 });
  });
});

describe('the pricing block', () => {
  it('names the package, its pinned version and its data date; no block when pricing is off', async () => {
    const content = jsonl([ccUser('go'), ccAssistant('msg_1', text('ok'), { input_tokens: 1, output_tokens: 1 })]);
    const on = await ledgerOf('block.jsonl', content);
    expect(on.pricing).toEqual({ source: '@pydantic/genai-prices', version: '0.1.8', data_date: '2026-09-23', overrides: null });
    const off = await ledgerOf('block-off.jsonl', content, { pricing: false });
    expect(off.pricing).toBeUndefined();
    expect(off.sessions[0]!.cost).toEqual({ usd: null, reason: 'not priced' });
    expect(off.sessions[0]!.usage!.tokens).toBe(2);
  });
});
