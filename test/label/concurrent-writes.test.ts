// Issue 53, "Labels, text and small things": "Concurrent `config --write` runs all exit 0 but keep
// 2-5 of 8 keys; concurrent `label` runs keep 4-7 of 12 labels." Property: "files written by several
// processes at once lose nothing (a lock, or a merge under it)". The built CLI, 8 and 12 processes
// started together on one file; a lock left by a run that died does not block the next.

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';

const BIN = join(ROOT, 'bin', 'loopledger.js');
const tmp = scratch('loopledger-concurrent-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

/** Start every run at once; resolve to their exit codes and stderr once all have ended. */
function together(runs: readonly (readonly string[])[]): Promise<{ code: number | null; stderr: string }[]> {
  return Promise.all(
    runs.map(
      (args) =>
        new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
          const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cliEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
          let stderr = '';
          child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
          child.on('error', reject);
          child.on('close', (code) => resolve({ code, stderr }));
        }),
    ),
  );
}

/** Eight keys, each set to a value that is not its default, so reading it back cannot pass by accident. */
const SETTINGS = [
  'ladder.max_unheeded_steers=5',
  'judge.max_verdicts_per_turn=7',
  'judge.timeout_s=11',
  'tool_batch.max_strikes=4',
  'tool_batch.max_observation_steps=21',
  'tool_batch.cycle_window=30',
  'tool_batch.no_progress_window=14',
  'output.exact_block_min_words=9',
] as const;

describe('files written by several processes at once lose nothing', () => {
  it('8 concurrent config --write runs, each its own key: the file holds all 8', async () => {
    const file = join(tmp.dir, 'loopledger.json');
    writeFileSync(file, '{ "scope": "turn" }\n');
    const results = await together(SETTINGS.map((set) => ['config', '--write', file, '--set', set]));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const r = await runCli(['config', '--config', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const keys = (JSON.parse(r.stdout) as { keys: { key: string; value: unknown; source: string }[] }).keys;
    const fromFile = Object.fromEntries(keys.filter((k) => k.source === 'file').map((k) => [k.key, k.value]));
    const expected = Object.fromEntries(SETTINGS.map((s) => [s.split('=')[0]!, Number(s.split('=')[1])]));
    expect(fromFile).toEqual({ ...expected, scope: 'turn' });
    // The lock is gone with the last run, and no temp is left.
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('loopledger.json') || f.startsWith('.loopledger.json'))).toEqual(['loopledger.json']);
  }, 180_000);

  it('12 concurrent label runs, each labelling its own session: the file holds all 12', async () => {
    const loop = readFileSync(join(ROOT, 'fixtures/calibration/canonical/loop-migrate-retry.jsonl'), 'utf8');
    const labels = join(tmp.dir, 'labels.json');
    const answer = tmp.write('answer.txt', 'l\n');
    const runs = Array.from({ length: 12 }, (_, i) => {
      const session = tmp.write(`session-${i}.jsonl`, loop.replace('"id":"loop-migrate-retry"', `"id":"session-${i}"`));
      return ['label', session, '--calm', '0', '--labels', labels, '--batch', answer];
    });
    const results = await together(runs);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(readFileSync(labels, 'utf8')) as Record<string, unknown>;
    for (let i = 0; i < 12; i++) expect(file[`session-${i}`], `session-${i}`).toEqual({ label: 'loop', turn: 2, round: 4 });
    expect(Object.keys(file).filter((k) => k.startsWith('session-'))).toHaveLength(12);
  }, 240_000);

  it('a lock left by a run that died is taken over at once', async () => {
    const file = join(tmp.dir, 'stale.json');
    // A pid no process has (past Linux's pid_max): its holder is gone.
    writeFileSync(`${file}.lock`, '4194999');
    const r = await runCli(['config', '--write', file, '--set', 'tool_batch.max_strikes=4']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ 'tool_batch.max_strikes': 4 });
  });
});
