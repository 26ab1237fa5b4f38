// Soak tier (npm run test:soak): 12,000 and 48,000 irregular firing rounds.
// Issue 53: "the ledger's memory is bounded in the number of rounds ... with the machine formats
// keeping exact counts". A finding that fires on irregular rounds never folds into a run (its
// rounds are no pattern): such a session lists at most MAX_ENTRIES (10,000) entries and counts the
// findings after in `unlisted`, exactly, with a reason on stderr and in every human format.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerReport } from '../../src/ledger/types.js';
import { ensureBuilt, scratch, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-unlisted-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

/**
 * One turn: the same Read every round (a repeated_batch from round 2 on, every round), its reasoning
 * on a seeded coin either near-identical to the rounds before (thinking stagnation) or new words:
 * the thinking findings fall on no pattern, so the rounds' findings never fold for long.
 */
function transcript(rounds: number, seed: number): string {
  let state = seed;
  const rand = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const base =
    'I need to check the totals function again because the test still fails and the rounding of cents looks wrong so I will read the file and run the test once more to see whether the value is 10.3 or 10.30 and then decide how to fix the formatting of the amount before the assertion'.split(' ');
  const lines = [JSON.stringify({ type: 'session', schema: 'loopledger-canonical/1', id: 'irregular', parent: null, model: 'claude-sonnet-4-5-20250929' }), JSON.stringify({ type: 'user', text: 'fix the test' })];
  for (let r = 0; r < rounds; r++) {
    let words = [...base];
    words[Math.floor(rand() * words.length)] = `w${Math.floor(rand() * 1000)}`;
    if (rand() < 0.5) words = Array.from({ length: 40 }, () => `v${Math.floor(rand() * 100000)}`);
    lines.push(JSON.stringify({ type: 'assistant', text: '', thinking: [words.join(' ')], tool_calls: [{ id: `c${r}`, name: 'Read', arguments: { file_path: 'src/f.ts' } }], usage: { input: 1000, output: 30 } }));
    lines.push(JSON.stringify({ type: 'tool_result', id: `c${r}`, content: 'export const f = 1;', is_error: false }));
  }
  return `${lines.join('\n')}\n`;
}

type Ledger = { report: LedgerReport; json: string; stderr: string; file: string };
const made = new Map<number, Promise<Ledger>>();
/** The ledger of `rounds` irregular rounds, made once per file. */
function ledger(rounds: number): Promise<Ledger> {
  if (!made.has(rounds)) made.set(rounds, makeLedger(rounds));
  return made.get(rounds)!;
}

async function makeLedger(rounds: number): Promise<Ledger> {
  const file = join(tmp.dir, `irregular-${rounds}.jsonl`);
  writeFileSync(file, transcript(rounds, 7));
  const r = await spawnCli([file, '--format', 'json'], { timeoutMs: 120_000 });
  expect(r.code, r.stderr).toBe(0);
  const json = r.stdout.toString('utf8');
  return { report: JSON.parse(json) as LedgerReport, json, stderr: r.stderr, file };
}

describe('a session whose findings fall on irregular rounds', () => {
  it('lists at most 10,000 entries whatever its rounds, and counts every finding after them exactly', async () => {
    const small = await ledger(12_000);
    const large = await ledger(48_000);
    for (const [{ report, stderr, file }, rounds] of [[small, 12_000], [large, 48_000]] as const) {
      const s = report.sessions[0]!;
      expect(s.entries.length).toBeLessThanOrEqual(10_000);
      const u = s.unlisted!;
      expect(u.last_round).toBe(rounds);
      expect(s.entries.every((e) => (e.run?.last_round ?? e.round) < u.first_round)).toBe(true);
      // Exact: the same Read every round is a repeated_batch on every round from the second.
      const listedBatches = s.entries.filter((e) => e.kind === 'repeated_batch').reduce((n, e) => n + (e.run?.count ?? 1), 0);
      expect(listedBatches + u.kinds['repeated_batch']!).toBe(rounds - 1);
      expect(u.rounds).toBe(rounds - u.first_round + 1);
      const listed = s.entries.reduce((n, e) => n + (e.run?.count ?? 1), 0);
      expect(report.summary.entries).toBe(listed + u.findings);
      expect(u.findings).toBe(Object.values(u.kinds).reduce((a, b) => a + b, 0));
      // Each unlisted round cost its 1,030 tokens, counted once per round.
      expect(u.usage?.tokens).toBe(u.rounds * 1030);
      expect(u.reason).toBe(`a session lists at most 10,000 entries: its findings from round ${u.first_round.toLocaleString('en-US')} on are counted here, not listed`);
      expect(stderr).toContain(`${file}: session irregular: more than 10,000 ledger entries; its findings from round ${u.first_round.toLocaleString('en-US')} on are counted, not listed`);
    }
    // Four times the rounds, the same list: the JSON (and the ledger held to write it) does not grow with them.
    expect(large.report.sessions[0]!.entries.length).toBe(small.report.sessions[0]!.entries.length);
    expect(Math.abs(large.json.length - small.json.length)).toBeLessThan(small.json.length * 0.01);
    expect(large.report.summary.entries).toBeGreaterThan(small.report.summary.entries * 3.5);
  }, 240_000);

  it('says so in the table and markdown, counts them in ndjson, and merge takes the ledger back unchanged', async () => {
    const { json, file } = await ledger(12_000);
    for (const format of ['table', 'markdown']) {
      const r = await spawnCli([file, '--format', format], { timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      // Wrapped to the terminal's width: read as one line.
      const text = r.stdout.toString('utf8').replace(/\s+/g, ' ');
      expect(text.slice(0, 4000)).toMatch(/not listed: [\d,]+ findings in [\d,]+ rounds, r[\d,]+–r12,000 \(repeated\\?_batch [\d,]+, thinking\\?_stagnation [\d,]+\): a session lists at most 10,000 entries/);
    }
    // ndjson: one line an entry, then one with the unlisted counts.
    const nd = await spawnCli([file, '--format', 'ndjson'], { timeoutMs: 120_000 });
    const lines = nd.stdout.toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const report = JSON.parse(json) as LedgerReport;
    expect(lines.length).toBe(report.sessions[0]!.entries.length + 1);
    expect(lines.at(-1)!['unlisted']).toEqual(report.sessions[0]!.unlisted);
    expect(lines.at(-1)!['session']).toBe('irregular');
    const saved = join(tmp.dir, 'irregular.json');
    writeFileSync(saved, json);
    const merged = await spawnCli(['merge', saved, '--format', 'json'], { timeoutMs: 120_000 });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout.toString('utf8')).toBe(json);
  }, 240_000);
});
