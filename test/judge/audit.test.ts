// The judge in a whole run (the library's `audit`), against a real server on 127.0.0.1 that records
// every request and answers each case: confirming, clearing, garbage, slow, HTTP 500, 429.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { audit } from '../../src/run/audit.js';
import { loadConfig } from '../../src/config/load.js';
import { JUDGE_CACHE_SCHEMA } from '../../src/judge/cache.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { scratchDir, type Scratch } from '../read/tmp.js';
import { clearing, completion, confirming, type JudgeServer, longestSharedRun, type Reply, type RecordedRequest, startJudgeServer } from './helpers.js';
import { reviewTranscript } from './transcripts.js';

const TEMPLATE = fileURLToPath(new URL('../../fixtures/calibration/claude-code/clean-review-template.jsonl', import.meta.url));

let server: JudgeServer | null = null;
let tmp: Scratch;
beforeEach(() => {
  tmp = scratchDir('loopledger-judge-');
});
afterEach(async () => {
  await server?.close();
  server = null;
  tmp.cleanup();
});

async function serve(answer: (req: RecordedRequest, index: number) => Reply | Promise<Reply>): Promise<JudgeServer> {
  server = await startJudgeServer(answer);
  return server;
}

interface Run {
  report: LedgerReport;
  warnings: string[];
}

async function run(paths: string[], sets: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const loaded = await loadConfig({ sets });
  const warnings: string[] = [];
  const report = await audit(paths, { config: loaded.values, jobs: 1, env, onWarning: (m) => warnings.push(m) });
  return { report, warnings };
}

const judgeAt = (url: string, ...more: string[]) => [`judge.endpoint=${url}`, 'judge.model=judge-mini', ...more];

const enforce = (r: LedgerReport) => r.sessions.flatMap((s) => s.entries.map((e) => e.intervention.enforce));
/** The ledger without what a run spent (summary.judge): what must be reproducible. */
const ledgerOf = (r: LedgerReport) => JSON.stringify(r.sessions);

