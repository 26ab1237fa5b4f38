// The judge through the built binary, as a user or a CI job runs it, against a real server on
// 127.0.0.1. Needs the dist/ build (npm test builds first).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';
import { clearing, type JudgeServer, startJudgeServer } from './helpers.js';
import { reviewTranscript } from './transcripts.js';

const TEMPLATE = 'fixtures/calibration/claude-code/clean-review-template.jsonl';
const KEY = 'sk-live-ZXhhbXBsZS1zZWNyZXQta2V5LTAxMjM0';

beforeAll(() => ensureBuilt());

let server: JudgeServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const judge = (url: string, ...more: string[]) =>
  ['--set', `judge.endpoint=${url}`, '--set', 'judge.model=gpt-4o-mini', ...more.flatMap((m) => ['--set', m])];

interface Json {
  sessions: { path: string; outcome: { enforce: { steers: number } }; entries: { intervention: { enforce: string }; judge?: Record<string, unknown> }[] }[];
  summary: { judge: Record<string, number> };
  config: Record<string, unknown>;
}

describe('loopledger with a judge (spawned)', { timeout: 60_000 }, () => {
  it('the review template: cleared in JSON, marked in the table, accounted in the summary', async () => {
    server = await startJudgeServer(() => clearing(0.95));
    const json = await runCli([TEMPLATE, '--format', 'json', ...judge(server.url)]);
    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
    const j = JSON.parse(json.stdout) as Json;
    expect(j.sessions[0]!.outcome.enforce.steers).toBe(0);
    // Issue 19: the judge's tokens in dollars, at judge.model's list price. gpt-4o-mini lists
    // $0.15 per million input and $0.60 per million output tokens: 310 × 0.15e-6 + 24 × 0.60e-6.
    expect(j.summary.judge).toEqual({ requests: 1, input_tokens: 310, output_tokens: 24, cached: 0, failed: 0, usd: 0.0000609 });
    expect(j.config['judge.model']).toBe('gpt-4o-mini');

    const table = await runCli([TEMPLATE, '--explain', ...judge(server.url)]);
    expect(table.stdout).toContain('noted (judge)');
    expect(table.stdout).toContain('judge: progress 0.95');
    expect(table.stdout).toContain('judge: progress 0.95, carried from round 2');
    expect(table.stdout).toContain('judge: 1 request, 310 input / 24 output tokens under $0.01');

    const md = await runCli([TEMPLATE, '--format', 'markdown', ...judge(server.url)]);
    expect(md.stdout).toContain('noted (judge)');
  });

  it('the API key is read from the named variable, sent as a header, and printed nowhere', async () => {
    server = await startJudgeServer(() => clearing());
    const env = { LOOPLEDGER_JUDGE_KEY: KEY };
    const runs = await Promise.all([
      runCli([TEMPLATE, '--format', 'json', '--explain', '--verbose', ...judge(server.url, 'judge.api_key_env=LOOPLEDGER_JUDGE_KEY')], { env }),
      runCli([TEMPLATE, '--explain', '--excerpts', '--verbose', ...judge(server.url, 'judge.api_key_env=LOOPLEDGER_JUDGE_KEY')], { env }),
      runCli(['config', ...judge(server.url, 'judge.api_key_env=LOOPLEDGER_JUDGE_KEY')], { env }),
      runCli(['config', '--json', ...judge(server.url, 'judge.api_key_env=LOOPLEDGER_JUDGE_KEY')], { env }),
    ]);
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(KEY);
    }
    expect(runs[2]!.stdout).toContain('LOOPLEDGER_JUDGE_KEY');
    expect(server.requests.length).toBeGreaterThan(0);
    for (const req of server.requests) {
      expect(req.headers['authorization']).toBe(`Bearer ${KEY}`);
      expect(req.body).not.toContain(KEY);
    }
  });

  it('a key given where its variable name belongs is refused without being echoed', async () => {
    const r = await runCli([TEMPLATE, ...judge('http://127.0.0.1:9/v1', `judge.api_key_env=${KEY}`)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('judge.api_key_env');
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('configuration mistakes are usage errors (exit 2) with the key named', async () => {
    const noModel = await runCli([TEMPLATE, '--set', 'judge.endpoint=http://127.0.0.1:9/v1']);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/judge.endpoint is set but judge.model is not/);
    const badUrl = await runCli([TEMPLATE, ...judge('127.0.0.1:11434')]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/judge.endpoint "127.0.0.1:11434": expected an http/);
    expect(badUrl.stderr).not.toMatch(/\n\s+at /);
    const s = scratch('loopledger-judge-cli-');
    try {
      const notCache = s.write('notes.json', '["keep me"]');
      const r = await runCli([TEMPLATE, ...judge('http://127.0.0.1:9/v1', `judge.cache=${notCache}`)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/not a loopledger judge cache.*refusing to overwrite it/);
      expect(readFileSync(notCache, 'utf8')).toBe('["keep me"]');
    } finally {
      s.cleanup();
    }
  });

  it('--jobs: files in worker threads get the same verdicts and the same ledger', async () => {
    const s = scratch('loopledger-judge-jobs-');
    try {
      for (let k = 1; k <= 6; k++) s.write(`s${k}.jsonl`, reviewTranscript({ id: `s${k}`, dir: `pkg${k}/api` }).jsonl);
      server = await startJudgeServer(() => clearing());
      const cache = join(s.dir, 'cache.json');
      const one = await runCli([s.dir, '--json', '--jobs', '1', ...judge(server.url)]);
      const two = await runCli([s.dir, '--json', '--jobs', '3', ...judge(server.url, `judge.cache=${cache}`)]);
      expect(one.code).toBe(0);
      expect(two.code).toBe(0);
      const a = JSON.parse(one.stdout) as Json;
      const b = JSON.parse(two.stdout) as Json;
      expect(JSON.stringify(b.sessions)).toBe(JSON.stringify(a.sessions));
      expect(a.sessions.every((x) => x.outcome.enforce.steers === 0)).toBe(true);
      expect(a.summary.judge['requests']).toBe(6);
      expect(b.summary.judge['requests']).toBe(6);
    } finally {
      s.cleanup();
    }
  });

  it('stdin (-) is read once and replayed', async () => {
    server = await startJudgeServer(() => clearing());
    const r = await runCli(['-', '--json', ...judge(server.url)], { stdin: readFileSync(join(ROOT, TEMPLATE), 'utf8') });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as Json;
    expect(j.sessions[0]!.path).toBe('-');
    expect(j.sessions[0]!.outcome.enforce.steers).toBe(0);
  });
});
