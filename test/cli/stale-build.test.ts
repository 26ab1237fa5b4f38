// ensureBuilt rebuilds when dist/ is older than src/ (issue 57, item 1: "The build check compares
// dist/ with src/"): an end-to-end file run alone after an edit must not test the old build.

import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { staleBuild } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'loopledger-stale-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(path: string, seconds: number): void {
  const p = join(root, path);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, '');
  utimesSync(p, seconds, seconds);
}

describe('staleBuild', () => {
  it('says what is missing, then whether src/ changed after the oldest built file', () => {
    file('src/cli.ts', 1_000);
    file('src/run/audit.ts', 1_000);
    expect(staleBuild(root)).toMatch(/dist\/cli\.js is missing/);
    for (const f of ['cli.js', 'loopledger.cjs', 'hook.cjs']) file(`dist/${f}`, 2_000);
    expect(staleBuild(root)).toBeNull();
    file('src/run/audit.ts', 3_000);
    expect(staleBuild(root)).toBe('src/ changed after the last build');
    for (const f of ['cli.js', 'loopledger.cjs']) file(`dist/${f}`, 4_000);
    // The bundle written first is still older than the edit.
    expect(staleBuild(root)).toBe('src/ changed after the last build');
    file('dist/hook.cjs', 4_000);
    expect(staleBuild(root)).toBeNull();
  });
});
