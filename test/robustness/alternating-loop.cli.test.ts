// Soak tier (npm run test:soak): loops of thousands of rounds repeating a pattern.
// Issue 53: "the ledger's memory is bounded in the number of rounds (a million-round loop
// summarised as runs, with the machine formats keeping exact counts)". A loop broken every few
// rounds (A A A B; a failing call with a read between) kept one or two entries a round: 2,000 rounds
// of `npm test` failing with a Read between were 3,991 entries. Such a loop repeats a pattern of
// rounds and now folds as one: a run per finding of the pattern, `run.period` apart (docs/json.md).

import { createWriteStream, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry, LedgerReport } from '../../src/ledger/types.js';
import { ensureBuilt, ROOT, scratch, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-alternating-');
/** Writes the process's own peak RSS as it exits (test/helpers/peak-rss-preload.cjs). */
const preload = join(ROOT, 'test', 'helpers', 'peak-rss-preload.cjs');
beforeAll(() => {
  ensureBuilt();
});
afterAll(() => tmp.cleanup());

/** A canonical session of one turn: `rounds` rounds following `pattern` (A: the failing test run, R: the same read, G: a new search). */
async function alternation(file: string, pattern: string, rounds: number, seed: number): Promise<void> {
  const out = createWriteStream(file);
  const write = async (v: unknown) => {
    if (!out.write(`${JSON.stringify(v)}\n`)) await once(out, 'drain');
  };
  const test = ['npm test', 'pytest -x', 'cargo test', 'go test ./...'][seed % 4]!;
  await write({ type: 'session', schema: 'loopledger-canonical/1', id: `alt-${seed}`, parent: null, model: 'claude-sonnet-4-5-20250929' });
  await write({ type: 'user', text: 'the test fails, fix it' });
  for (let r = 0; r < rounds; r++) {
    const p = pattern[r % pattern.length];
    const id = `c${r}`;
    const call = p === 'A' ? { name: 'Bash', arguments: { command: test } } : p === 'R' ? { name: 'Read', arguments: { file_path: 'src/totals.ts' } } : { name: 'Grep', arguments: { pattern: `total${r}` } };
    const answer = p === 'A' ? 'Exit code 1\nFAIL totals: expected 10.3 to be 10.30' : p === 'R' ? 'export const total = 1;' : `src/totals.ts:${r % 97}: total`;
    await write({ type: 'assistant', text: '', tool_calls: [{ id, ...call }], usage: { input: 1000 + (r % 7), output: 30 } });
    await write({ type: 'tool_result', id, content: answer, is_error: p === 'A' });
  }
  out.end();
  await once(out, 'finish');
}

/** The CLI with the peak-RSS preload: its output and its peak in MB. */
async function measured(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; peakMb: number }> {
  const r = await spawnCli(args, { nodeArgs: ['-r', preload], timeoutMs: 300_000 });
  return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr, peakMb: Number(/peak-rss-kb (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024 };
}

const rangeOf = (e: LedgerEntry) => (e.run ? { first: e.run.first_round, last: e.run.last_round, count: e.run.count, period: e.run.period ?? 1 } : { first: e.round, last: e.round, count: 1, period: 1 });

describe('a loop broken every few rounds folds as the pattern it repeats', () => {
  const ROUNDS = 4_000;
  for (const [pattern, period] of [
    ['AR', 2],
    ['AAAG', 4],
    ['AAAR', 4],
  ] as const) {
    it(`${pattern} × ${ROUNDS / pattern.length}: a few entries, exact counts, bounded memory, and merge reads it back`, async () => {
      const file = join(tmp.dir, `${pattern}.jsonl`);
      await alternation(file, pattern, ROUNDS, 53);
      const r = await measured([file, '--format', 'json', '--jobs', '1']);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as LedgerReport;
      const s = report.sessions[0]!;
      expect(s.rounds).toBe(ROUNDS);
      expect(s.entries.length).toBeLessThan(30);
      expect(Buffer.byteLength(r.stdout)).toBeLessThan(100_000);
      expect(r.peakMb).toBeLessThan(200);
      // Every run is `period` apart, counts its rounds exactly, and reaches the loop's end.
      const runs = s.entries.filter((e) => e.run !== undefined).map(rangeOf);
      expect(runs.length).toBeGreaterThan(0);
      for (const run of runs) {
        expect(run.period).toBe(period);
        expect(run.count).toBe((run.last - run.first) / run.period + 1);
        expect(run.last).toBeGreaterThan(ROUNDS - period);
      }
      expect(s.entries.reduce((n, e) => n + rangeOf(e).count, 0)).toBe(report.summary.entries);
      // Exact: each further repetition of the pattern adds the findings of one repetition (one a
      // run), and the same loop-shape rounds, as an unfolded ledger would.
      const grown = async (times: number) => {
        const longer = join(tmp.dir, `${pattern}-${times}.jsonl`);
        await alternation(longer, pattern, ROUNDS + times * pattern.length, 53);
        return JSON.parse((await measured([longer, '--format', 'json', '--jobs', '1'])).stdout) as LedgerReport;
      };
      const [once1, twice] = [await grown(1), await grown(2)];
      const reachingTheEnd = runs.length;
      expect(once1.summary.entries).toBe(report.summary.entries + reachingTheEnd);
      expect(twice.summary.entries).toBe(report.summary.entries + 2 * reachingTheEnd);
      const shapeRounds = (l: LedgerReport) => (l.summary.loop_shapes ?? []).map((x) => x.rounds);
      const step = shapeRounds(once1).map((n, i) => n - shapeRounds(report)[i]!);
      expect(step.every((n) => n > 0)).toBe(true);
      expect(shapeRounds(twice)).toEqual(shapeRounds(once1).map((n, i) => n + step[i]!));
      // A ledger with runs of a period is a valid ledger: merge takes it back unchanged.
      const saved = join(tmp.dir, `${pattern}.json`);
      writeFileSync(saved, r.stdout);
      const merged = await spawnCli(['merge', saved, '--format', 'json'], { timeoutMs: 60_000 });
      expect(merged.code, merged.stderr).toBe(0);
      expect(merged.stdout.toString('utf8')).toBe(r.stdout);
    }, 300_000);
  }
});
