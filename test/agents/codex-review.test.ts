// `hook doctor codex` against the real Codex at its pinned version (install.mjs): it says a guard is not reviewed exactly when
// Codex itself (`codex app-server`, hooks/list) reports it untrusted or modified, and
// `hook install codex --user` writes where Codex reads, $CODEX_HOME, also when that is not
// ~/.codex (issue 29: "`hook doctor codex` detects an unreviewed hook"; stop 34, remaining (c), (d)).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { codexHookList, LOOPLEDGER, scratch } from './harness.mjs';
import { AGENTS } from './install.mjs';
import { describeWith } from '../helpers/capabilities.js';

const d = scratch('codex');
// Codex's home away from ~/.codex: what install and doctor must follow.
d.codexHome = join(d.root, 'codex-elsewhere');
afterAll(() => rmSync(d.root, { recursive: true, force: true }));

const env = { HOME: d.home, PATH: `${d.bin}:${dirname(process.execPath)}:/usr/bin:/bin`, CODEX_HOME: d.codexHome, XDG_STATE_HOME: d.state };
const loopledger = (...args: string[]) => spawnSync(process.execPath, [LOOPLEDGER, ...args], { cwd: d.project, env, encoding: 'utf8' });
const hooksJson = join(d.codexHome, 'hooks.json');
const ours = async () => (await codexHookList(d)).filter((h) => h.command.includes('hook codex')).map((h) => `${h.eventName} ${h.trustStatus}`).sort();

describeWith('agent:codex', `hook doctor codex and Codex ${AGENTS.codex.version} agree on which guard hooks are reviewed`, () => {
  it('installed: in $CODEX_HOME/hooks.json, not ~/.codex; Codex lists all three trusted; the doctor says ok, exit 0', async () => {
    expect(loopledger('hook', 'install', 'codex', '--user', '--write', '--mode', 'enforce').status).toBe(0);
    expect(existsSync(hooksJson)).toBe(true);
    expect(existsSync(join(d.home, '.codex'))).toBe(false);
    expect(await ours()).toEqual(['postToolUse trusted', 'preToolUse trusted', 'stop trusted']);
    const r = loopledger('hook', 'doctor', 'codex');
    expect(r.stdout).not.toContain('not reviewed');
    expect(r.status).toBe(0);
  });

  it('one handler edited by hand: Codex says modified, the doctor names that event, exit 1', async () => {
    const settings = JSON.parse(readFileSync(hooksJson, 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    settings.hooks['Stop']![0]!.hooks[0]!.command += ' --set ladder.max_unheeded_steers=2';
    writeFileSync(hooksJson, JSON.stringify(settings, null, 2));
    expect(await ours()).toEqual(['postToolUse trusted', 'preToolUse trusted', 'stop modified']);
    const r = loopledger('hook', 'doctor', 'codex');
    expect(r.stdout).toContain(`not reviewed: ${hooksJson}: Codex has not reviewed the guard under Stop (`);
    expect(r.status).toBe(1);
  });

  it('no review recorded at all: Codex says untrusted, the doctor names every event; installing again fixes both', async () => {
    rmSync(join(d.codexHome, 'config.toml'));
    expect(await ours()).toEqual(['postToolUse untrusted', 'preToolUse untrusted', 'stop untrusted']);
    expect(loopledger('hook', 'doctor', 'codex').stdout).toContain('Codex has not reviewed the guard under PreToolUse, PostToolUse, Stop (');
    expect(loopledger('hook', 'install', 'codex', '--user', '--write', '--mode', 'enforce').status).toBe(0);
    expect(await ours()).toEqual(['postToolUse trusted', 'preToolUse trusted', 'stop trusted']);
    expect(loopledger('hook', 'doctor', 'codex').status).toBe(0);
  });
});

describeWith('agent:codex', 'a symlinked CODEX_HOME (issue 53, item 7): Codex keys reviews by its real path', () => {
  const s = scratch('codex');
  const real = join(s.root, 'dotfiles-codex');
  mkdirSync(real, { recursive: true });
  s.codexHome = join(s.root, 'codex-link');
  symlinkSync(real, s.codexHome);
  afterAll(() => rmSync(s.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }));
  const senv = { HOME: s.home, PATH: `${s.bin}:${dirname(process.execPath)}:/usr/bin:/bin`, CODEX_HOME: s.codexHome, XDG_STATE_HOME: s.state };
  const guard = async () => (await codexHookList(s)).filter((h) => h.command.includes('hook codex')).map((h) => `${h.eventName} ${h.trustStatus}`).sort();

  it('installed through the link: Codex lists all three trusted; the same reviews under the link path are not', async () => {
    const i = spawnSync(process.execPath, [LOOPLEDGER, 'hook', 'install', 'codex', '--user', '--write'], { cwd: s.project, env: senv, encoding: 'utf8' });
    expect(i.status).toBe(0);
    const config = join(real, 'config.toml');
    const toml = readFileSync(config, 'utf8');
    expect(toml).toContain(`${join(realpathSync(real), 'hooks.json')}:stop:0:0`);
    expect(await guard()).toEqual(['postToolUse trusted', 'preToolUse trusted', 'stop trusted']);
    // Keyed by the link's path instead, as installs before this fix wrote them: Codex does not find them.
    writeFileSync(config, toml.replaceAll(join(realpathSync(real), 'hooks.json'), join(s.codexHome, 'hooks.json')));
    expect(await guard()).toEqual(['postToolUse untrusted', 'preToolUse untrusted', 'stop untrusted']);
  });
});

describeWith('agent:codex', "removing a second guard (issue 53, item 5): the user's own reviewed hook after it stays reviewed in Codex", () => {
  const s = scratch('codex');
  afterAll(() => rmSync(s.root, { recursive: true, force: true }));
  const senv = { HOME: s.home, PATH: `${s.bin}:${dirname(process.execPath)}:/usr/bin:/bin`, CODEX_HOME: s.codexHome, XDG_STATE_HOME: s.state };
  const mine = (hooks: { command: string; key: string; currentHash: string; trustStatus: string }[]) => hooks.filter((h) => h.command === '/bin/true # mine');

  it('reviewed at stop:2:0, it moves to stop:1:0 and Codex still lists it trusted', async () => {
    mkdirSync(s.codexHome, { recursive: true });
    const hooks = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'loopledger hook codex' }] }, { hooks: [{ type: 'command', command: 'npx loopledger hook codex' }] }, { hooks: [{ type: 'command', command: '/bin/true # mine' }] }] } };
    writeFileSync(join(s.codexHome, 'hooks.json'), JSON.stringify(hooks, null, 2));
    const [listed] = mine(await codexHookList(s));
    expect(listed!.key.endsWith(':stop:2:0')).toBe(true);
    // The user's review, as Codex's /hooks would record it: the hash Codex itself computed.
    writeFileSync(join(s.codexHome, 'config.toml'), `[hooks.state.${JSON.stringify(listed!.key)}]\ntrusted_hash = ${JSON.stringify(listed!.currentHash)}\n`);
    expect(mine(await codexHookList(s)).map((h) => h.trustStatus)).toEqual(['trusted']);
    const i = spawnSync(process.execPath, [LOOPLEDGER, 'hook', 'install', 'codex', '--user', '--write'], { cwd: s.project, env: senv, encoding: 'utf8' });
    expect(i.status).toBe(0);
    const after = mine(await codexHookList(s));
    expect(after.map((h) => [h.key.split(':').slice(-3).join(':'), h.trustStatus])).toEqual([['stop:1:0', 'trusted']]);
  });
});
