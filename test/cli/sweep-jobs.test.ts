// `sweep --jobs` (issue 31, item 4: "`sweep --jobs` is accepted and silently dropped"; deliver
// "`sweep --jobs` honoured or refused"). Refused above 1: a sweep replays one corpus held in memory
// one point at a time, and `--shard K/N` with `merge` is how it spreads over cores. `--jobs 1` is
// what a sweep does, so it stays accepted and changes nothing.

import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from './helpers.js';

beforeAll(() => ensureBuilt());

const SWEEP = ['sweep', 'fixtures/calibration', '--param', 'tool_batch.max_strikes=2:3:1', '--json'];

describe('sweep --jobs', () => {
  it('--jobs 2 is a usage error (exit 2, one line) that names the way to use more cores, and prints nothing on stdout', async () => {
    const r = await runCli([...SWEEP, '--jobs', '2']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^loopledger: sweep --jobs 2: .*one point at a time/);
    expect(r.stderr).toContain('--shard K/N');
    expect(r.stderr).toContain('loopledger merge');
  });

  it('--jobs 1 prints exactly what no --jobs prints', async () => {
    const [plain, one] = await Promise.all([runCli(SWEEP), runCli([...SWEEP, '--jobs', '1'])]);
    expect(plain.code).toBe(0);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout).points).toHaveLength(2);
    expect(one.stdout).toBe(plain.stdout);
  });

  it('--jobs 0 is refused as before, by the flag parser', async () => {
    const r = await runCli([...SWEEP, '--jobs', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--jobs takes a whole number of at least 1, not 0');
  });

  it('the help says so', async () => {
    const r = await runCli(['sweep', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--jobs <n>\s+only 1: points are replayed one at a time/);
  });
});
