// Issue 28: `tool_batch.on_refusal = stop | steer` ... "The sweep shows both", and "`sweep` reports
// saved and cut per value, so a threshold can be chosen by trade-off without labels". Through the
// built binary, on the item-4 fixtures, every figure worked out by hand (test/ledger/cut.test.ts
// derives the per-round tokens).

import { beforeAll, describe, expect, it } from 'vitest';
import type { SweepResult } from '../../src/calibrate/sweep.js';
import { ensureBuilt, runCli } from '../cli/helpers.js';

const FILES = ['fixtures/calibration/claude-code/loop-recover-cat-n.jsonl', 'fixtures/calibration/canonical/loop-recover-read-file.jsonl', 'fixtures/calibration/claude-code/loop-six-reads.jsonl'];

beforeAll(() => ensureBuilt());

describe('sweep of an enum key, with saved and cut per value', { timeout: 60_000 }, () => {
  it('tool_batch.on_refusal=stop,steer: stop cuts the two recoveries (52 rounds) and saves the six reads (4); steer lets the recoveries go on and stops the six reads at their fourth steer', async () => {
    const r = await runCli(['sweep', ...FILES, '--param', 'tool_batch.on_refusal=stop,steer', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as SweepResult;
    const [stop, steer] = j.points;
    expect(j.points.map((p) => p.values)).toEqual([{ 'tool_batch.on_refusal': 'stop' }, { 'tool_batch.on_refusal': 'steer' }]);
    // stop: each refused at its third identical read (round 4). The recoveries: rounds 5..30 cut
    // (26 each; tokens 377,468 + 107,900); the six reads: rounds 5..8 saved (44,872 tokens).
    expect(stop!.stopped).toEqual({ sessions: 3, rounds: 3 });
    expect(stop!.saved).toMatchObject({ rounds: 4, tokens: 44_872, sessions: 1 });
    expect(stop!.cut).toMatchObject({ rounds: 52, tokens: 377_468 + 107_900, sessions: 2 });
    // steer: the refusal at round 4 steers; the recoveries never repeat again, so they are never
    // stopped; the six reads steer at 4, 5, 6 and, three steers unheeded, stop at 7: round 8 saved
    // (9268 + 300 × 8 tokens).
    expect(steer!.stopped).toEqual({ sessions: 1, rounds: 1 });
    expect(steer!.saved).toMatchObject({ rounds: 1, tokens: 11_668, sessions: 1 });
    expect(steer!.cut).toMatchObject({ rounds: 0, tokens: 0, sessions: 0 });
  });

  it('the table has SAVED and CUT columns, and the apply line sets the word', async () => {
    // With a clean session, so the false-positive rate can be measured and a value recommended.
    const clean = 'fixtures/calibration/claude-code/clean-poll-bashoutput.jsonl';
    const r = await runCli(['sweep', ...FILES, clean, '--param', 'tool_batch.on_refusal=all', '--labels', 'fixtures/.labels.json', '--max-fpr', '0'], { env: { COLUMNS: '400' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/tool_batch\.on_refusal +FIRED +STEERED +STOPPED +SAVED +CUT +TP/);
    expect(r.stdout).toMatch(/\n +stop +\S+ \/ \S+ +\S+ \/ \S+ +3 \/ 3 +4 · 44\.9k tok +52 · 485k tok +3 +0 /);
    expect(r.stdout).toMatch(/\n +steer +\S+ \/ \S+ +\S+ \/ \S+ +1 \/ 1 +1 · 11\.7k tok +0 +1 +0 /);
    expect(r.stdout).toContain('apply: --set tool_batch.on_refusal=stop');
  });

  it('a word the key does not take is a usage error naming the values (exit 2)', async () => {
    const r = await runCli(['sweep', FILES[0]!, '--param', 'tool_batch.on_refusal=stop,maybe']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"maybe" is not one of tool_batch.on_refusal\'s values (stop, steer)');
  });
});
