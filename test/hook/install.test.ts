// `loopledger hook install`: the settings entry for each agent, the merge into settings files
// shaped like real ones (fixtures/, modelled on the agents' documented examples) keeping every
// hook and setting already there, and the command it writes (issue 26.3). The file's own keeping
// (links, modes, comments, the user's launchers: issue 27.11-14) is in
// test/robustness/hook-install.cli.test.ts.

import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsWithGuard, settingsEntry } from '../../src/hook/install.js';
import { ensureBuilt, scratch } from '../cli/helpers.js';
import type { AgentName } from './agents.js';
import { BIN, commands, install as run, readJson, type Settings, SYSTEM_PATH } from './install-run.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const tmp = scratch('loopledger-hook-install-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());
const install = (args: string[], env: { cwd: string; home?: string; path?: string }) => run(args, { home: join(tmp.dir, 'home'), ...env });

const REAL: Record<AgentName, { fixture: string; file: string }> = {
  'claude-code': { fixture: 'claude-settings.json', file: '.claude/settings.json' },
  gemini: { fixture: 'gemini-settings.json', file: '.gemini/settings.json' },
  codex: { fixture: 'codex-hooks.json', file: '.codex/hooks.json' },
};

describe('the settings entry', () => {
  it('Claude Code: every tool event plus Stop, timeout in seconds, Stop without matcher', () => {
    expect(settingsEntry('claude-code')).toEqual({
      PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'loopledger hook claude-code', timeout: 5 }] }],
      PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'loopledger hook claude-code', timeout: 5 }] }],
      PostToolUseFailure: [{ matcher: '*', hooks: [{ type: 'command', command: 'loopledger hook claude-code', timeout: 5 }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'loopledger hook claude-code', timeout: 5 }] }],
    });
  });

  it('Gemini CLI: BeforeTool, AfterTool, AfterAgent, timeout in milliseconds, a name', () => {
    const e = settingsEntry('gemini', ['--mode', 'enforce']);
    expect(Object.keys(e)).toEqual(['BeforeTool', 'AfterTool', 'AfterAgent']);
    expect(e.BeforeTool).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: 'loopledger hook gemini --mode enforce', timeout: 5000, name: 'loopledger' }] }]);
  });

  it('Codex: PreToolUse, PostToolUse, Stop, no matcher', () => {
    const e = settingsEntry('codex');
    expect(Object.keys(e)).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
    expect(e.PreToolUse).toEqual([{ hooks: [{ type: 'command', command: 'loopledger hook codex', timeout: 5 }] }]);
  });

  it('quotes a state directory with spaces for the shell', () => {
    const e = settingsEntry('codex', ['--state-dir', '/var/tmp/my state']);
    expect((e.Stop![0] as { hooks: { command: string }[] }).hooks[0]!.command).toBe("loopledger hook codex --state-dir '/var/tmp/my state'");
  });
});

