// `hook doctor codex` against the real Codex 0.169.0: it says a guard is not reviewed exactly when
// Codex itself (`codex app-server`, hooks/list) reports it untrusted or modified, and
// `hook install codex --user` writes where Codex reads, $CODEX_HOME, also when that is not
// ~/.codex (issue 29: "`hook doctor codex` detects an unreviewed hook"; stop 34, remaining (c), (d)).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { codexHookList, LOOPLEDGER, scratch } from './harness.mjs';
import { describeWith } from '../helpers/capabilities.js';

const d = scratch('codex');
// Codex's home away from ~/.codex: what install and doctor must follow.
d.codexHome = join(d.root, 'codex-elsewhere');
afterAll(() => rmSync(d.root, { recursive: true, force: true }));

const env = { HOME: d.home, PATH: `${d.bin}:${dirname(process.execPath)}:/usr/bin:/bin`, CODEX_HOME: d.codexHome, XDG_STATE_HOME: d.state };
const loopledger = (...args: string[]) => spawnSync(process.execPath, [LOOPLEDGER, ...args], { cwd: d.project, env, encoding: 'utf8' });
const hooksJson = join(d.codexHome, 'hooks.json');
const ours = async () => (await codexHookList(d)).filter((h) => h.command.includes('hook codex')).map((h) => `${h.eventName} ${h.trustStatus}`).sort();

describeWith('agent:codex', 'hook doctor codex and Codex 0.169.0 agree on which guard hooks are reviewed', () => {
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
