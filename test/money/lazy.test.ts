// The price data takes about 100 ms to load: only commands that price may load it. A resolve hook
// makes importing the package fail, and a preload makes requiring it fail (the CLI's bundle
// requires it; the modules and the workers import it), so a command that loads it would show it.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuilt, ROOT } from '../cli/helpers.js';

const HOOKS = `export async function resolve(s, c, next) {
  if (s === '@pydantic/genai-prices') throw new Error('the price data was loaded');
  return next(s, c);
}`;
const REGISTER = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));`;

const tmp = mkdtempSync(join(tmpdir(), 'loopledger-lazy-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const PRELOAD = join(tmp, 'no-prices.cjs');
writeFileSync(
  PRELOAD,
  `const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@pydantic/genai-prices') throw new Error('the price data was loaded');
  return resolve.call(this, request, ...rest);
};
`,
);

function run(args: string[]) {
  return spawnSync(process.execPath, ['--require', PRELOAD, '--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, join(ROOT, 'bin', 'loopledger.js'), ...args], {
    cwd: ROOT,
    env: cliEnv(),
    encoding: 'utf8',
  });
}

beforeAll(() => ensureBuilt());

describe('the price data is loaded lazily', () => {
  it.each([[['formats']], [['config']], [['--help']], [['--version']], [['sweep', 'fixtures/calibration', '--param', 'tool_batch.max_strikes=2:3:1', '--jobs', '1']]])(
    '%j runs without it',
    (args) => {
      const r = run(args);
      expect(r.stderr).not.toContain('price data');
      expect(r.status, r.stderr).toBe(0);
    },
  );

  it('analyze loads it (the hook bites), and without it still prints the ledger, every cost saying why it has none', () => {
    const r = run(['fixtures/codex', '--json', '--jobs', '1']);
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.sessions[0].cost).toEqual({ usd: null, reason: expect.stringContaining('could not be loaded: the price data was loaded') });
    expect(j.sessions[0].usage.tokens).toBeGreaterThan(0);
  });
});