describe.each<AgentName>(['claude-code', 'gemini', 'codex'])('install --write into a real-shaped %s file', (agent) => {
  const { fixture, file } = REAL[agent];

  it('keeps every existing hook and setting, adds the guard once, and is idempotent', async () => {
    const project = join(tmp.dir, `p-${agent}`);
    const target = join(project, file);
    const original = JSON.parse(readFileSync(join(FIXTURES, fixture), 'utf8')) as Settings;
    tmp.write(join(`p-${agent}`, file), readFileSync(join(FIXTURES, fixture), 'utf8'));

    const r = await install([agent, '--project', '--write', '--mode', 'enforce'], { cwd: project });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/added/);
    const merged = readJson(target);
    const firstText = readFileSync(target, 'utf8');
    // Everything that was there is still there, in place.
    for (const [key, value] of Object.entries(original)) {
      if (key !== 'hooks') expect(merged[key]).toEqual(value);
    }
    for (const [event, groups] of Object.entries(original.hooks)) {
      // Gemini keeps switches (`enabled`) beside the events.
      if (!Array.isArray(groups)) expect(merged.hooks[event]).toEqual(groups);
      else expect((merged.hooks[event] as unknown[]).slice(0, groups.length)).toEqual(groups);
    }
    for (const event of Object.keys(settingsEntry(agent))) {
      expect(commands(merged, event).filter((c) => c.includes(`hook ${agent}`))).toEqual([`${BIN} hook ${agent} --mode enforce`]);
    }
    // The previous file is kept beside it.
    expect(JSON.parse(readFileSync(`${target}.bak`, 'utf8'))).toEqual(original);

    // Again, with another mode: the guard's handler is updated in place, never duplicated.
    const again = await install([agent, '--project', '--write', '--mode', 'telemetry'], { cwd: project });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/updated/);
    const twice = readJson(target);
    for (const event of Object.keys(settingsEntry(agent))) {
      expect(commands(twice, event).filter((c) => c.includes(`hook ${agent}`))).toEqual([`${BIN} hook ${agent} --mode telemetry`]);
    }
    expect(Object.keys(twice.hooks)).toEqual(Object.keys(merged.hooks));

    // A third time, the same: nothing to change, nothing written (the backup is still the original).
    const third = await install([agent, '--project', '--write', '--mode', 'telemetry'], { cwd: project });
    expect(third.code).toBe(0);
    expect(third.stderr).toContain('installed already; nothing written');
    expect(readFileSync(`${target}.bak`, 'utf8')).toBe(firstText);
  });
});

describe('issue 26.3: the command the agent will find', () => {
  it('`loopledger` when the loopledger on the PATH is this installation (npm\'s bin link to the launcher)', async () => {
    const bin = join(tmp.dir, 'global-bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(BIN, join(bin, 'loopledger'));
    const r = await install(['claude-code'], { cwd: join(tmp.dir, 'onpath'), path: `${bin}:${SYSTEM_PATH}` });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('claude-code') });
    expect(r.stderr).not.toContain('PATH');
  });

  it('what an earlier install of this installation wrote by path becomes `loopledger` once that is on the PATH; another path stays', async () => {
    const bin = join(tmp.dir, 'global-bin2');
    mkdirSync(bin, { recursive: true });
    symlinkSync(BIN, join(bin, 'loopledger'));
    const project = join(tmp.dir, 'refresh');
    const target = tmp.write('refresh/.claude/settings.json', JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `${process.execPath} ${BIN} hook claude-code` }] }],
        Stop: [{ hooks: [{ type: 'command', command: '/other/checkout/bin/loopledger.js hook claude-code' }] }],
      },
    }));
    const r = await install(['claude-code', '--write'], { cwd: project, path: `${bin}:${SYSTEM_PATH}` });
    expect(r.code).toBe(0);
    const merged = readJson(target);
    expect(commands(merged, 'PreToolUse')).toEqual(['loopledger hook claude-code']);
    expect(commands(merged, 'Stop')).toEqual(['/other/checkout/bin/loopledger.js hook claude-code']);
    expect(r.stderr).toContain('kept your command /other/checkout/bin/loopledger.js');
  });

  it('a project-local install run through npx: its node_modules/.bin is on npx\'s PATH, not the agent\'s, so the path is written', async () => {
    const project = join(tmp.dir, 'local');
    const dotBin = join(project, 'node_modules', '.bin');
    mkdirSync(dotBin, { recursive: true });
    symlinkSync(BIN, join(dotBin, 'loopledger'));
    const r = await install(['claude-code'], { cwd: project, path: `${dotBin}:${SYSTEM_PATH}` });
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('claude-code', [], BIN) });
    expect(r.stderr).toContain('no loopledger on the PATH');
  });

  it('this launcher by its path when the loopledger on the PATH is another installation', async () => {
    const bin = join(tmp.dir, 'other-bin');
    tmp.write('other-bin/loopledger', '#!/bin/sh\necho old\n');
    chmodSync(join(bin, 'loopledger'), 0o755);
    const r = await install(['codex'], { cwd: join(tmp.dir, 'other'), path: `${bin}:${SYSTEM_PATH}` });
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('codex', [], BIN) });
    expect(r.stderr).toContain(`the loopledger on the PATH (${join(bin, 'loopledger')}) is another installation`);
  });

  it('with node\'s path too when the PATH\'s node is another node (the launcher\'s #! would pick it)', async () => {
    const bin = join(tmp.dir, 'other-node');
    tmp.write('other-node/node', '#!/bin/sh\nexit 1\n');
    chmodSync(join(bin, 'node'), 0o755);
    const r = await install(['codex'], { cwd: join(tmp.dir, 'other'), path: `${bin}:${SYSTEM_PATH}` });
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('codex', [], `${process.execPath} ${BIN}`) });
  });

  it('--state-dir and --config are made absolute and quoted: the command runs from any folder', async () => {
    const project = join(tmp.dir, 'rel');
    const r = await install(['claude-code', '--state-dir', "my state/it's", '--config', 'll.json'], { cwd: project });
    const command = (JSON.parse(r.stdout) as Settings).hooks.Stop![0]!.hooks[0]!.command;
    expect(command).toBe(`${BIN} hook claude-code --state-dir '${project}/my state/it'\\''s' --config ${project}/ll.json`);
  });
});

