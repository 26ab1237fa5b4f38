// The run's own temporary folder (test/helpers/run-temp.ts, every config's globalSetup): tests and
// what they start write below it, and the run's end removes it, naming what was left.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import setup from './run-temp.js';

const outer = process.env['TMPDIR'];
afterEach(() => {
  if (outer === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = outer;
  vi.restoreAllMocks();
});

describe('the run temporary folder', () => {
  it('is TMPDIR while the run lasts, below the folder it replaced, open to all with the sticky bit as /tmp is', () => {
    const before = tmpdir();
    const teardown = setup();
    const dir = process.env['TMPDIR']!;
    expect(tmpdir()).toBe(dir);
    expect(dirname(dir)).toBe(before);
    expect(statSync(dir).mode & 0o7777).toBe(0o1777);
    teardown();
    expect(existsSync(dir)).toBe(false);
    expect(process.env['TMPDIR']).toBe(outer);
  });

  it('is removed whole at the end, a folder made unreadable included, and what was left is named', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const teardown = setup();
    const dir = tmpdir();
    const leaked = mkdtempSync(join(dir, 'll-leaky-'));
    mkdirSync(join(leaked, 'closed'));
    writeFileSync(join(leaked, 'closed', 'f'), 'x');
    chmodSync(join(leaked, 'closed'), 0);
    teardown();
    expect(existsSync(dir)).toBe(false);
    expect(log.mock.calls.flat().join('\n')).toMatch(/left 1 entry in the run's temporary folder, removed now: ll-leaky-/);
  });

  it('says nothing when the tests left nothing', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    setup()();
    expect(log).not.toHaveBeenCalled();
  });
});
