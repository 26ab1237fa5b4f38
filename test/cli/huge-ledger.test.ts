// Soak tier (npm run test:soak): one transcript of 150,000 rounds in every format.
// Through the built binary: one transcript whose ledger holds 150,000 entries (one turn repeating
// the same failing tool batch). Before issue 11 the table crashed on it with "Maximum call stack
// size exceeded" (so did markdown at ~120k); now every format writes it in pieces.

import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, scratch } from './helpers.js';

// Past the ~125,000 arguments where a spread overflows Node's default stack (Math.max(...a) of
// 125,000 numbers passes, of 130,000 throws): 200,000 proved nothing more for a third more CPU.
const ROUNDS = 150_000;
const TIMEOUT = 240_000;

/**
 * The same generator as `bench/overview-store.mjs huge`, streamed to disk. With `turnEvery`, the
 * user says "try again" every so many rounds: the loop no longer folds into one run (docs/json.md,
 * "Runs"), so the machine formats hold an entry per repeat, as a ledger of many short loops does.
 */
async function hugeTranscript(file: string, rounds: number, turnEvery = Infinity): Promise<void> {
  const out = createWriteStream(file);
  const line = async (o: unknown) => {
    if (!out.write(JSON.stringify(o) + '\n')) await once(out, 'drain');
  };
  await line({ type: 'session', schema: 'loopledger-canonical/1', id: 'huge-ledger', parent: null, model: 'example-model-1' });
  await line({ type: 'user', text: 'Run the tests until they pass.' });
  for (let i = 0; i < rounds; i += 1) {
    if (i > 0 && i % turnEvery === 0) await line({ type: 'user', text: 'Try again.' });
    await line({ type: 'assistant', text: '', tool_calls: [{ id: `c${i}`, name: 'run_tests', arguments: { path: 'src' } }] });
    await line({ type: 'tool_result', id: `c${i}`, content: 'FAIL: 1 test failed', is_error: true });
  }
  out.end();
  await once(out, 'finish');
}

const dir = scratch('loopledger-huge-');
let file = '';
let shortLoops = '';
beforeAll(async () => {
  ensureBuilt();
  file = join(dir.dir, 'huge.jsonl');
  await hugeTranscript(file, ROUNDS);
  shortLoops = join(dir.dir, 'short-loops.jsonl');
  await hugeTranscript(shortLoops, ROUNDS, 3);
}, TIMEOUT);
afterAll(() => dir.cleanup());

describe(`a transcript with a ledger of ${ROUNDS.toLocaleString('en-US')} entries, through the binary`, () => {
  it('--format table --all: the whole ledger, every round a row, no "Maximum call stack size exceeded"', async () => {
    const r = await runCli([file, '--jobs', '1', '--all'], { env: { COLUMNS: '100' } });
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    // The head row, then one row per entry: rounds 2..ROUNDS (the first occurrence is no strike),
    // and round 5's no_progress (issue 28: said once for one batch answered alike).
    expect(lines.filter((l) => l.startsWith('│')).length).toBe(1 + (ROUNDS - 1) + 1);
    expect(r.stdout).toContain('│ run_tests(src) │');
    expect(r.stdout).toContain(`${ROUNDS.toLocaleString('en-US')}× (max 2)`);
    expect(lines.reduce((w, l) => Math.max(w, [...l].length), 0)).toBeLessThanOrEqual(100);
    expect(lines).toContain(`1 session · ${ROUNDS.toLocaleString('en-US')} findings · enforce would stop 1 session, steer 0 · 0 skipped lines`);
  }, TIMEOUT);

  it('--format markdown: within GitHub\'s 1 MiB, the rest counted', async () => {
    const r = await runCli([shortLoops, '--jobs', '1', '--format', 'markdown']);
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(0);
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(1024 * 1024);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^\*\*Cut to fit GitHub's 1 MiB summary limit:\*\* [\d,]+ findings of 1 session not shown\./);
  }, TIMEOUT);
});
