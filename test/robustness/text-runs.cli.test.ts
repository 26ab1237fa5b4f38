// Issue 53: "the ledger's memory is bounded in the number of rounds". A text finding (thinking,
// output) carries its similarity, whose value changes every round of a loop of near-identical
// reasoning: such findings never folded, one entry a round. They now fold on their kind and
// decisions, the run keeping exact counts, first and last rounds, the last round's detail and the
// largest of each number (`run.max_evidence`, the max similarity among them; docs/json.md "Runs").

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry, LedgerReport } from '../../src/ledger/types.js';
import { ensureBuilt, scratch, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-text-runs-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const ROUNDS = 300;

/** One turn: the same Read every round (stopped at round 3), with reasoning that changes one word a round (seeded). */
function transcript(seed: number): string {
  let state = seed;
  const rand = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const base =
    'I need to check the totals function again because the test still fails and the rounding of cents looks wrong so I will read the file and run the test once more to see whether the value is 10.3 or 10.30 and then decide how to fix the formatting of the amount before the assertion'.split(' ');
  const lines = [JSON.stringify({ type: 'session', schema: 'loopledger-canonical/1', id: 'think', parent: null, model: 'claude-sonnet-4-5-20250929' }), JSON.stringify({ type: 'user', text: 'fix the test' })];
  for (let r = 0; r < ROUNDS; r++) {
    const words = [...base];
    words[Math.floor(rand() * words.length)] = `w${Math.floor(rand() * 1000)}`;
    lines.push(JSON.stringify({ type: 'assistant', text: '', thinking: [words.join(' ')], tool_calls: [{ id: `c${r}`, name: 'Read', arguments: { file_path: 'src/f.ts' } }], usage: { input: 1000, output: 30 } }));
    lines.push(JSON.stringify({ type: 'tool_result', id: `c${r}`, content: 'export const f = 1;', is_error: false }));
  }
  return `${lines.join('\n')}\n`;
}

const rounds = (e: LedgerEntry) => Array.from({ length: e.run?.count ?? 1 }, (_, i) => e.round + i * (e.run?.period ?? 1));

describe('text findings whose similarity changes every round', () => {
  it(`${ROUNDS} rounds of near-identical reasoning fold into a few runs with exact counts and the largest similarity`, async () => {
    const file = join(tmp.dir, 'thinking.jsonl');
    writeFileSync(file, transcript(11));
    const r = await spawnCli([file, '--format', 'json'], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout.toString('utf8')) as LedgerReport;
    const s = report.sessions[0]!;
    expect(s.entries.length).toBeLessThan(30);
    expect(s.entries.reduce((n, e) => n + (e.run?.count ?? 1), 0)).toBe(report.summary.entries);
    // The same Read every round from round 2 on: one repeated_batch a round, none twice.
    const batches = s.entries.filter((e) => e.kind === 'repeated_batch').flatMap(rounds);
    expect(batches).toEqual(Array.from({ length: ROUNDS - 1 }, (_, i) => i + 2));
    const thinking = s.entries.filter((e) => e.detector === 'thinking');
    const thoughtRounds = thinking.flatMap(rounds);
    expect(new Set(thoughtRounds).size).toBe(thoughtRounds.length);
    expect(thoughtRounds.length).toBeGreaterThan(ROUNDS * 0.9);
    const folded = thinking.filter((e) => e.run !== undefined);
    expect(folded.length).toBeGreaterThan(0);
    for (const e of folded) {
      const run = e.run!;
      expect(run.evidence_varies).toBe(true);
      const max = run.max_evidence!['similarity'] as number;
      expect(max).toBeGreaterThanOrEqual(e.evidence['similarity'] as number);
      expect(max).toBeGreaterThanOrEqual((run.last_evidence?.['similarity'] ?? 0) as number);
      expect(max).toBeLessThanOrEqual(1);
    }
  }, 180_000);
});
