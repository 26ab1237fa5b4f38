// Issue 53, item 13, through the built CLI: the files a run is given beside its inputs are read
// with a size bound. Given /dev/zero, each was read whole (620 MB, then V8's "Invalid string
// length" and a stack trace); now each is refused at once, with the flag or file and the reason,
// exit 2. And --jobs past what the machine can use is clamped, which --verbose says.

import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ensureBuilt, scratch, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-side-files-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const SESSION = join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl');

describe('side files past their bound (issue 53, item 13)', () => {
  it.each([
    ['--config', [SESSION, '--config', '/dev/zero'], /^loopledger: config file \/dev\/zero: larger than 8 MB /],
    ['--prices', [SESSION, '--prices', '/dev/zero'], /^loopledger: --prices \/dev\/zero: larger than 32 MB /],
    ['--labels', ['sweep', SESSION, '--param', 'tool_batch.max_strikes=2:3:1', '--labels', '/dev/zero', '--jobs', '1'], /^loopledger: labels file \/dev\/zero: larger than 64 MB /],
    ['--batch', ['label', SESSION, '--batch', '/dev/zero', '--labels', 'LABELS'], /^loopledger: --batch \/dev\/zero: larger than 16 MB /],
  ])('%s /dev/zero: exit 2 at once, the file and the reason said', async (_, args, said) => {
    const r = await spawnCli(
      args.map((a) => (a === 'LABELS' ? join(tmp.dir, 'labels.json') : a)),
      { timeoutMs: 30_000, nodeArgs: ['--max-old-space-size=256'] },
    );
    expect(r.signal, `killed after ${r.ms} ms`).toBeNull();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(said);
    expect(r.stderr).not.toMatch(/Invalid string length|\n\s+at /);
  });
});

describe('--jobs past the machine (issue 53, item 13)', () => {
  it('--jobs 64 is clamped to twice the cores, and --verbose says so', async () => {
    const r = await spawnCli([SESSION, SESSION.replace('looping-test-fix', 'calm-readme-update'), '--jobs', '64', '--verbose', '--format', 'json'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    // Fewer where free memory is short: at most twice the cores, whatever the memory.
    const lanes = Number(/loopledger: --jobs 64: ([0-9]+) lanes? instead \(/.exec(r.stderr)?.[1]);
    expect(lanes).toBeGreaterThanOrEqual(1);
    expect(lanes).toBeLessThanOrEqual(availableParallelism() * 2);
  });
});
