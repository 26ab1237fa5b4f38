// ccusage, the yardstick users hold loopledger's speed against (issue 59, item 1): version 18
// (JavaScript, Claude Code only) and version 20 (a native binary from a per-platform package,
// reading many agents' stores). Each is installed from the npm registry into a cache folder outside
// the repo (like test/agents/install.mjs for the agents), never a dependency; where version 20 has
// no package for this machine, or the registry is out of reach, it is skipped with the reason.
//   node bench/ccusage.mjs        (installs both, prints where each is or why not)

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CCUSAGE = { 18: '18.0.11', 20: '20.0.24' };
// The platforms ccusage 20 publishes a native package for (its optionalDependencies).
const NATIVE = new Set(['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win32-arm64', 'win32-x64']);

const cacheRoot = () => process.env.LOOPLEDGER_BENCH_CACHE || join(homedir(), '.cache', 'loopledger-bench');

function npmInstall(dir, spec) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', dir, spec], { encoding: 'utf8', timeout: 300_000 });
  return r.status === 0 ? null : (r.stderr || r.error?.message || 'npm install failed').trim().split('\n').slice(-2).join(' ');
}

/** ccusage 18's launcher, or { skipped: reason }. $CCUSAGE (a path) takes its place. */
function ccusage18() {
  if (process.env.CCUSAGE) return existsSync(process.env.CCUSAGE) ? { bin: process.env.CCUSAGE } : { skipped: `$CCUSAGE ${process.env.CCUSAGE} does not exist` };
  const dir = join(cacheRoot(), `ccusage-${CCUSAGE[18]}`);
  const bin = join(dir, 'node_modules', '.bin', 'ccusage');
  if (!existsSync(bin)) {
    const failed = npmInstall(dir, `ccusage@${CCUSAGE[18]}`);
    if (failed) return { skipped: `npm install ccusage@${CCUSAGE[18]}: ${failed}` };
  }
  return { bin };
}

/** ccusage 20's native binary for this machine, or { skipped: reason }. */
function ccusage20() {
  const platform = `${process.platform}-${process.arch}`;
  if (!NATIVE.has(platform)) return { skipped: `ccusage ${CCUSAGE[20]} publishes no native package for ${platform}` };
  const dir = join(cacheRoot(), `ccusage-${CCUSAGE[20]}`);
  const bin = join(dir, 'node_modules', '@ccusage', `ccusage-${platform}`, 'bin', process.platform === 'win32' ? 'ccusage.exe' : 'ccusage');
  if (!existsSync(bin)) {
    const failed = npmInstall(dir, `ccusage@${CCUSAGE[20]}`);
    if (failed) return { skipped: `npm install ccusage@${CCUSAGE[20]}: ${failed}` };
    if (!existsSync(bin)) return { skipped: `ccusage@${CCUSAGE[20]} installed without its native package @ccusage/ccusage-${platform}` };
  }
  // npm unpacks the binary without its execute bit; ccusage's own launcher sets it the same way.
  if (process.platform !== 'win32') chmodSync(bin, 0o755);
  return { bin };
}

/** Both versions: { 18: { bin } | { skipped }, 20: … }. */
export function installCcusage() {
  return { 18: ccusage18(), 20: ccusage20() };
}

/**
 * One ccusage over a store folder, offline, its JSON discarded: { ms, rssMb } or null where it failed.
 * `kind` is the store's agent: 'claude' (DIR/projects/…) or 'codex' (DIR/sessions/…). HOME is an
 * empty folder, so version 20 reads only this store, not the machine's own agents' stores.
 */
export function timeCcusage(version, bin, kind, dir) {
  const args = version === 18 ? ['session', '--offline', '--json'] : [kind, 'session', '--offline', '--json'];
  if (version === 18 && kind !== 'claude') return null;
  const home = mkdtempSync(join(tmpdir(), 'ccusage-home-'));
  const env = { ...process.env, HOME: home, NO_COLOR: '1', ...(kind === 'claude' ? { CLAUDE_CONFIG_DIR: resolve(dir) } : { CODEX_HOME: resolve(dir) }) };
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', bin, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  rmSync(home, { recursive: true, force: true });
  if (r.status !== 0) return null;
  return { ms, rssMb: Number(r.stderr.trim().split('\n').pop()) / 1024 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [version, got] of Object.entries(installCcusage())) console.log(`ccusage ${CCUSAGE[version]}: ${got.bin ?? `skipped: ${got.skipped}`}`);
}