describe('the review template applied to five files', () => {
  it('steers without a judge, and "a judge would clear it"', async () => {
    // Issue 19: "a session such as a review template applied to five files steers three times
    // where a judge would clear it".
    const before = await run([TEMPLATE]);
    expect(before.report.sessions[0]!.outcome.enforce.steers).toBeGreaterThanOrEqual(3);
    expect(before.report.sessions[0]!.entries.map((e) => e.judge?.unusable)).toEqual(['no_judge', 'no_judge', 'over_budget', 'over_budget']);

    const srv = await serve(() => clearing(0.95));
    const { report, warnings } = await run([TEMPLATE], judgeAt(srv.url));
    const s = report.sessions[0]!;
    expect(s.outcome.enforce).toEqual({ steers: 0, stops: [], saved: { rounds: 0, tokens: 0, usd: 0 }, cut: { rounds: 0, tokens: 0, usd: 0 } });
    expect(enforce(report)).toEqual(Array(s.entries.length).fill('noted'));
    // "A verdict at or above the gate decides (... progress: noted only)": the first is asked, the
    // weaker evidence after it is covered by that verdict (judge.carry_verdicts).
    expect(s.entries[0]!.judge).toEqual({ consulted: true, verdict: 'progress', confidence: 0.95, within_budget: true });
    expect(s.entries.slice(1).map((e) => e.judge?.carried_from)).toEqual(Array(s.entries.length - 1).fill(s.entries[0]!.round));
    expect(srv.requests).toHaveLength(1);
    // A judge model without a list price: its tokens are counted, their dollars unknown, and why.
    expect(report.summary.judge).toEqual({
      requests: 1,
      input_tokens: 310,
      output_tokens: 24,
      cached: 0,
      failed: 0,
      usd: null,
      usd_reason: 'no price for model judge-mini',
    });
    expect(report.summary.enforce.sessions_steered).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('a confirming judge keeps the steers, and at L2 its loop verdict stops the turn', async () => {
    const srv = await serve(() => confirming(0.96));
    const { report } = await run([TEMPLATE], judgeAt(srv.url, 'judge.max_verdicts_per_turn=10'));
    const levels = enforce(report);
    expect(levels.slice(0, 3)).toEqual(['steer', 'steer', 'steer']);
    // "hard-stops only after 3 unheeded steers": the fourth ambiguous finding, confirmed, stops.
    expect(levels[3]).toBe('stop');
    expect(report.sessions[0]!.entries[3]!.finalization_reason).toBe('loop_detected');
  });

  it('"a judge model equal to the monitored session\'s model" is not asked, under another alias too', async () => {
    const srv = await serve(() => clearing());
    // The session's model is claude-sonnet-4-5-20250929.
    const { report } = await run([TEMPLATE], [`judge.endpoint=${srv.url}`, 'judge.model=anthropic/claude-sonnet-4.5']);
    expect(srv.requests).toHaveLength(0);
    expect(report.sessions[0]!.outcome.enforce.steers).toBeGreaterThanOrEqual(3);
    expect(report.sessions[0]!.entries[0]!.judge).toMatchObject({ consulted: false, verdict: 'indeterminate', unusable: 'self_arbitration' });
  });

  it('"Per-session current-turn budget": at most judge.max_verdicts_per_turn requests per turn', async () => {
    const srv = await serve(() => completion('{"verdict":"loop","confidence":0.4}'));
    const path = tmp.file('three-turns.jsonl', reviewTranscript({ id: 'three-turns', turns: 3 }).jsonl);
    const { report } = await run([path], judgeAt(srv.url));
    // Each turn meets the same evidence as the first: asked once, answered from then on.
    expect(srv.requests).toHaveLength(2);
    const byTurn = new Map<number, number>();
    for (const e of report.sessions[0]!.entries) if (e.judge?.consulted) byTurn.set(e.turn, (byTurn.get(e.turn) ?? 0) + 1);
    expect([...byTurn.values()]).toEqual([2, 2, 2]);
    expect(report.sessions[0]!.entries.filter((e) => e.judge?.unusable === 'over_budget').length).toBeGreaterThan(0);
    // Below the gate nothing changes: every ambiguous finding still steers.
    expect(report.sessions[0]!.entries.every((e) => e.judge?.verdict === 'indeterminate')).toBe(true);
  });
});

describe("the judge's own cost (summary.judge.usd)", () => {
  // Two answers with different token counts, so a total that priced only one, or the sums instead
  // of each request, would show. gpt-4o-mini lists $0.15 / million input, $0.60 / million output.
  const answers = [completion('{"verdict":"loop","confidence":0.4}', { prompt_tokens: 1000, completion_tokens: 100 }), completion('{"verdict":"loop","confidence":0.4}', { prompt_tokens: 2000, completion_tokens: 50 })];

  it("each request priced at judge.model's list price, and summed", async () => {
    const srv = await serve((_req, i) => answers[i % 2]!);
    const path = tmp.file('two-turns.jsonl', reviewTranscript({ id: 'two-turns', turns: 1 }).jsonl);
    const { report } = await run([path], [`judge.endpoint=${srv.url}`, 'judge.model=gpt-4o-mini']);
    expect(srv.requests).toHaveLength(2);
    // 3000 × 0.15e-6 + 150 × 0.60e-6 = 0.00045 + 0.00009
    expect(report.summary.judge).toMatchObject({ requests: 2, input_tokens: 3000, output_tokens: 150, usd: 0.00054 });
    expect(report.summary.judge?.usd_reason).toBeUndefined();
  });

  it('with prices off the judge is not priced (no usd field), its tokens still counted', async () => {
    const srv = await serve((_req, i) => answers[i % 2]!);
    const path = tmp.file('one-turn.jsonl', reviewTranscript({ id: 'one-turn', turns: 1 }).jsonl);
    const loaded = await loadConfig({ sets: [`judge.endpoint=${srv.url}`, 'judge.model=gpt-4o-mini'] });
    const report = await audit([path], { config: loaded.values, jobs: 1, env: {}, pricing: false });
    expect(report.summary.judge).toEqual({ requests: 2, input_tokens: 3000, output_tokens: 150, cached: 0, failed: 0 });
  });
});

describe('every unusable path is Indeterminate and the heuristic verdict stands', () => {
  const cases: [string, Reply, string, string[]][] = [
    ['garbage', completion('Sure! The agent seems fine to me.'), 'unparsable', []],
    ['slow', { ...confirming(), delayMs: 2000 }, 'timeout', ['judge.timeout_s=0.2']],
    ['HTTP 500', { status: 500, json: { error: 'boom' } }, 'http_500', []],
    ['HTTP 429', { status: 429, json: { error: 'rate limited' } }, 'http_429', []],
  ];
  for (const [name, reply, why, extra] of cases) {
    it(`${name}: the ledger is the no-judge ledger, and the failure is said once`, async () => {
      const baseline = await run([TEMPLATE]);
      const srv = await serve(() => reply);
      const cache = join(tmp.dir, 'verdicts.json');
      const { report, warnings } = await run([TEMPLATE], judgeAt(srv.url, `judge.cache=${cache}`, ...extra));
      expect(enforce(report)).toEqual(enforce(baseline.report));
      expect(report.sessions[0]!.outcome).toEqual(baseline.report.sessions[0]!.outcome);
      // One attempt per arbitration, within the turn's budget of two.
      expect(srv.requests).toHaveLength(2);
      expect(new Set(srv.requests.map((r) => r.prompt)).size).toBe(2);
      expect(report.sessions[0]!.entries.slice(0, 2).map((e) => e.judge)).toEqual([
        { consulted: true, verdict: 'indeterminate', confidence: null, within_budget: true, unusable: why },
        { consulted: true, verdict: 'indeterminate', confidence: null, within_budget: true, unusable: why },
      ]);
      expect(report.summary.judge).toMatchObject({ requests: 2, failed: 2 });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^judge: 2 of 2 request\(s\) gave no usable answer/);
      // A failure is no verdict: nothing cached, the next run asks again.
      expect(existsSync(cache)).toBe(false);
    });
  }

  it('the API key variable unset: nothing is asked, said once', async () => {
    const srv = await serve(() => clearing());
    const { report, warnings } = await run([TEMPLATE], judgeAt(srv.url, 'judge.api_key_env=LOOPLEDGER_TEST_JUDGE_KEY'), {});
    expect(srv.requests).toHaveLength(0);
    expect(report.sessions[0]!.entries[0]!.judge).toMatchObject({ consulted: false, unusable: 'no_api_key' });
    expect(warnings).toEqual(['judge.api_key_env: LOOPLEDGER_TEST_JUDGE_KEY is not set; no judge is asked, the heuristic verdicts stand']);
  });

  it('the API key from the named variable goes in the Authorization header', async () => {
    const srv = await serve(() => clearing());
    await run([TEMPLATE], judgeAt(srv.url, 'judge.api_key_env=LOOPLEDGER_TEST_JUDGE_KEY'), { LOOPLEDGER_TEST_JUDGE_KEY: 'sk-judge-123' });
    expect(srv.requests[0]!.headers['authorization']).toBe('Bearer sk-judge-123');
  });

  it('an endpoint that keeps failing is given up on after a run of failures, said once', async () => {
    for (let k = 1; k <= 12; k++) tmp.file(`s${k}.jsonl`, reviewTranscript({ id: `s${k}`, dir: `pkg${k}/api` }).jsonl);
    const srv = await serve(() => ({ status: 503, json: { error: 'down' } }));
    const { report, warnings } = await run([tmp.dir], judgeAt(srv.url, 'judge.concurrency=1'));
    // BREAKER_MIN_FAILURES (8) in a row, then nothing more.
    expect(srv.requests).toHaveLength(8);
    expect(report.summary.judge).toMatchObject({ requests: 8, failed: 8 });
    expect(warnings.filter((w) => w.includes('not asked again this run'))).toHaveLength(1);
    const unusable = report.sessions.map((s) => s.entries[0]!.judge?.unusable);
    expect(unusable.filter((u) => u === 'http_503')).toHaveLength(8);
    expect(unusable.filter((u) => u === 'judge_unavailable')).toHaveLength(4);
    // Whatever the judge did, the heuristic verdicts stand.
    expect(report.summary.enforce.sessions_steered).toBe(12);
  });

  it('judge.enabled=false never consults, whatever is configured', async () => {
    const srv = await serve(() => clearing());
    const { report } = await run([TEMPLATE], judgeAt(srv.url, 'judge.enabled=false'));
    expect(srv.requests).toHaveLength(0);
    expect(report.sessions[0]!.entries.every((e) => e.judge === undefined)).toBe(true);
  });
});

describe('the verdict cache (judge.cache)', () => {
  it('a re-run asks nothing twice and prints the same ledger', async () => {
    const cache = join(tmp.dir, 'ci', 'judge-cache.json');
    const paths = [TEMPLATE, tmp.file('other.jsonl', reviewTranscript({ id: 'other', dir: 'lib/routes' }).jsonl)];
    const first = await serve(() => clearing(0.93));
    const a = await run(paths, judgeAt(first.url, `judge.cache=${cache}`));
    expect(first.requests.length).toBe(2);
    await first.close();
    server = null;

    const doc = JSON.parse(readFileSync(cache, 'utf8')) as { schema: string; verdicts: Record<string, unknown> };
    expect(doc.schema).toBe(JUDGE_CACHE_SCHEMA);
    const keys = Object.keys(doc.verdicts);
    expect(keys).toEqual([...keys].sort());
    expect(Object.values(doc.verdicts)[0]).toEqual({
      model: 'judge-mini',
      signal: 'thinking/thinking_stagnation',
      verdict: 'progress',
      confidence: 0.93,
      reason: 'each block names a different file',
    });

    // The second run's judge would say the opposite, and is never asked.
    const second = await serve(() => confirming(0.99));
    const b = await run(paths, judgeAt(second.url, `judge.cache=${cache}`));
    expect(second.requests).toHaveLength(0);
    expect(ledgerOf(b.report)).toBe(ledgerOf(a.report));
    expect(b.report.summary.judge).toEqual({ requests: 0, input_tokens: 0, output_tokens: 0, cached: 2, failed: 0 });
    // Unchanged, byte for byte: nothing new to commit.
    expect(readFileSync(cache, 'utf8')).toBe(JSON.stringify(doc, null, 2) + '\n');
  });

  it('without the API key, the committed verdicts still apply (a CI job from a fork has no secrets)', async () => {
    const cache = join(tmp.dir, 'judge-cache.json');
    const srv = await serve(() => clearing());
    const a = await run([TEMPLATE], judgeAt(srv.url, `judge.cache=${cache}`));
    const b = await run([TEMPLATE], judgeAt(srv.url, `judge.cache=${cache}`, 'judge.api_key_env=LOOPLEDGER_TEST_JUDGE_KEY'), {});
    expect(srv.requests).toHaveLength(1);
    expect(ledgerOf(b.report)).toBe(ledgerOf(a.report));
    expect(b.report.summary.judge?.cached).toBe(1);
  });

  it('a file that is not a judge cache is a usage error, and is left untouched', async () => {
    const srv = await serve(() => clearing());
    const notCache = tmp.file('package.json', '{"name":"x"}');
    await expect(run([TEMPLATE], judgeAt(srv.url, `judge.cache=${notCache}`))).rejects.toThrow(/not a loopledger judge cache/);
    expect(readFileSync(notCache, 'utf8')).toBe('{"name":"x"}');
    expect(srv.requests).toHaveLength(0);
  });

  it('entries that are not verdicts are skipped with one warning', async () => {
    const srv = await serve(() => clearing());
    const cache = tmp.file('c.json', JSON.stringify({ schema: JUDGE_CACHE_SCHEMA, verdicts: { nothex: {}, ['a'.repeat(64)]: { verdict: 'maybe' } } }));
    const { warnings } = await run([TEMPLATE], judgeAt(srv.url, `judge.cache=${cache}`));
    expect(warnings).toContain(`judge.cache ${cache}: 2 entries are not verdicts; ignored`);
  });
});

describe('many sessions: bounded concurrency, sorted ledger', () => {
  it('at most judge.concurrency requests in flight, and the ledger in sorted order', async () => {
    const paths: string[] = [];
    for (let k = 12; k >= 1; k--) {
      paths.push(tmp.file(`s${String(k).padStart(2, '0')}.jsonl`, reviewTranscript({ id: `session-${k}`, dir: `services/svc${k}/api` }).jsonl));
    }
    const baseline = await run([tmp.dir]);
    // Every session meets ambiguous evidence of its own.
    expect(baseline.report.sessions.every((s) => s.entries.length > 0 && s.entries.every((e) => e.judge !== undefined))).toBe(true);

    const srv = await serve(() => ({ ...clearing(), delayMs: 150 }));
    const { report } = await run([tmp.dir], judgeAt(srv.url, 'judge.concurrency=3'));
    expect(srv.requests).toHaveLength(12);
    expect(srv.maxInFlight).toBeLessThanOrEqual(3);
    expect(srv.maxInFlight).toBeGreaterThanOrEqual(2);
    expect(report.sessions.map((s) => s.path)).toEqual(baseline.report.sessions.map((s) => s.path));
    expect(report.sessions.map((s) => s.path)).toEqual(report.sessions.map((s) => s.path).sort());
    expect(report.summary.enforce.sessions_steered).toBe(0);
  });

  it('the same verdicts give the same ledger whatever order the answers arrive in', async () => {
    for (let k = 1; k <= 6; k++) tmp.file(`s${k}.jsonl`, reviewTranscript({ id: `s${k}`, dir: `pkg${k}/api`, turns: 2 }).jsonl);
    // Progress for some evidence, loop for the rest, decided by the evidence itself.
    const decide = (r: RecordedRequest) => (/pkg[135]\//.test(r.prompt) ? clearing(0.92) : confirming(0.94));
    const fast = await serve((r) => decide(r));
    const a = await run([tmp.dir], judgeAt(fast.url, 'judge.concurrency=6'));
    await fast.close();
    const slowFirst = await serve((r, i) => ({ ...decide(r), delayMs: (7 * (i + 3)) % 60 }));
    const b = await run([tmp.dir], judgeAt(slowFirst.url, 'judge.concurrency=6'));
    expect(ledgerOf(b.report)).toBe(ledgerOf(a.report));
    expect(a.report.summary.judge?.requests).toBe(b.report.summary.judge?.requests);
  });
});

describe('the prompt is bounded', () => {
  it('no request body carries more than 80 consecutive characters of transcript text', async () => {
    const texts: string[] = [];
    for (const dir of ['src/api', 'lib/handlers', 'server/routes']) {
      const t = reviewTranscript({ id: `long-${dir}`, long: true, dir });
      texts.push(...t.texts);
      tmp.file(`${dir.replace('/', '-')}.jsonl`, t.jsonl);
    }
    // The blocks are long: the bound is the prompt's, not the transcript's.
    expect(Math.max(...texts.map((t) => t.length))).toBeGreaterThan(600);
    const path = tmp.dir;
    // Unconfident answers: nothing is carried, so every ambiguous finding within budget is asked.
    const srv = await serve(() => completion('{"verdict":"loop","confidence":0.5}'));
    await run([path], judgeAt(srv.url));
    expect(srv.requests.length).toBeGreaterThanOrEqual(6);
    for (const r of srv.requests) {
      const content = r.json!.messages!.map((m) => m.content).join('\n');
      // The excerpt carries 80 characters: the bound is reached, never passed.
      expect(Math.max(...texts.map((t) => longestSharedRun(t, content)))).toBe(80);
      for (const t of texts) {
        expect(longestSharedRun(t, r.body)).toBeLessThanOrEqual(80);
        expect(longestSharedRun(t, content)).toBeLessThanOrEqual(80);
      }
    }
  });
});

describe('stdin', () => {
  it('a transcript on stdin is read once and replayed from a private copy', async () => {
    const { Readable } = await import('node:stream');
    const srv = await serve(() => clearing());
    const loaded = await loadConfig({ sets: judgeAt(srv.url) });
    const report = await audit(['-'], {
      config: loaded.values,
      jobs: 1,
      env: {},
      stdin: Readable.from([readFileSync(TEMPLATE)]),
    });
    expect(report.sessions[0]!.path).toBe('-');
    expect(report.sessions[0]!.outcome.enforce.steers).toBe(0);
    expect(srv.requests).toHaveLength(1);
  });
});

describe('longestSharedRun (the measure the bound is checked with)', () => {
  it('measures consecutive characters, normalized', () => {
    expect(longestSharedRun('abcdef', 'xxABCyy')).toBe(3);
    expect(longestSharedRun('a  b', 'a b')).toBe(3);
    expect(longestSharedRun('', 'x')).toBe(0);
  });
});
