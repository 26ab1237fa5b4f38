// `loopledger merge` with an arbitration judge in the run: the shards' ledgers (entries carrying the
// judge's verdicts, summary.judge counting its requests, tokens and dollars) add up to one run's.
// Merged as a user merges them: the shards written to files and given to the command, which reads
// them into its spill (src/merge/read-shards.ts).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { audit } from '../../src/run/audit.js';
import { loadConfig } from '../../src/config/load.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { renderReport } from '../../src/report/index.js';
import { shardKey, shardOf } from '../../src/read/shard.js';
import { completion, type JudgeServer, startJudgeServer } from '../judge/helpers.js';
import { reviewTranscript } from '../judge/transcripts.js';
import { scratchDir, type Scratch } from '../read/tmp.js';
import { runMain } from '../robustness/helpers.js';

let server: JudgeServer | null = null;
let tmp: Scratch;
beforeEach(() => {
  tmp = scratchDir('loopledger-merge-judge-');
});
afterEach(async () => {
  await server?.close();
  server = null;
  tmp.cleanup();
});

/** The ledgers written to files of these names and merged by the command to a JSON ledger. */
async function mergeByCommand(ledgers: readonly { name: string; report: LedgerReport }[]): Promise<LedgerReport> {
  const files = ledgers.map(({ name, report }) => tmp.file(name, JSON.stringify(report)));
  const r = await runMain(['merge', ...files, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as LedgerReport;
}

describe('merge with a judge', () => {
  it('3 shards merged = one run: verdicts in the entries, summary.judge requests, tokens and dollars', async () => {
    // Answers of different sizes, so that a total counting a request twice or missing one shows.
    let n = 0;
    server = await startJudgeServer(() => {
      n += 1;
      return completion('{"verdict":"progress","confidence":0.97,"reason":"a new file each time"}', { prompt_tokens: 900 + 10 * n, completion_tokens: 20 + n });
    });
    const dirs = ['src/api', 'src/billing', 'lib/auth', 'web/routes', 'jobs/cron', 'cli/cmds'];
    for (const [i, dir] of dirs.entries()) tmp.file(`review-${i}.jsonl`, reviewTranscript({ id: `review-${i}`, turns: 2, dir }).jsonl);
    const config = (await loadConfig({ sets: [`judge.endpoint=${server.url}`, 'judge.model=gpt-4o-mini'] })).values;
    const run = (shard?: { index: number; count: number }) => audit([tmp.dir], { config, jobs: 1, env: {}, ...(shard ? { shard } : {}) });

    const whole = await run();
    const asked = n;
    expect(whole.summary.judge!.requests).toBe(asked);
    expect(asked).toBeGreaterThan(3);
    expect(whole.summary.judge!.usd).toBeGreaterThan(0);
    expect(whole.sessions.flatMap((s) => s.entries).some((e) => e.judge?.consulted)).toBe(true);

    // The server answers the same evidence the same way whatever the order: only the usage grows.
    const shards: LedgerReport[] = [];
    for (let k = 1; k <= 3; k++) shards.push(await run({ index: k, count: 3 }));
    expect(shards.filter((s) => s.sessions.length > 0).length).toBeGreaterThan(1);
    for (const [k, s] of shards.entries()) for (const i of s.inputs) expect(shardOf(shardKey(i.path, tmp.dir), 3)).toBe(k + 1);
    expect(shards.reduce((a, s) => a + s.summary.judge!.requests, 0)).toBe(asked);

    const merged = await mergeByCommand(shards.map((report, i) => ({ name: `shard-${i + 1}.json`, report })));
    expect(merged.summary.judge).toMatchObject({ requests: asked, failed: 0, cached: 0 });
    expect(merged.summary.judge!.input_tokens).toBe(shards.reduce((a, s) => a + s.summary.judge!.input_tokens, 0));
    expect(merged.summary.judge!.usd).toBeCloseTo(shards.reduce((a, s) => a + (s.summary.judge!.usd ?? 0), 0), 9);
    // Sessions, entries (judge verdicts included), inputs, money: one run's, byte for byte. The
    // judge's usage depends on which request got which size of answer, so it is compared apart.
    const withoutJudgeUsage = (r: LedgerReport) => ({ ...r, summary: { ...r.summary, judge: undefined } });
    expect(withoutJudgeUsage(merged)).toEqual(withoutJudgeUsage(JSON.parse(await renderReport(whole, 'json')) as LedgerReport));
  });

  it('an unpriced judge in one shard leaves the merged judge dollars unknown, with the reason', async () => {
    const base = (judge: NonNullable<LedgerReport['summary']['judge']>, index: number): LedgerReport => ({
      schema: 'loopledger/1',
      tool: { name: 'loopledger', version: '0.1.0' },
      config: { mode: 'telemetry' },
      shard: { index, count: 2 },
      inputs: [],
      not_transcripts: [],
      sessions: [],
      summary: { sessions: 0, rounds: 0, entries: 0, skipped_lines: 0, enforce: { sessions_stopped: 0, sessions_steered: 0 }, judge },
    });
    const priced = { requests: 2, input_tokens: 100, output_tokens: 10, cached: 1, failed: 0, usd: 0.0001 };
    const unpriced = { requests: 1, input_tokens: 50, output_tokens: 5, cached: 0, failed: 1, usd: null, usd_reason: 'no price for model house-judge' };
    const merged = await mergeByCommand([
      { name: 'a.json', report: base(priced, 1) },
      { name: 'b.json', report: base(unpriced, 2) },
    ]);
    expect(merged.summary.judge).toEqual({ requests: 3, input_tokens: 150, output_tokens: 15, cached: 1, failed: 1, usd: null, usd_reason: 'no price for model house-judge' });
    const both = await mergeByCommand([
      { name: 'a.json', report: base(priced, 1) },
      { name: 'b.json', report: base({ ...priced, usd: 0.0002 }, 2) },
    ]);
    expect(both.summary.judge!.usd).toBeCloseTo(0.0003, 12);
  });
});