describe('install', () => {
  it('without --write prints the entry and writes nothing', async () => {
    const project = join(tmp.dir, 'dry');
    const r = await install(['claude-code'], { cwd: project });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('claude-code', [], BIN) });
    expect(r.stderr).toContain(join(project, '.claude/settings.json'));
    expect(existsSync(join(project, '.claude'))).toBe(false);
  });

  it('--user writes under HOME, creating the file, and the doctor it runs then says the guard answered', async () => {
    const home = join(tmp.dir, 'home-user');
    const r = await install(['codex', '--user', '--write'], { cwd: join(tmp.dir, 'anywhere'), home });
    expect(r.code).toBe(0);
    expect(readJson(join(home, '.codex/hooks.json'))).toEqual({ hooks: settingsEntry('codex', [], BIN) });
    expect(r.stderr).toMatch(/loopledger hook doctor: ok: .*hooks\.json \(PreToolUse, PostToolUse, Stop\) runs `.*`: answered in \d+ ms/);
    expect(r.stderr).not.toContain('warning');
  });

  it('rejects hooks that are not an object, without touching the input', () => {
    const bad = { hooks: [] };
    expect(() => settingsWithGuard(bad, 'gemini')).toThrow(/not an object/);
    expect(bad).toEqual({ hooks: [] });
  });

  it('usage errors exit 2', async () => {
    expect((await install(['cursor'], { cwd: tmp.dir })).code).toBe(2);
    expect((await install(['codex', '--mode', 'loud'], { cwd: tmp.dir })).code).toBe(2);
    expect((await install([], { cwd: tmp.dir })).code).toBe(2);
    expect((await install(['codex', '--user', '--project'], { cwd: tmp.dir })).code).toBe(2);
  });

  it('an empty settings file is a fresh one', async () => {
    const project = join(tmp.dir, 'empty');
    const target = tmp.write('empty/.gemini/settings.json', '');
    const r = await install(['gemini', '--write'], { cwd: project });
    expect(r.code).toBe(0);
    expect(readJson(target)).toEqual({ hooks: settingsEntry('gemini', [], BIN) });
  });

  it('a settings path that is a folder is refused, nothing written', async () => {
    const project = join(tmp.dir, 'folder');
    mkdirSync(join(project, '.claude', 'settings.json'), { recursive: true });
    const r = await install(['claude-code', '--write'], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/settings\.json: not a regular file; nothing written/);
  });
});

