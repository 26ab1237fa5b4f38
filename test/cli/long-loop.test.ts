// Soak tier (npm run test:soak): a million repeated failing rounds through the binary.
// Issue 53 item 12: "A long loop keeps one ledger entry per round without bound: a million repeated
// failing rounds took 2.3 GB and wrote a 1 GB JSON file." Issue 59 item 2: "the machine formats
// keep every round's verdict as counts and ranges, so a 1,800-round loop does not cost 1,800
// entries' worth of memory, JSON or time." Through the built binary, on loops written by the
// seeded generator of bench/long-loop.mjs.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLongLoop } from '../../bench/long-loop.mjs';
import { FOLD_AFTER } from '../../src/ledger/runs.js';
import type { LedgerEntry, LedgerReport } from '../../src/ledger/types.js';
import { cliEnv, ensureBuilt, ROOT, runCli, scratch } from './helpers.js';

const MILLION = 1_000_000;
const TIMEOUT = 900_000;

const dir = scratch('loopledger-long-loop-');
let million = '';
/** Writes the process's own peak RSS as it exits (test/helpers/peak-rss-preload.cjs). */
const preload = join(ROOT, 'test', 'helpers', 'peak-rss-preload.cjs');
beforeAll(async () => {
  ensureBuilt();
  million = join(dir.dir, 'million.jsonl');
  await generateLongLoop(million, { rounds: MILLION, seed: 53, canonical: true });
}, TIMEOUT);
afterAll(() => dir.cleanup());

/** Runs the CLI with the peak-RSS preload; stdout and the peak in MB. */
function runMeasured(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; peakMb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', preload, join(ROOT, 'bin/loopledger.js'), ...args], { cwd: ROOT, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const kb = Number(/peak-rss-kb (\d+)/.exec(stderr)?.[1] ?? NaN);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr, peakMb: kb / 1024 });
    });
  });
}

/** The rounds an entry stands for, as docs/json.md "Runs" says to read them. */
const roundsOf = (e: LedgerEntry) => (e.run ? [e.run.first_round, e.run.last_round, e.run.count] : [e.round, e.round, 1]);

describe('a million repeated failing rounds', () => {
  it('json: a few entries with runs, exact counts, bounded memory', async () => {
    const r = await runMeasured([million, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(Buffer.byteLength(r.stdout)).toBeLessThan(100_000);
    expect(r.peakMb).toBeLessThan(200);
    const report = JSON.parse(r.stdout) as LedgerReport;
    const s = report.sessions[0]!;
    expect(s.rounds).toBe(MILLION);
    expect(s.entries.length).toBeLessThan(10);
    // Round 1 reads, round 2 runs the command, rounds 3..1,000,000 repeat it: each a repeated_batch,
    // plus one no_progress (said once for one batch answered alike).
    const batches = s.entries.filter((e) => e.kind === 'repeated_batch');
    let next = 3;
    for (const e of batches) {
      const [first, last, count] = roundsOf(e);
      expect(first).toBe(next);
      expect(count).toBe(last! - first! + 1);
      next = last! + 1;
    }
    expect(next).toBe(MILLION + 1);
    expect(report.summary.entries).toBe(MILLION - 2 + 1);
    expect(s.entries.reduce((n, e) => n + roundsOf(e)[2]!, 0)).toBe(report.summary.entries);
    // Every steer and stop stays an entry of its own; the run after the stop carries the strike at its end.
    expect(s.outcome.enforce.stops).toEqual([{ turn: 1, round: 4 }]);
    expect(s.entries.filter((e) => e.intervention.enforce === 'stop').map((e) => [e.round, e.run])).toEqual([[4, undefined]]);
    const tail = batches.at(-1)!;
    expect(tail.after_stop).toBe(true);
    expect(tail.run?.last_strike?.count).toBe(MILLION - 1);
    expect(s.outcome.enforce.saved?.rounds).toBe(MILLION - 4);
    expect(report.summary.loop_shapes?.[0]?.rounds).toBe(MILLION - 2);
  }, TIMEOUT);
});

describe('what folds', () => {
  it(`a run stays one entry per round up to ${FOLD_AFTER} rounds, and folds past them, with the same summary`, async () => {
    const ledgerOf = async (rounds: number) => {
      const file = join(dir.dir, `short-${rounds}.jsonl`);
      await generateLongLoop(file, { rounds, seed: 7 });
      const r = await runCli([file, '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as LedgerReport;
    };
    // Rounds 7.. repeat after the stop alone (round 6 adds no_progress): FOLD_AFTER of them, then one more.
    const kept = await ledgerOf(6 + FOLD_AFTER);
    expect(kept.sessions[0]!.entries.some((e) => e.run !== undefined)).toBe(false);
    expect(kept.sessions[0]!.entries).toHaveLength(kept.summary.entries);
    const folded = await ledgerOf(6 + FOLD_AFTER + 1);
    const runs = folded.sessions[0]!.entries.filter((e) => e.run !== undefined);
    expect(runs.map((e) => e.run)).toEqual([
      expect.objectContaining({ first_round: 7, last_round: 6 + FOLD_AFTER + 1, count: FOLD_AFTER + 1, last_strike: expect.objectContaining({ count: 5 + FOLD_AFTER + 1 }) }),
    ]);
    expect(folded.summary.entries).toBe(kept.summary.entries + 1);
  }, TIMEOUT);
});

describe('shards of long loops', () => {
  it('merge adds ledgers with runs up to exactly the one run over everything', async () => {
    const d = join(dir.dir, 'store');
    for (const seed of [1, 2, 3, 4]) await generateLongLoop(join(d, `loop-${seed}.jsonl`), { rounds: 1_500 + seed * 100, seed, turns: seed, varied: seed === 4 ? 40 : 0 });
    const whole = await runCli([d, '--format', 'json', '--jobs', '1']);
    expect(whole.code, whole.stderr).toBe(0);
    const report = JSON.parse(whole.stdout) as LedgerReport;
    expect(report.sessions.some((s) => s.entries.some((e) => e.run !== undefined))).toBe(true);
    const shards: string[] = [];
    for (const k of [1, 2]) {
      const r = await runCli([d, '--format', 'json', '--jobs', '1', '--shard', `${k}/2`]);
      expect(r.code, r.stderr).toBe(0);
      shards.push(join(dir.dir, `shard-${k}.json`));
      writeFileSync(shards.at(-1)!, r.stdout);
    }
    const merged = await runCli(['merge', ...shards, '--format', 'json']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toBe(whole.stdout);
    // A loop broken every 40 rounds (loop-4) keeps a few entries per stretch: still far fewer than rounds.
    const entries = report.sessions.reduce((n, s) => n + s.entries.length, 0);
    expect(entries).toBeLessThan(report.summary.rounds / 8);
    expect(readFileSync(shards[0]!, 'utf8').length).toBeLessThan(report.summary.rounds * 200);
  }, TIMEOUT);
});
