// "An end-to-end file run alone after an edit tests the old build" (issue 57, item 1) and "every
// test file passes alone" (item 3): a file that runs bin/loopledger.js or reads dist/ itself
// checks the build first (ensureBuilt, which rebuilds when dist/ is older than src/); one that runs
// the binary through the helpers (runCli, spawnCli, runCapped) is checked by them, once a process.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/helpers.js';

/** The binary or the build, named in a file's own code. */
const USES_THE_BUILD = /bin\/loopledger\.js|['"`/]dist\//;

/** Files that name them without running the build, and why. */
const NAMES_ONLY: Record<string, string> = {
  'hook/install.property.test.ts': 'bin/loopledger.js is hook command text, parsed, never run',
  'robustness/hook-install-edits.property.test.ts': 'bin/loopledger.js is hook command text, parsed, never run',
  'cli/stale-build.test.ts': 'its dist/ folders are made-up checkouts in a scratch directory',
  'package/first-command.test.ts': 'reads the texts of .ci/run, the README and package.json',
};

const testFiles = (readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.test.ts'));

describe('every file that runs or reads the build checks it first', () => {
  it('finds files that run the binary (a scan that found none would prove nothing)', () => {
    expect(testFiles.filter((f) => USES_THE_BUILD.test(readFileSync(join(ROOT, 'test', f), 'utf8'))).length).toBeGreaterThan(10);
  });

  it('calls ensureBuilt, or is listed with the reason it does not need to', () => {
    const unchecked = testFiles.filter((f) => {
      const text = readFileSync(join(ROOT, 'test', f), 'utf8');
      return USES_THE_BUILD.test(text) && !/\bensureBuilt\b/.test(text) && !(f in NAMES_ONLY);
    });
    expect(unchecked).toEqual([]);
  });

  it('lists no file that no longer names the build', () => {
    const stale = Object.keys(NAMES_ONLY).filter((f) => !USES_THE_BUILD.test(readFileSync(join(ROOT, 'test', f), 'utf8')));
    expect(stale).toEqual([]);
  });
});
