// `loopledger hook install`: the settings entry for each agent, and the merge into settings files
// shaped like real ones (fixtures/, modelled on the agents' documented examples), keeping every
// hook and setting already there.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeSettings, settingsEntry } from '../../src/hook/install.js';
import { runHook } from '../../src/hook/main.js';
import { scratch } from '../cli/helpers.js';
import type { AgentName } from './agents.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const tmp = scratch('loopledger-hook-install-');
afterAll(() => tmp.cleanup());

const REAL: Record<AgentName, { fixture: string; file: string }> = {
  'claude-code': { fixture: 'claude-settings.json', file: '.claude/settings.json' },
  gemini: { fixture: 'gemini-settings.json', file: '.gemini/settings.json' },
  codex: { fixture: 'codex-hooks.json', file: '.codex/hooks.json' },
};

async function install(args: string[], cwd: string, home = join(tmp.dir, 'home')) {
  let stdout = '';
  let stderr = '';
  const code = await runHook(['install', ...args], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { HOME: home },
    cwd,
  });
  return { code, stdout, stderr };
}

type Settings = { hooks: Record<string, { matcher?: string; hooks: { command: string; timeout?: number }[] }[]> } & Record<string, unknown>;

const commands = (s: Settings, event: string) => (s.hooks[event] ?? []).flatMap((g) => g.hooks.map((h) => h.command));

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

    const r = await install([agent, '--project', '--write', '--mode', 'enforce'], project);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/added/);
    const merged = JSON.parse(readFileSync(target, 'utf8')) as Settings;
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
      expect(commands(merged, event).filter((c) => c.startsWith(`loopledger hook ${agent}`))).toEqual([`loopledger hook ${agent} --mode enforce`]);
    }
    // The previous file is kept beside it.
    expect(JSON.parse(readFileSync(`${target}.bak`, 'utf8'))).toEqual(original);

    // Again, with another mode: the guard's handler is updated in place, never duplicated.
    const again = await install([agent, '--project', '--write', '--mode', 'telemetry'], project);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/updated/);
    const twice = JSON.parse(readFileSync(target, 'utf8')) as Settings;
    for (const event of Object.keys(settingsEntry(agent))) {
      expect(commands(twice, event).filter((c) => c.includes(`hook ${agent}`))).toEqual([`loopledger hook ${agent} --mode telemetry`]);
    }
    expect(Object.keys(twice.hooks)).toEqual(Object.keys(merged.hooks));
  });

  it('refuses a settings file that is not JSON, and leaves it untouched', async () => {
    const project = join(tmp.dir, `bad-${agent}`);
    const target = tmp.write(join(`bad-${agent}`, file), '{ "hooks": { // a comment\n');
    const r = await install([agent, '--write'], project);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not JSON .*; nothing written/);
    expect(readFileSync(target, 'utf8')).toBe('{ "hooks": { // a comment\n');
  });
});

describe('install', () => {
  it('without --write prints the entry and writes nothing', async () => {
    const project = join(tmp.dir, 'dry');
    const r = await install(['claude-code'], project);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('claude-code') });
    expect(r.stderr).toContain(join(project, '.claude/settings.json'));
  });

  it('--user writes under HOME, creating the file', async () => {
    const home = join(tmp.dir, 'home-user');
    const r = await install(['codex', '--user', '--write'], join(tmp.dir, 'anywhere'), home);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(home, '.codex/hooks.json'), 'utf8'))).toEqual({ hooks: settingsEntry('codex') });
  });

  it('recognizes a guard installed by path (a local checkout) and updates it', () => {
    const existing = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'node /opt/loopledger/bin/loopledger.js hook claude-code', timeout: 60 }] }] } };
    const { settings, updated } = mergeSettings(existing, 'claude-code');
    expect(updated).toContain('Stop');
    expect((settings.hooks as Settings['hooks']).Stop).toEqual([{ hooks: [{ type: 'command', command: 'loopledger hook claude-code', timeout: 5 }] }]);
  });

  it('rejects hooks that are not an object, without touching the input', () => {
    const bad = { hooks: [] };
    expect(() => mergeSettings(bad, 'gemini')).toThrow(/not an object/);
    expect(bad).toEqual({ hooks: [] });
  });

  it('usage errors exit 2', async () => {
    expect((await install(['cursor'], tmp.dir)).code).toBe(2);
    expect((await install(['codex', '--mode', 'loud'], tmp.dir)).code).toBe(2);
  });

  it('an empty settings file is a fresh one', async () => {
    const project = join(tmp.dir, 'empty');
    const target = tmp.write('empty/.gemini/settings.json', '');
    const r = await install(['gemini', '--write'], project);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual({ hooks: settingsEntry('gemini') });
  });
});
