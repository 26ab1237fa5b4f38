// One large file across two threads (src/run/reader-thread.ts) must give the ledger the one-thread path
// gives, byte for byte, with the same diagnostics in the same order (SPEC "Performance": "output
// byte-identical whatever the chunking/jobs"). The worker only exists in dist/, so the pipeline
// is exercised through the build; from the .ts sources it must fall back silently.
// Every fixture through both paths is test/robustness/pipeline-fixtures.test.ts, in the soak tier.

import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditFile as auditFromSources } from '../../src/run/audit.js';
import { answerDigest, answersDigest, batchSignature } from '../../src/detect/tool-batch/signature.js';
import { ensureBuilt, FIXTURES, ROOT, scratch, type Scratch } from './helpers.js';
import { type Dist, loadDist, run } from './pipeline-run.js';

let dist: Dist;
let tmp: Scratch;
/** Over PIPELINE_MIN_BYTES, with a malformed line inside and an unfinished last line. */
let large: string;

beforeAll(async () => {
  ensureBuilt();
  dist = await loadDist();
  tmp = scratch('loopledger-pipeline-');
  const generated = join(tmp.dir, 'generated.jsonl');
  const { generate } = (await import(pathToFileURL(join(ROOT, 'bench', 'generate.mjs')).href)) as {
    generate: (path: string, bytes: number) => Promise<void>;
  };
  await generate(generated, dist.pipeline.PIPELINE_MIN_BYTES + 1024 * 1024);
  const lines = readFileSync(generated, 'utf8').split('\n');
  lines.splice(Math.floor(lines.length / 2), 0, '{"type": "assistant", broken');
  large = tmp.file('large.jsonl', lines.join('\n'));
  appendFileSync(large, '{"type":"user","message":');
}, 120_000);

afterAll(() => tmp?.cleanup());

