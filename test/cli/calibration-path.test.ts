// Issue 56 item 3: the README's calibration line, run as written: "`loopledger sweep … --labels
// .labels.json --labels interrupts`, then the `loopledger config --write` line the sweep prints". Without
// --param the sweep picks the keys that matter for the findings, with a default false-alarm budget, and
// ends with a `config --write` line that changes something, or one sentence that the values fit.

import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from './helpers.js';

let space: ReturnType<typeof scratch> | undefined;
afterEach(() => {
  space?.cleanup();
  space = undefined;
});
beforeAll(ensureBuilt);

/** The README's line, its `…` (the sessions) in place: the words a newcomer copies. */
function readmeSweepLine(): string[] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s*\n\s*/g, ' ');
  const line = /`(loopledger sweep … [^`]+)`/.exec(text)?.[1];
  expect(line, 'README names the calibration line').toBeDefined();
  return line!.split(' ').slice(1);
}

describe('the calibration path as the README writes it', () => {
  it('ends with a config --write line that changes something, which every later command then reads', async () => {
    space = scratch('loopledger-calibrate-');
    const { dir } = space;
    copyFileSync(join(ROOT, 'fixtures', '.labels.json'), join(dir, '.labels.json'));
    const env = { HOME: join(dir, 'home'), XDG_CONFIG_HOME: undefined, LOOPLEDGER_CONFIG: undefined };
    const args = readmeSweepLine().map((w) => (w === '…' ? join(ROOT, 'fixtures', 'calibration') : w));
    const sweep = await runCli(args, { cwd: dir, env });
    expect(sweep.code, sweep.stderr).toBe(0);
    const last = sweep.stdout.trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(/^loopledger config --write loopledger\.json( --set [\w.]+=\S+)+$/);

    const write = await runCli(last.split(' ').slice(1), { cwd: dir, env });
    expect(write.code, write.stderr).toBe(0);
    const config = JSON.parse((await runCli(['config', '--json'], { cwd: dir, env })).stdout) as { file: string; keys: { key: string; value: unknown; default: unknown; source: string }[] };
    expect(config.file).toBe(join(dir, 'loopledger.json'));
    const changed = config.keys.filter((k) => k.source === 'file');
    expect(changed.length).toBeGreaterThan(0);
    for (const k of changed) expect(k.value).not.toEqual(k.default);

    // Swept again under what it wrote, the same labels find nothing more to change: one sentence says so.
    const again = await runCli(args, { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trimEnd().split('\n').at(-1)).toMatch(/^The configuration in force already fits these labels/);
  }, 900_000);

  it('says why it cannot start without --param or --labels, naming both', async () => {
    const r = await runCli(['sweep', join(ROOT, 'fixtures', 'claude-code')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--param KEY=FROM:TO:STEP, or --labels/);
  });

  it('with --param and labels but no --max-fpr, still recommends, within the default budget', async () => {
    const r = await runCli(['sweep', join(ROOT, 'fixtures', 'calibration'), '--param', 'tool_batch.max_strikes=1:3:1', '--labels', join(ROOT, 'fixtures', '.labels.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/recommended: tool_batch\.max_strikes=\d .*FPR \d\.\d+ <= 0\.05/);
    expect(r.stdout).not.toContain('pass --max-fpr');
  }, 300_000);
});
