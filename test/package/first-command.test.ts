// Issue 26: "The first command fails": `npm ci && npm start`, the README's first line, exited 2 on a
// fresh clone (start did not build) and CI never ran it. `.ci/run` now runs that line as the README
// writes it; this pins the pieces that cannot be run inside the test suite (npm ci would reinstall
// node_modules and npm start rebuild dist/ under the other tests' feet): what .ci/run reads from
// the README, that `start` builds before it prints, and that .ci/run checks the ledger's footer.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/helpers.js';

const ciRun = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');

describe("the README's first command", () => {
  it('.ci/run reads it from the README: the first line of the first sh block, comment dropped', () => {
    const assignment = ciRun.split('\n').find((l) => l.startsWith('first=$('));
    expect(assignment).toBeDefined();
    const r = spawnSync('bash', ['-c', `${assignment}\nprintf '%s' "$first"`], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('npm ci && npm start');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('```sh\n')[1]!.split('\n')[0]).toMatch(/^npm ci && npm start +# /);
  });

  it('npm start builds, then prints the ledger of fixtures/', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['start']).toBe('npm run build && node bin/loopledger.js fixtures');
  });

  it('.ci/run runs it before npm test and fails on no ledger footer', () => {
    const runs = ciRun.indexOf('bash -c "$first"');
    expect(runs).toBeGreaterThan(0);
    expect(ciRun.indexOf('\nnpm test')).toBeGreaterThan(runs);
    const footer = /grep -Eq '([^']+)'/.exec(ciRun)![1]!;
    const ledger = spawnSync(process.execPath, [join(ROOT, 'bin', 'loopledger.js'), 'fixtures/claude-code/looping-test-fix.jsonl'], { cwd: ROOT, encoding: 'utf8' });
    expect(new RegExp(footer, 'm').test(ledger.stdout)).toBe(true);
    expect(new RegExp(footer, 'm').test('dist/ is missing: run `npm run build`\n')).toBe(false);
  });
});
