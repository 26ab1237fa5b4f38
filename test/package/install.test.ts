// Soak tier (npm run test:soak): installs the packed tarball and this checkout with npm (pack, install -g, npx), a release check that waits on npm (~28 CPU-s).
// The install paths the README gives ("Install"), tried as a user would:
// the package from `npm pack` and this checkout each installed globally into a scratch prefix,
// then `loopledger` run from that prefix's bin/ on the PATH, and `npx` from the tarball. The
// tarball's dependencies come from the registry or npm's cache (--prefer-offline); when neither
// can supply them the tests skip and say why, since that is the machine, not the package.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipOrFail } from '../helpers/capabilities.js';
import { cliEnv, ensureBuilt, ROOT } from '../cli/helpers.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
const VERSION = PKG.version;
// The command the README types, as package.json names it (`loopledger`).
const COMMAND = Object.keys(PKG.bin)[0]!;
const scratch = mkdtempSync(join(tmpdir(), 'loopledger-install-'));
const FIXTURE = join(ROOT, 'fixtures', 'claude-code', 'looping-test-fix.jsonl');
// The ledger's totals line for that fixture (the next steps follow it), as the README's table section shows it.
const FOOTER = '1 session · 3 findings · enforce would stop 1 session, steer 0 · 0 skipped lines';
// What npm says when it cannot reach the registry and its cache lacks a package.
const OFFLINE = /ENOTCACHED|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|network|offline/i;

let tarball = '';
let fromTarball: string | null = null;
let fromCheckout: string | null = null;
let skipReason: string | null = null;

function npmRun(args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(npm, args, { cwd, encoding: 'utf8', env: cliEnv({ npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' }), timeout: 180_000 });
}

/** `loopledger …` as a shell finds it: the prefix's bin/ first on the PATH. */
function fromPath(prefix: string, args: string[]): SpawnSyncReturns<string> {
  const bin = process.platform === 'win32' ? prefix : join(prefix, 'bin');
  const env = cliEnv({ PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` });
  return spawnSync(COMMAND, args, { cwd: scratch, encoding: 'utf8', env, shell: process.platform === 'win32', timeout: 60_000 });
}

function installGlobal(spec: string, prefix: string): string | null {
  const r = npmRun(['install', '--global', '--prefix', prefix, '--prefer-offline', spec], scratch);
  if (r.status === 0) return prefix;
  if (OFFLINE.test(r.stderr)) {
    skipReason = `npm could not fetch the package's dependencies (no registry, not in the cache): ${r.stderr.trim().split('\n')[0]}`;
    return null;
  }
  throw new Error(`npm install -g ${spec} failed (exit ${r.status}):\n${r.stderr}`);
}

beforeAll(() => {
  ensureBuilt();
  // --ignore-scripts: prepack would rebuild dist/ under the other tests' feet; it is built already.
  const packed = npmRun(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], ROOT);
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  tarball = join(scratch, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  fromTarball = installGlobal(tarball, join(scratch, 'from-tarball'));
  if (fromTarball !== null) fromCheckout = installGlobal(ROOT, join(scratch, 'from-checkout'));
}, 400_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm install -g ./loopledger-x.y.z.tgz (the tarball npm pack makes)', () => {
  it('puts loopledger on the PATH: --version prints the package version', (ctx) => {
    if (fromTarball === null) return skipOrFail(ctx, 'npm-registry', skipReason ?? 'not installed');
    const r = fromPath(fromTarball, ['--version']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${VERSION}\n`);
    expect(r.status).toBe(0);
  });

  it('is a copy, not a link to this checkout, and prints a ledger from the PATH', (ctx) => {
    if (fromTarball === null) return skipOrFail(ctx, 'npm-registry', skipReason ?? 'not installed');
    const installed = join(fromTarball, 'lib', 'node_modules', 'loopledger');
    expect(realpathSync(installed)).not.toBe(realpathSync(ROOT));
    expect(existsSync(join(installed, 'dist', 'cli.js'))).toBe(true);
    const r = fromPath(fromTarball, [FIXTURE]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('session 7c2d41e9-5b08-4f3a-8e61-0d93a7b2c4f5');
    expect(r.stdout.split('\n')).toContain(FOOTER);
  });
});

describe('npm install -g . (from a built checkout)', () => {
  it('links the checkout: loopledger on the PATH runs this build', (ctx) => {
    if (fromCheckout === null) return skipOrFail(ctx, 'npm-registry', skipReason ?? 'not installed');
    expect(realpathSync(join(fromCheckout, 'lib', 'node_modules', 'loopledger'))).toBe(realpathSync(ROOT));
    expect(fromPath(fromCheckout, ['--version']).stdout).toBe(`${VERSION}\n`);
    const r = fromPath(fromCheckout, [FIXTURE]);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')).toContain(FOOTER);
  });
});

describe('npx without installing', () => {
  it('npx --package=./loopledger-x.y.z.tgz loopledger --version', (ctx) => {
    if (fromTarball === null) return skipOrFail(ctx, 'npm-registry', skipReason ?? 'not installed');
    const r = npmRun(['exec', '--yes', '--prefer-offline', `--package=./${tarball.split(/[\\/]/).at(-1)}`, '--', COMMAND, '--version'], scratch);
    expect(r.stdout.trim().split('\n').at(-1)).toBe(VERSION);
    expect(r.status).toBe(0);
  });

  it('npx --yes ./loopledger-x.y.z.tgz FILE (the README\'s form) prints the ledger', (ctx) => {
    if (fromTarball === null) return skipOrFail(ctx, 'npm-registry', skipReason ?? 'not installed');
    const r = npmRun(['exec', '--yes', '--prefer-offline', `./${tarball.split(/[\\/]/).at(-1)}`, FIXTURE], scratch);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')).toContain(FOOTER);
  });

  it('npx loopledger inside the checkout runs its own bin', () => {
    const r = npmRun(['exec', '--offline', '--', COMMAND, FIXTURE], ROOT);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')).toContain(FOOTER);
  });
});
