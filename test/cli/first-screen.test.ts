// Issue 56 item 2, "a first screen that fits": "a 1,801-round loop lists one `repeated_batch` row per
// round ("909× (max 2)", "910× (max 2)", …)". By default the table shows one row per run of the
// same finding (first round–last round, count, the level reached), at most a screenful per
// session, and one or two next steps; `--all` every finding. Through the built binary.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLongLoop } from '../../bench/long-loop.mjs';
import { ensureBuilt, runCli, scratch } from './helpers.js';

const ROUNDS = 1_801;
const dir = scratch('loopledger-first-screen-');
let loop = '';
let store = '';
beforeAll(async () => {
  ensureBuilt();
  loop = join(dir.dir, 'one', 'loop.jsonl');
  await generateLongLoop(loop, { rounds: ROUNDS, seed: 56 });
  store = join(dir.dir, 'store');
  await generateLongLoop(join(store, 'a-long.jsonl'), { rounds: ROUNDS, seed: 56 });
  // Eleven more sessions: more than --top's 10, so the overview comes first.
  for (let i = 1; i <= 11; i++) await generateLongLoop(join(store, `b-${i}.jsonl`), { rounds: 10 + i * 7, seed: 100 + i, varied: i % 3 === 0 ? 5 : 0 });
}, 120_000);
afterAll(() => dir.cleanup());

const widest = (text: string) => text.split('\n').reduce((w, l) => Math.max(w, [...l].length), 0);

describe(`a ${ROUNDS.toLocaleString('en-US')}-round loop in the table`, () => {
  for (const columns of [80, 160]) {
    it(`fits a few dozen lines at ${columns} columns, the loop one row, and ends with the next steps`, async () => {
      const r = await runCli([loop], { env: { COLUMNS: String(columns) } });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines.length).toBeLessThanOrEqual(40);
      expect(widest(r.stdout)).toBeLessThanOrEqual(columns);
      // Rounds 3..1,801 repeat the failing command: one row, its span, its count, the stop it reached.
      // At 80 columns the kind is cut, never its count.
      const row = lines.find((l) => /│ repe\S* ×\d+/.test(l))!;
      // Counts as every human format writes them (issue 56 item 5: "1,801" never beside "1801").
      expect(row).toMatch(/3–1,801\*/);
      expect(row).toContain(`×${(ROUNDS - 2).toLocaleString('en-US')}`);
      expect(row).toContain('stop r4');
      // What was repeated: the tool and its command, values normalised (cut to its first letters at 80).
      expect(row).toMatch(columns >= 160 ? /Bash\((npm|cargo|pytest|go)/ : /│ Bash/);
      expect(lines.filter((l) => l.startsWith('│')).length).toBeLessThanOrEqual(4);
      expect(lines.at(-1)).toMatch(/^ {0,8}\S/);
      const next = lines.filter((l) => l.startsWith('next: '));
      expect(next.length).toBeGreaterThanOrEqual(1);
      expect(next.length).toBeLessThanOrEqual(2);
      expect(next[0]).toContain('loopledger hook install claude-code');
    });
  }

  it('--all lists every finding of every round', async () => {
    const r = await runCli([loop, '--all'], { env: { COLUMNS: '160' } });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\n').filter((l) => /│\s+\d+(–\d+)?\*? │/.test(l));
    // One per round from 3 on, plus round 6's no_progress.
    expect(rows.length).toBe(ROUNDS - 2 + 1);
    expect(r.stdout).toContain(`${(ROUNDS - 1).toLocaleString('en-US')}× (max 2)`);
  });

  it('with more sessions than --top, the overview stays on top and the whole output fits a screenful or two', async () => {
    const r = await runCli([store], { env: { COLUMNS: '80' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^12 sessions · \d+ with findings, worst first/);
    expect(lines.length).toBeLessThanOrEqual(200);
    expect(widest(r.stdout)).toBeLessThanOrEqual(80);
  });
});