describe('two-thread pipeline', () => {
  it('compares an answer digested in the reading thread equal to one hashed from its content', () => {
    const calls = [{ id: 'a', name: 'Bash', arguments: { command: 'npm test' } }, { id: 'b', name: 'Read', arguments: { path: 'x' } }];
    const answers = [
      { content: 'FAIL src/a.test.ts\n'.repeat(1000), isError: true },
      { content: 'ok', isError: false },
    ];
    const sent = answers.map((a) => ({ content: '', isError: a.isError, digest: answerDigest(a) }));
    const batch = batchSignature(calls);
    expect(sent.map(answerDigest)).toEqual(answers.map(answerDigest));
    expect(answersDigest(batch, sent)).toBe(answersDigest(batch, answers));
  });

  it('gives a generated multi-megabyte Claude Code file the one-thread ledger, skips included', async () => {
    expect(await dist.pipeline.worthPipelining(large)).toBe(true);
    const one = await run(large, 'one thread');
    const two = await run(large, 'two threads');
    const auto = await run(large, 'auditFile');
    expect(JSON.parse(one.json).summary.rounds).toBeGreaterThan(1000);
    expect(one.diagnostics.filter((d) => d.startsWith('skip'))).toHaveLength(2);
    expect(two.json).toBe(one.json);
    expect(two.diagnostics).toEqual(one.diagnostics);
    expect(auto.json).toBe(one.json);
    expect(auto.diagnostics).toEqual(one.diagnostics);
  }, 120_000);

  it('carries every request\'s usage across the threads: the cost is the one computed here from the file', async () => {
    // Computed independently of the program: per message.id the line with the most billed tokens
    // (never the sum), priced at Sonnet 4.5's list prices (anthropic.com/pricing: $3 / MTok
    // input, $0.30 cache hits, $15 output; every request here is far under 200K of prompt).
    const largest = new Map<string, { input: number; read: number; output: number }>();
    for (const line of readFileSync(large, 'utf8').split('\n')) {
      let r: { type?: string; message?: { id?: string; usage?: Record<string, number> } };
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      const u = r.message?.usage;
      if (r.type !== 'assistant' || !u || !r.message?.id) continue;
      const seen = { input: u['input_tokens']!, read: u['cache_read_input_tokens'] ?? 0, output: u['output_tokens']! };
      const kept = largest.get(r.message.id);
      const total = (x: typeof seen) => x.input + x.read + x.output;
      if (!kept || total(seen) > total(kept)) largest.set(r.message.id, seen);
    }
    let tokens = 0;
    let usd = 0;
    for (const x of largest.values()) {
      tokens += x.input + x.read + x.output;
      usd += (x.input * 3 + x.read * 0.3 + x.output * 15) / 1e6;
    }
    const two = JSON.parse((await run(large, 'auditFile')).json);
    const session = two.sessions[0];
    expect(session.usage.requests).toBe(largest.size);
    expect(session.usage.tokens).toBe(tokens);
    expect(session.cost.usd).toBeCloseTo(usd, 6);
  }, 120_000);

  it('gives the same excerpts, explanations and per-round verdicts', async () => {
    const one = await run(large, 'one thread', true);
    const two = await run(large, 'auditFile', true);
    expect(JSON.parse(one.json).sessions[0].verdicts.length).toBeGreaterThan(1000);
    expect(two.json).toBe(one.json);
    expect(two.diagnostics).toEqual(one.diagnostics);
  }, 120_000);

  it('a large file alone goes to a lane that reads it in a thread of its own: the one-thread report and diagnostics', async () => {
    // The lane keeps the detectors' heap capped like any lane's (src/run/audit.ts auditFiles).
    const collect = async (jobs: number) => {
      const diagnostics: string[] = [];
      const progress: string[] = [];
      const report = await dist.audit.audit([large], {
        jobs,
        excerpts: true,
        explain: true,
        verbose: true,
        onSkip: (path, s) => diagnostics.push(`skip ${path}:${s.line}: ${s.reason}`),
        onWarning: (m) => diagnostics.push(`warning ${m}`),
        onProgress: (done, total) => progress.push(`${done}/${total}`),
      });
      return { json: [...dist.json.jsonReportChunks(report, true)].join(''), diagnostics, progress };
    };
    const one = await collect(1);
    const lane = await collect(2);
    expect(JSON.parse(one.json).summary.rounds).toBeGreaterThan(1000);
    expect(lane.json).toBe(one.json);
    expect(lane.diagnostics).toEqual(one.diagnostics);
    expect(lane.progress).toEqual(['0/1', '1/1']);
    expect(one.progress).toEqual(['0/1', '1/1']);
  }, 120_000);

  it('a file alone gets a reading thread from 8 MB when threads are asked for, from 32 MB by default', async () => {
    // Docs/performance.md: on two cores one thread was faster below ~32-40 MB.
    const { PIPELINE_MIN_BYTES, PIPELINE_DEFAULT_MIN_BYTES } = dist.pipeline;
    expect([PIPELINE_MIN_BYTES, PIPELINE_DEFAULT_MIN_BYTES]).toEqual([8 << 20, 32 << 20]);
    const size = statSync(large).size;
    expect(size).toBeGreaterThan(PIPELINE_MIN_BYTES);
    expect(size).toBeLessThan(PIPELINE_DEFAULT_MIN_BYTES);
    expect(await dist.pipeline.worthPipelining(large)).toBe(true);
    expect(await dist.pipeline.worthPipelining(large, PIPELINE_DEFAULT_MIN_BYTES)).toBe(false);
    // The threads this thread starts, seen through node:worker_threads' Worker (the lane starts the reading thread).
    const started: string[] = [];
    const threads = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
    const Original = threads.Worker;
    threads.Worker = class extends Original {
      constructor(...args: ConstructorParameters<typeof Original>) {
        started.push(basename(String(args[0])));
        super(...args);
      }
    };
    syncBuiltinESMExports();
    try {
      const byDefault = await dist.audit.audit([large], { pricing: false });
      expect(started).toEqual([]);
      const asked = await dist.audit.audit([large], { pricing: false, jobs: 2 });
      expect(started).toEqual(['file-pool-worker.js']);
      expect(JSON.stringify(asked.sessions)).toBe(JSON.stringify(byDefault.sessions));
    } finally {
      threads.Worker = Original;
      syncBuiltinESMExports();
    }
  }, 120_000);

  it('keeps small files, stdin and directories on one thread', async () => {
    const small = join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl');
    expect(await dist.pipeline.worthPipelining(small)).toBe(false);
    expect(await dist.pipeline.worthPipelining('-')).toBe(false);
    expect(await dist.pipeline.worthPipelining(FIXTURES)).toBe(false);
    expect(await dist.pipeline.worthPipelining(join(tmp.dir, 'missing.jsonl'))).toBe(false);
  });

  it('falls back to one thread silently where there is no compiled worker', async () => {
    const diagnostics: string[] = [];
    const result = await auditFromSources(large, {
      jobs: 2,
      onSkip: (path, s) => diagnostics.push(`skip ${path}:${s.line}: ${s.reason}`),
      onWarning: (m) => diagnostics.push(`warning ${m}`),
    });
    const one = await run(large, 'one thread');
    expect(diagnostics).toEqual(one.diagnostics);
    expect(result.sessions.reduce((n, s) => n + s.rounds, 0)).toBe(JSON.parse(one.json).summary.rounds);
  }, 120_000);
});
