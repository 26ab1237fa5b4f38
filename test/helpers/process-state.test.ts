// The check that keeps files sharing a worker apart (test/helpers/worker-state.ts): what a file
// changed in its process is named and put back.

import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { restore, snapshot } from './process-state.js';

describe('restore', () => {
  it('names nothing and changes nothing when the file left the process as it found it', () => {
    const before = snapshot();
    process.env['LOOPLEDGER_STATE_PROBE'] = 'x';
    delete process.env['LOOPLEDGER_STATE_PROBE'];
    expect(restore(before)).toEqual([]);
  });

  it('names a variable set, changed or removed, a move and a umask, and puts each back', () => {
    const before = snapshot();
    const path = process.env['PATH'];
    const home = process.env['HOME'];
    const cwd = process.cwd();
    const umask = process.umask(0o077);
    process.env['LOOPLEDGER_STATE_PROBE'] = 'set';
    process.env['PATH'] = '/nowhere';
    delete process.env['HOME'];
    process.chdir(tmpdir());
    const there = process.cwd();
    expect(restore(before).sort()).toEqual(['changed PATH', `moved to ${there}`, 'removed HOME', 'set LOOPLEDGER_STATE_PROBE', 'set the umask to 77'].sort());
    expect(process.env['LOOPLEDGER_STATE_PROBE']).toBeUndefined();
    expect(process.env['PATH']).toBe(path);
    expect(process.env['HOME']).toBe(home);
    expect(process.cwd()).toBe(cwd);
    expect(process.umask(umask)).toBe(umask);
  });

  it("leaves vitest's own variables to vitest", () => {
    const before = snapshot();
    const own = process.env['VITEST_POOL_ID'];
    process.env['VITEST_POOL_ID'] = 'another';
    expect(restore(before)).toEqual([]);
    if (own === undefined) delete process.env['VITEST_POOL_ID'];
    else process.env['VITEST_POOL_ID'] = own;
  });
});
