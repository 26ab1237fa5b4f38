// Soak tier (npm run test:soak): a generated store of over a thousand sessions, as 7 shards and 3.
// Shards on a generated store of over a thousand sessions (bench/home.mjs, seeded: Claude Code
// sessions with sub-agents, resumed sessions, Codex and Gemini CLI, settings and reports that are
// no transcripts, links read once): the binary's 7 shards merged are the one run, byte for byte.
// The one run prints json, table (with its overview of the worst sessions), html and markdown; the
// other formats are checked against `merge` of the one run's JSON, which the fixtures' tests
// (shard-merge.test.ts) show prints exactly what analyze prints. 3 shards merged are
// test/golden/shards.test.ts's (the fixtures in every format, a generated home in json and the
// table): a second count here split the same store again for a fifth of this file's time.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateHome } from '../../bench/home.mjs';
import { corpusStamp } from '../helpers/corpus-stamp.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { REPORT_FORMATS } from '../../src/vocabulary.js';
import { ensureBuilt, ROOT, runCli, type RunResult } from './helpers.js';

// 1,000 sessions (1,314 with sub-agents): 2,000 proved nothing more and cost 10 CPU-s more.
const CORPUS = { dir: '.tmp/shard-corpus', sessions: 1000, seed: 20, scale: 0.02 };
const HOME = join(ROOT, CORPUS.dir, 'home');
const OUT = join(ROOT, CORPUS.dir, 'ledgers');
// html too: the page draws timelines, which a shard's ledger carries and one run's JSON does not.
const SHARDS = 7;
const ONE_RUN = ['json', 'table', 'markdown', 'html'] as const;

const one = new Map<string, RunResult>();
let oneJson = '';

beforeAll(async () => {
  ensureBuilt();
  const stamp = join(ROOT, CORPUS.dir, 'options.json');
  if (!(existsSync(stamp) && readFileSync(stamp, 'utf8') === corpusStamp(CORPUS))) {
    await generateHome(join(ROOT, CORPUS.dir), { sessions: CORPUS.sessions, seed: CORPUS.seed, scale: CORPUS.scale });
    writeFileSync(stamp, corpusStamp(CORPUS));
  }
  for (const format of ONE_RUN) one.set(format, await runCli([HOME, '--format', format, '--fail-on', 'stop']));
  // The one run's JSON ledger as a file, for `merge` to print the other formats from: the bytes a
  // second run with -o would write (--fail-on changes the exit code, not the payload).
  oneJson = join(OUT, 'one.json');
  mkdirSync(OUT, { recursive: true });
  writeFileSync(oneJson, one.get('json')!.stdout);
}, 900_000);

// The other formats of the one run: merges of its JSON.
const otherFormats = REPORT_FORMATS.filter((f) => !(ONE_RUN as readonly string[]).includes(f));

describe('a generated store of over a thousand sessions, sharded and merged', () => {
  it('is over a thousand sessions, sub-agents and files that are no transcripts among them', () => {
    const ledger = JSON.parse(one.get('json')!.stdout) as LedgerReport;
    expect(ledger.summary.sessions).toBeGreaterThan(1000);
    expect(ledger.sessions.filter((s) => s.parent !== null).length).toBeGreaterThan(100);
    expect(ledger.not_transcripts!.length).toBeGreaterThan(10);
    expect(ledger.summary.enforce.sessions_stopped).toBeGreaterThan(0);
  });

  it(`N = ${SHARDS}: merge = one run, byte for byte, in every format, with the same gate`, async () => {
    const n = SHARDS;
    const files: string[] = [];
    for (let k = 1; k <= n; k++) {
      const file = join(OUT, `n${n}-${k}.json`);
      const r = await runCli([HOME, '--shard', `${k}/${n}`, '--format', 'json', '-o', file]);
      expect(r.code, r.stderr).toBe(0);
      files.push(file);
    }
    // Every session, sub-agents with their parents, in exactly one shard.
    const parts = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as LedgerReport);
    for (const p of parts) {
      const ids = new Set(p.sessions.map((s) => s.id));
      for (const s of p.sessions) if (s.parent !== null && s.path.includes('/subagents/')) expect(ids.has(s.parent)).toBe(true);
    }
    expect(parts.reduce((a, p) => a + p.sessions.length, 0)).toBe((JSON.parse(one.get('json')!.stdout) as LedgerReport).sessions.length);

    for (const format of ONE_RUN) {
      const merged = await runCli(['merge', ...files, '--format', format, '--fail-on', 'stop']);
      const whole = one.get(format)!;
      expect(merged.code, format).toBe(whole.code);
      expect(merged.code).toBe(1);
      expect(merged.stdout === whole.stdout, `${format}: merged differs from one run`).toBe(true);
    }
    const wholes = await Promise.all(otherFormats.map((format) => runCli(['merge', oneJson, '--format', format])));
    for (const [i, format] of otherFormats.entries()) {
      const merged = await runCli(['merge', ...files, '--format', format]);
      const whole = wholes[i]!;
      expect(whole.code, whole.stderr).toBe(0);
      expect(merged.code, merged.stderr).toBe(0);
      expect(merged.stdout === whole.stdout, `${format}: merged differs from one run`).toBe(true);
    }
  }, 900_000);
});
