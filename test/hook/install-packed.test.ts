// Soak tier (npm run test:soak): installs the packed tarball with npm before it installs the hook, a release check that waits on npm.
// The hook as a user installs it (issue 26.3: "`hook install` writes a command the agent will
// find"): the tarball `npm pack` makes, installed into a scratch prefix whose path has a space and
// a quote, `hook install --write` with a scratch HOME, with and without that prefix's bin on the
// PATH; the command written runs from another folder, and `hook doctor` says whether it answers.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, scratch } from '../cli/helpers.js';

const tmp = scratch('loopledger-packed-');
const base = realpathSync(tmp.dir);
const prefix = join(base, "pre fix'q");
const bin = join(prefix, 'bin');
const launcher = join(prefix, 'lib', 'node_modules', 'loopledger', 'bin', 'loopledger.js');
const home = join(base, 'home');
const state = join(base, 'state');
const project = join(base, 'project');
const SYSTEM_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

beforeAll(() => {
  ensureBuilt();
  // --ignore-scripts: prepack would rebuild dist/ under the other tests' feet.
  const pack = spawnSync(npm, ['pack', '--ignore-scripts', '--pack-destination', base], { cwd: ROOT, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  const tarball = join(base, readdirSync(base).find((f) => f.endsWith('.tgz'))!);
  // --prefer-offline: the dependencies are in npm's cache after `npm ci`.
  const add = spawnSync(npm, ['install', '-g', '--prefix', prefix, tarball, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: base, encoding: 'utf8' });
  if (add.status !== 0) throw new Error(`npm install failed:\n${add.stderr}`);
  mkdirSync(project, { recursive: true });
}, 180_000);
afterAll(() => tmp.cleanup());

function loopledger(args: string[], { cwd = project, path = SYSTEM_PATH } = {}) {
  const r = spawnSync(join(bin, 'loopledger'), args, { cwd, env: { HOME: home, PATH: path, XDG_STATE_HOME: state }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const written = () => {
  const s = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  return [...new Set(Object.values(s.hooks).flatMap((groups) => groups.flatMap((g) => g.hooks.map((h) => h.command))))];
};

describe('installed from the tarball', () => {
  it('without its bin on the PATH: the launcher by its absolute path, quoted for sh; it runs from another folder', () => {
    const r = loopledger(['hook', 'install', 'claude-code', '--user', '--write', '--mode', 'enforce']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('no loopledger on the PATH: the hook runs this installation by its path');
    // Quoted by hand: the prefix's quote closes, is escaped, and reopens.
    const quoted = `'${launcher.replace(/'/g, `'\\''`)}'`;
    expect(written()).toEqual([`${quoted} hook claude-code --mode enforce`]);
    expect(r.stderr).toMatch(/loopledger hook doctor: ok: .* answered in \d+ ms \(loopledger [\d.]+, mode enforce\)/);

    // The agent's own call, from its own folder (/), through sh: the guard really runs (its state appears).
    const payload = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'packed-1', transcript_path: null, cwd: '/', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' });
    const call = spawnSync('sh', ['-c', written()[0]!], { cwd: '/', input: payload, env: { HOME: home, PATH: SYSTEM_PATH, XDG_STATE_HOME: state }, encoding: 'utf8' });
    expect(call.stderr).toBe('');
    expect(call.status).toBe(0);
    expect(readdirSync(join(state, 'loopledger'))).toContain('packed-1.state.json');

    const d = loopledger(['hook', 'doctor', 'claude-code'], { cwd: '/' });
    expect(d.stdout).toMatch(/^loopledger hook doctor: ok: .*answered in \d+ ms/);
    expect(d.code).toBe(0);
  });

  it('with its bin on the PATH: plain `loopledger`; the doctor then fails where the PATH lacks it', () => {
    const path = `${bin}:${SYSTEM_PATH}`;
    const r = loopledger(['hook', 'install', 'claude-code', '--user', '--write'], { path });
    expect(r.code).toBe(0);
    expect(written()).toEqual(['loopledger hook claude-code']);
    expect(r.stderr).not.toContain('warning');

    const ok = loopledger(['hook', 'doctor', 'claude-code'], { cwd: '/', path });
    expect(ok.stdout).toMatch(/: ok: .*runs `loopledger hook claude-code`: answered in \d+ ms/);
    expect(ok.code).toBe(0);

    // An agent started with another PATH would not find it: that is what the doctor is for.
    const lost = loopledger(['hook', 'doctor', 'claude-code'], { cwd: '/' });
    expect(lost.stdout).toMatch(/no answer: .*no `loopledger` on the PATH, not run: the agent will not find this command/);
    expect(lost.code).toBe(1);
  });
});
