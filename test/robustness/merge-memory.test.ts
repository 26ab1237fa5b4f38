// Soak tier (npm run test:soak): 20,000 sessions and 80,000 files merged under small heaps.
// Issue 27.17: what a merge holds per session and per file. The formats with an overview (table,
// markdown, html, junit, sarif, github, otlp) keep each session's thin version in memory, so what it
// costs bounds the sessions a merge can take: the strings of a small vocabulary (models, formats,
// projects, finding kinds, loop shapes) and the outcome of a session enforce would not stop are held
// once, not once per session (merge/thin-sessions.ts). Per file, a merge keeps a few numbers
// and its path: its input line waits in the spill (merge/spill.ts).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/helpers.js';
import { assembleReport } from '../../src/ledger/summary.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { ensureBuilt, ROOT, scratch, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-merge-memory-');
afterAll(() => tmp.cleanup());
beforeAll(() => ensureBuilt());

/** A fixture's one-session ledger, as a shard writes it. */
async function ledgerOf(fixture: string): Promise<LedgerReport> {
  const r = await runCli([join(ROOT, 'fixtures', fixture), '--shard', '1/1', '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as LedgerReport;
}

/** A shard ledger of these inputs and sessions, made under `base`'s version, configuration and prices, as a run writes it. */
function shardOf(base: LedgerReport, inputs: LedgerReport['inputs'], sessions: LedgerReport['sessions'], shard: { index: number; count: number }): LedgerReport {
  return assembleReport({
    version: base.tool.version,
    config: base.config as never,
    inputs,
    sessions,
    shard,
    ...(base.pricing ? { pricing: base.pricing as never } : {}),
  });
}

/**
 * One shard of `n` sessions, `perFile` to a file (an export of many conversations), three calm
 * ones for each that loops (enforce stops it). Many sessions to a file, so what is held per
 * session is what is measured, not each file's bookkeeping; written compact, for the same reason.
 */
async function mixedLedger(n: number, perFile: number): Promise<string> {
  const calm = await ledgerOf('openai/calm-weather.json');
  const looping = await ledgerOf('anthropic/looping-deploy.json');
  const inputs = [];
  const sessions = [];
  for (let f = 0; f < n / perFile; f++) {
    const path = `export-${String(f).padStart(4, '0')}.json`;
    inputs.push({ ...calm.inputs[0]!, path, sessions: perFile });
    for (let i = f * perFile; i < (f + 1) * perFile; i++) {
      const { timeline: _drawn, ...session } = (i % 4 === 3 ? looping : calm).sessions[0]!;
      sessions.push({ ...session, id: `${session.id}-${i}`, path });
    }
  }
  const report = shardOf(calm, inputs, sessions, { index: 1, count: 1 });
  const file = join(tmp.dir, `mixed-${n}.json`);
  writeFileSync(file, JSON.stringify(report));
  return file;
}

describe('memory per session, formats with an overview', () => {
  const SESSIONS = 20_000;
  // Measured at load 6-9, heap caps 4 MB apart: 511991c's build aborts on 40,000 of these at 44,
  // 48 and 52 MB and merges them at 56 (~1.3 KB a session: thin version, reference, spill
  // location); this one merges them at 44-52 and aborts at 40. Half as many show the same at half
  // the cost (issue 31 item 6): a96d0d9's and 511991c's builds abort on 20,000 at 20 MB, this one
  // merges them there. Stop 52 added times, periods, runs and the agent to each session: alone, this
  // build merges 20,000 at 18 MB and aborts at 16; a fresh-clone .ci/run, every worker busy, aborted
  // once at 20 (GC falls behind under load), so 22 keeps the same margin over this build's need.
  const HEAP_CAP_MB = 22;

  it(`${SESSIONS.toLocaleString('en')} sessions merge to table in a ${HEAP_CAP_MB} MB heap`, async () => {
    const file = await mixedLedger(SESSIONS, 100);
    const out = join(tmp.dir, 'mixed.table');
    const r = await spawnCli(['merge', file, '--format', 'table', '-o', out], { nodeArgs: [`--max-old-space-size=${HEAP_CAP_MB}`], timeoutMs: 120_000 });
    expect(r.code, `${r.signal ?? ''} ${r.stderr.split('\n').find((l) => /heap|memory/i.test(l)) ?? r.stderr.slice(-300)}`).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(new RegExp(`^${SESSIONS.toLocaleString('en-US')} sessions · ${(SESSIONS / 4).toLocaleString('en-US')} with findings, worst first · ${((SESSIONS * 3) / 4).toLocaleString('en-US')} calm`));
  }, 120_000);
});

describe('memory per file', () => {
  const FILES = 80_000;
  const SHARDS = 8;
  // Measured at load ~10, one calm session to a file: 955b926's build (each file's input line, its
  // entry in the maps that find a file given twice, an object per session, each shard's list of
  // inputs) aborts at 40, 48, 56 and 64 MB; this one merges them at 24, 32, 40 and 48 MB, and aborts
  // at 20. Close to its cap a merge spends its time collecting: 48 keeps this test near 15 s.
  const HEAP_CAP_MB = 48;

  /** `count` shards of `n` files in all, one calm session each, as sharded runs write them (compact). */
  async function calmShards(n: number, count: number): Promise<string[]> {
    const base = await ledgerOf('openai/calm-weather.json');
    const [input] = base.inputs;
    const { timeline: _drawn, ...session } = base.sessions[0]!;
    const files: string[] = [];
    for (let k = 1; k <= count; k++) {
      const inputs = [];
      const sessions = [];
      for (let i = k - 1; i < n; i += count) {
        const path = `f${String(i).padStart(6, '0')}.json`;
        inputs.push({ ...input!, path });
        sessions.push({ ...session, id: `${session.id}-${i}`, path });
      }
      const report = shardOf(base, inputs, sessions, { index: k, count });
      const file = join(tmp.dir, `calm-${k}-of-${count}.json`);
      writeFileSync(file, JSON.stringify(report));
      files.push(file);
    }
    return files;
  }

  it(`${FILES.toLocaleString('en')} files in ${SHARDS} shards merge to json in a ${HEAP_CAP_MB} MB heap`, async () => {
    const shards = await calmShards(FILES, SHARDS);
    const out = join(tmp.dir, 'calm.json');
    const r = await spawnCli(['merge', ...shards, '--format', 'json', '-o', out], { nodeArgs: [`--max-old-space-size=${HEAP_CAP_MB}`], timeoutMs: 120_000 });
    expect(r.code, `${r.signal ?? ''} ${r.stderr.split('\n').find((l) => /heap|memory/i.test(l)) ?? r.stderr.slice(-300)}`).toBe(0);
    const merged = JSON.parse(readFileSync(out, 'utf8')) as LedgerReport;
    expect(merged.inputs).toHaveLength(FILES);
    expect(merged.inputs[FILES - 1]!.path).toBe(`f${String(FILES - 1).padStart(6, '0')}.json`);
    expect(merged.summary.sessions).toBe(FILES);
  }, 120_000);
});

describe('memory per session and per file, the formats that rank, count and group', () => {
  const FILES = 20_000;
  const SHARDS = 4;
  // Measured at load ~10: a96d0d9's build (each session's thin version, each file's input line,
  // the overview's ranked list, the junit suites) aborts on these in a 24 MB heap in table, html and
  // junit alike (with 40,000 files: at 40 MB for table, 48 for html, 64 for junit); this one
  // (sessions and inputs read back from disk as the formats iterate them, the ranking sorted on
  // disk) merges them at 24, and 40,000 of them at 20 MB in all three.
  const HEAP_CAP_MB = 24;
  let shards: string[] = [];

  /** `count` shards of `n` one-session files, one session in four looping (enforce stops it), as sharded runs write them (compact). */
  async function oneSessionShards(n: number, count: number): Promise<string[]> {
    const calm = await ledgerOf('openai/calm-weather.json');
    const looping = await ledgerOf('anthropic/looping-deploy.json');
    const files: string[] = [];
    for (let k = 1; k <= count; k++) {
      const inputs = [];
      const sessions = [];
      for (let i = k - 1; i < n; i += count) {
        const base = i % 4 === 3 ? looping : calm;
        const path = `f${String(i).padStart(6, '0')}.json`;
        inputs.push({ ...base.inputs[0]!, path });
        const { timeline: _drawn, ...session } = base.sessions[0]!;
        sessions.push({ ...session, id: `${session.id}-${i}`, path });
      }
      const file = join(tmp.dir, `one-session-${k}-of-${count}.json`);
      writeFileSync(file, JSON.stringify(shardOf(calm, inputs, sessions, { index: k, count })));
      files.push(file);
    }
    return files;
  }

  beforeAll(async () => {
    shards = await oneSessionShards(FILES, SHARDS);
  }, 60_000);

  const formats: [string, (out: string) => void][] = [
    ['table', (out) => expect(out).toMatch(/^20,000 sessions · 5,000 with findings, worst first · 15,000 calm/)],
    ['html', (out) => expect(out).toContain('<p>20,000 sessions: 5,000 with findings')],
    ['junit', (out) => expect(out).toContain('<testsuites name="loopledger" tests="20000" failures="5000" errors="0">')],
  ];
  for (const [format, check] of formats) {
    it(`${FILES.toLocaleString('en')} one-session files in ${SHARDS} shards merge to ${format} in a ${HEAP_CAP_MB} MB heap`, async () => {
      const out = join(tmp.dir, `one-session.${format}`);
      const r = await spawnCli(['merge', ...shards, '--format', format, '-o', out], { nodeArgs: [`--max-old-space-size=${HEAP_CAP_MB}`], timeoutMs: 60_000 });
      expect(r.code, `${r.signal ?? ''} ${r.stderr.split('\n').find((l) => /heap|memory/i.test(l)) ?? r.stderr.slice(-300)}`).toBe(0);
      check(readFileSync(out, 'utf8'));
    }, 60_000);
  }
});

describe('memory per file that is no transcript', () => {
  const OTHERS = 100_000;
  const SHARDS = 4;
  // Measured at load ~10: a96d0d9's build (each ledger's not_transcripts parsed whole, then every
  // one of them in the map that finds one given twice) aborts on 200,000 of these in a 32 MB heap
  // and needs 64 (40 s, most of it collecting); this one (each checked as read and put in the
  // spill, a key of its path kept) merges them in 24 and 32 MB. Half as many at 24 MB show the same
  // for under half the cost (issue 31 item 6): a96d0d9's build aborts, this one merges them.
  const HEAP_CAP_MB = 24;

  it(`${OTHERS.toLocaleString('en')} files that are no transcript, in ${SHARDS} shards, merge to json in a ${HEAP_CAP_MB} MB heap`, async () => {
    const calm = await ledgerOf('openai/calm-weather.json');
    const { timeline: _drawn, ...session } = calm.sessions[0]!;
    const shards: string[] = [];
    for (let k = 1; k <= SHARDS; k++) {
      const path = `t${k}.json`;
      const notTranscripts = [];
      for (let i = k - 1; i < OTHERS; i += SHARDS) notTranscripts.push({ path: `notes/n${String(i).padStart(7, '0')}.md`, reason: 'unrecognized' as const, error: 'no known format' });
      const report = assembleReport({
        version: calm.tool.version,
        config: calm.config as never,
        inputs: [{ ...calm.inputs[0]!, path }],
        sessions: [{ ...session, id: `${session.id}-${k}`, path }],
        notTranscripts,
        shard: { index: k, count: SHARDS },
        ...(calm.pricing ? { pricing: calm.pricing as never } : {}),
      });
      const file = join(tmp.dir, `others-${k}-of-${SHARDS}.json`);
      writeFileSync(file, JSON.stringify(report));
      shards.push(file);
    }
    const out = join(tmp.dir, 'others.json');
    const r = await spawnCli(['merge', ...shards, '--format', 'json', '-o', out], { nodeArgs: [`--max-old-space-size=${HEAP_CAP_MB}`], timeoutMs: 60_000 });
    expect(r.code, `${r.signal ?? ''} ${r.stderr.split('\n').find((l) => /heap|memory/i.test(l)) ?? r.stderr.slice(-300)}`).toBe(0);
    expect(r.stderr).toContain(`${OTHERS} files found in the directories are not a transcript (${OTHERS} no known format)`);
    const merged = JSON.parse(readFileSync(out, 'utf8')) as LedgerReport;
    expect(merged.not_transcripts).toHaveLength(OTHERS);
    expect(merged.not_transcripts![OTHERS - 1]!.path).toBe(`notes/n${String(OTHERS - 1).padStart(7, '0')}.md`);
  }, 60_000);
});
