// `loopledger hook install`: the settings entry for each agent, and the merge into settings files
// shaped like real ones (fixtures/, modelled on the agents' documented examples), keeping every
// hook and setting already there; the file kept as its owner keeps it (a link stays a link, its
// mode stays, comments are never silently dropped); the user's own launcher kept; never two guards.
// Everything runs the built binary from a project folder, with a HOME and a PATH of the test's.

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardIn, mergeSettings, settingsEntry } from '../../src/hook/install.js';
import { ensureBuilt, ROOT, scratch } from '../cli/helpers.js';
import type { AgentName } from './agents.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const BIN = join(ROOT, 'bin', 'loopledger.js');
const tmp = scratch('loopledger-hook-install-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

/** The PATH of a machine where loopledger is not installed: the system's folders, with node and sh. */
const SYSTEM_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');
/** What install writes then: this checkout's launcher by its path (its folder needs no quoting). */
const BY_PATH = `${BIN}`;

const REAL: Record<AgentName, { fixture: string; file: string }> = {
  'claude-code': { fixture: 'claude-settings.json', file: '.claude/settings.json' },
  gemini: { fixture: 'gemini-settings.json', file: '.gemini/settings.json' },
  codex: { fixture: 'codex-hooks.json', file: '.codex/hooks.json' },
};

interface Env {
  cwd: string;
  home?: string;
  path?: string;
}

function install(args: string[], { cwd, home = join(tmp.dir, 'home'), path = SYSTEM_PATH }: Env) {
  mkdirSync(cwd, { recursive: true });
  const r = spawnSync(process.execPath, [BIN, 'hook', 'install', ...args], {
    cwd,
    env: { HOME: home, PATH: path, XDG_STATE_HOME: join(tmp.dir, 'state') },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

type Settings = { hooks: Record<string, { matcher?: string; hooks: { command: string; timeout?: number }[] }[]> } & Record<string, unknown>;

const commands = (s: Settings, event: string) => (s.hooks[event] ?? []).flatMap((g) => g.hooks.map((h) => h.command));
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Settings;

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

  it('keeps every existing hook and setting, adds the guard once, and is idempotent', () => {
    const project = join(tmp.dir, `p-${agent}`);
    const target = join(project, file);
    const original = JSON.parse(readFileSync(join(FIXTURES, fixture), 'utf8')) as Settings;
    tmp.write(join(`p-${agent}`, file), readFileSync(join(FIXTURES, fixture), 'utf8'));

    const r = install([agent, '--project', '--write', '--mode', 'enforce'], { cwd: project });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/added/);
    const merged = readJson(target);
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
      expect(commands(merged, event).filter((c) => c.includes(`hook ${agent}`))).toEqual([`${BY_PATH} hook ${agent} --mode enforce`]);
    }
    // The previous file is kept beside it.
    expect(JSON.parse(readFileSync(`${target}.bak`, 'utf8'))).toEqual(original);

    // Again, with another mode: the guard's handler is updated in place, never duplicated.
    const again = install([agent, '--project', '--write', '--mode', 'telemetry'], { cwd: project });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/updated/);
    const twice = readJson(target);
    for (const event of Object.keys(settingsEntry(agent))) {
      expect(commands(twice, event).filter((c) => c.includes(`hook ${agent}`))).toEqual([`${BY_PATH} hook ${agent} --mode telemetry`]);
    }
    expect(Object.keys(twice.hooks)).toEqual(Object.keys(merged.hooks));

    // A third time, the same: nothing to change, nothing written (the backup is still the original).
    const third = install([agent, '--project', '--write', '--mode', 'telemetry'], { cwd: project });
    expect(third.code).toBe(0);
    expect(third.stderr).toContain('installed already; nothing written');
    expect(readFileSync(`${target}.bak`, 'utf8')).toBe(`${JSON.stringify(merged, null, 2)}\n`);
  });
});

describe.each<AgentName>(['claude-code', 'codex'])('%s settings that are not JSON', (agent) => {
  it('are refused with the line, and left untouched', () => {
    const project = join(tmp.dir, `bad-${agent}`);
    const text = '{\n  "hooks": { // a comment\n';
    const target = tmp.write(join(`bad-${agent}`, REAL[agent].file), text);
    const r = install([agent, '--write'], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${target.replace(/[.]/g, '\\.')}: not JSON at line 2: .*; nothing written\\n$`));
    expect(readFileSync(target, 'utf8')).toBe(text);
  });
});

describe('Gemini CLI settings with comments (issue 27.14: "Gemini CLI accepts them")', () => {
  const commented = `// my Gemini settings
{
  "model": { "name": "gemini-2.5-pro" }, /* the one I pay for */
  "mcpServers": { "docs": { "url": "http://localhost:8080/mcp" } },
  "hooks": {
    "BeforeTool": [
      { "matcher": "write_file", "hooks": [{ "type": "command", "command": "./check.sh", "timeout": 5000 }] }
    ]
  }
}
`;

  it('are read, and since a rewrite would lose the comments: the entry to paste, exit 2, the file untouched', () => {
    const project = join(tmp.dir, 'gemini-comments');
    const target = tmp.write('gemini-comments/.gemini/settings.json', commented);
    const r = install(['gemini', '--write'], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${target} has comments, which rewriting it would lose: merge the entry above into it by hand; nothing written`);
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('gemini', [], BY_PATH) });
    expect(readFileSync(target, 'utf8')).toBe(commented);
    expect(existsSync(`${target}.bak`)).toBe(false);
  });

  it('with the guard already pasted in: nothing to do, exit 0', () => {
    const project = join(tmp.dir, 'gemini-pasted');
    const entry = settingsEntry('gemini', [], BY_PATH);
    const pasted = `{\n  // pasted by hand\n  "hooks": ${JSON.stringify(entry)}\n}\n`;
    const target = tmp.write('gemini-pasted/.gemini/settings.json', pasted);
    const r = install(['gemini', '--write'], { cwd: project });
    expect(r.stderr).toContain('installed already; nothing written');
    expect(r.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe(pasted);
  });

  it('a comment that is really broken JSON is refused with its line', () => {
    const project = join(tmp.dir, 'gemini-broken');
    tmp.write('gemini-broken/.gemini/settings.json', '{\n  // fine\n  "a": 1,\n  /* unterminated\n');
    const r = install(['gemini', '--write'], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not JSON \(comments allowed\) at line \d+: .*; nothing written/);
  });
});

describe('the file as its owner keeps it', () => {
  it('27.11: a symbolic link (dotfiles) stays a link; the merge goes into its target', () => {
    const home = join(tmp.dir, 'home-link');
    const dotfile = tmp.write('dotfiles/claude.json', '{ "model": "opus" }\n');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const link = join(home, '.claude', 'settings.json');
    symlinkSync('../../dotfiles/claude.json', link);
    const r = install(['claude-code', '--user', '--write'], { cwd: join(tmp.dir, 'elsewhere'), home });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`through the link, into ${dotfile}`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('../../dotfiles/claude.json');
    const merged = readJson(dotfile);
    expect(merged.model).toBe('opus');
    expect(commands(merged, 'PreToolUse')).toEqual([`${BY_PATH} hook claude-code`]);
    // The backup sits where the owner looks (beside the link), not in the dotfiles repository.
    expect(readFileSync(`${link}.bak`, 'utf8')).toBe('{ "model": "opus" }\n');
    expect(existsSync(`${dotfile}.bak`)).toBe(false);
  });

  it('27.11: a dangling link is followed too: its target is created, the link kept', () => {
    const home = join(tmp.dir, 'home-dangling');
    mkdirSync(join(home, '.codex'), { recursive: true });
    mkdirSync(join(tmp.dir, 'dots2'), { recursive: true });
    const link = join(home, '.codex', 'hooks.json');
    symlinkSync(join(tmp.dir, 'dots2', 'hooks.json'), link);
    const r = install(['codex', '--user', '--write'], { cwd: tmp.dir, home });
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readJson(join(tmp.dir, 'dots2', 'hooks.json')).hooks.Stop).toBeDefined();
  });

  it('27.12: a 0600 file stays 0600, and so does its .bak', () => {
    const project = join(tmp.dir, 'secret');
    const target = tmp.write('secret/.gemini/settings.json', '{ "security": { "auth": { "apiKey": "AIza-not-real" } } }\n');
    chmodSync(target, 0o600);
    const r = install(['gemini', '--write'], { cwd: project });
    expect(r.code).toBe(0);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(statSync(`${target}.bak`).mode & 0o777).toBe(0o600);
  });

  it('a link planted at the backup\'s name is replaced, never written through', () => {
    const project = join(tmp.dir, 'planted');
    const victim = tmp.write('victim.txt', 'keep me\n');
    const target = tmp.write('planted/.claude/settings.json', '{}\n');
    symlinkSync(victim, `${target}.bak`);
    expect(install(['claude-code', '--write'], { cwd: project }).code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(lstatSync(`${target}.bak`).isSymbolicLink()).toBe(false);
  });
});

describe('27.13: our own handlers, whatever their path', () => {
  const one = (command: string) => ({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command, timeout: 60 }] }] } });
  const commandOf = (s: Record<string, unknown>) => ((s.hooks as Settings['hooks']).PreToolUse![0]!.hooks[0]!.command);

  it.each([
    ['/opt/ll/bin/loopledger hook claude-code', '/opt/ll/bin/loopledger hook claude-code --mode enforce'],
    ['node /x/bin/loopledger.js hook claude-code --mode off', 'node /x/bin/loopledger.js hook claude-code --mode enforce'],
    ['npx loopledger hook claude-code', 'npx loopledger hook claude-code --mode enforce'],
    ['npx -y loopledger@0.3.0 hook claude-code', 'npx -y loopledger@0.3.0 hook claude-code --mode enforce'],
    ['"$HOME/my tools/loopledger" hook claude-code 2>>/tmp/ll.log', '"$HOME/my tools/loopledger" hook claude-code --mode enforce 2>>/tmp/ll.log'],
  ])('%s: its launcher kept, its arguments updated', (before, after) => {
    const { settings, updated, added } = mergeSettings(one(before), 'claude-code', ['--mode', 'enforce'], BY_PATH);
    expect(updated).toContain('PreToolUse');
    expect(added).not.toContain('PreToolUse');
    expect(commandOf(settings)).toBe(after);
  });

  it('a bare `loopledger` an earlier install wrote becomes the path that works, when that name is not this installation', () => {
    const { settings } = mergeSettings(one('loopledger hook claude-code'), 'claude-code', [], BY_PATH);
    expect(commandOf(settings)).toBe(`${BY_PATH} hook claude-code`);
  });

  it('another agent\'s guard, `hook doctor` and look-alikes are not ours', () => {
    for (const command of ['loopledger hook gemini', 'loopledger hook doctor claude-code', 'myloopledger hook claude-code', 'echo loopledger hook', './loopledger-wrapper.sh hook claude-code']) {
      expect(guardIn(command, 'claude-code'), command).toBeNull();
    }
  });

  it('two guards in one event (two groups): one is left, and the group that held only the second goes', () => {
    const existing = {
      hooks: {
        PreToolUse: [
          { matcher: '*', hooks: [{ type: 'command', command: '/opt/ll/bin/loopledger hook claude-code', timeout: 5 }] },
          { matcher: 'Bash', hooks: [{ type: 'command', command: './lint.sh' }, { type: 'command', command: 'loopledger hook claude-code --mode enforce' }] },
          { matcher: 'Edit', hooks: [{ type: 'command', command: 'npx loopledger hook claude-code' }] },
        ],
      },
    };
    const { settings, deduplicated } = mergeSettings(existing, 'claude-code', [], BY_PATH);
    expect(deduplicated).toContain('PreToolUse');
    expect((settings.hooks as Settings['hooks']).PreToolUse).toEqual([
      { matcher: '*', hooks: [{ type: 'command', command: '/opt/ll/bin/loopledger hook claude-code', timeout: 5 }] },
      { matcher: 'Bash', hooks: [{ type: 'command', command: './lint.sh' }] },
    ]);
  });

  it('through the binary: the user\'s path kept, two guards made one, and said so', () => {
    const project = join(tmp.dir, 'two');
    const target = tmp.write('two/.claude/settings.json', JSON.stringify({
      hooks: {
        Stop: [
          { hooks: [{ type: 'command', command: '/opt/ll/bin/loopledger hook claude-code' }] },
          { hooks: [{ type: 'command', command: 'loopledger hook claude-code' }] },
        ],
      },
    }));
    const r = install(['claude-code', '--write'], { cwd: project });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('removed a second guard from Stop');
    expect(r.stderr).toContain('kept your command /opt/ll/bin/loopledger');
    expect(readJson(target).hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: '/opt/ll/bin/loopledger hook claude-code', timeout: 5 }] }]);
    // /opt/ll does not exist here: the doctor that runs after the write says the agent would get no guard.
    expect(r.stderr).toMatch(/loopledger hook doctor: no answer: .*\/opt\/ll\/bin\/loopledger hook claude-code`: exit 127/);
    expect(r.stderr).toContain('warning: the installed hook did not answer the probe');
  });

  it('property: any launcher path, any guard arguments, quoted by hand, are read back as written', () => {
    // Independent of the code under test: every word single-quoted, quotes inside escaped.
    const q = (s: string) => `'${s.replace(/'/g, `'"'"'`)}'`;
    const word = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\0'));
    fc.assert(
      fc.property(fc.array(word, { minLength: 0, maxLength: 3 }), fc.array(word, { maxLength: 4 }), (dirs, args) => {
        const launcher = `${['', ...dirs].map((d) => (d === '' ? '' : q(d))).join('/')}/loopledger`;
        const command = `${launcher} hook gemini ${args.map(q).join(' ')}`.trimEnd();
        const found = guardIn(command, 'gemini');
        expect(found).not.toBeNull();
        expect(found!.launcher).toBe(launcher);
        expect(found!.args).toEqual(args);
      }),
      { numRuns: 300 },
    );
  });
});

describe('issue 26.3: the command the agent will find', () => {
  it('`loopledger` when the loopledger on the PATH is this installation (npm\'s bin link to the launcher)', () => {
    const bin = join(tmp.dir, 'global-bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(BIN, join(bin, 'loopledger'));
    const r = install(['claude-code'], { cwd: join(tmp.dir, 'onpath'), path: `${bin}:${SYSTEM_PATH}` });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('claude-code') });
    expect(r.stderr).not.toContain('PATH');
  });

  it('what an earlier install of this installation wrote by path becomes `loopledger` once that is on the PATH; another path stays', () => {
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
    const r = install(['claude-code', '--write'], { cwd: project, path: `${bin}:${SYSTEM_PATH}` });
    expect(r.code).toBe(0);
    const merged = readJson(target);
    expect(commands(merged, 'PreToolUse')).toEqual(['loopledger hook claude-code']);
    expect(commands(merged, 'Stop')).toEqual(['/other/checkout/bin/loopledger.js hook claude-code']);
    expect(r.stderr).toContain('kept your command /other/checkout/bin/loopledger.js');
  });

  it('this launcher by its path when the loopledger on the PATH is another installation', () => {
    const bin = join(tmp.dir, 'other-bin');
    tmp.write('other-bin/loopledger', '#!/bin/sh\necho old\n');
    chmodSync(join(bin, 'loopledger'), 0o755);
    const r = install(['codex'], { cwd: join(tmp.dir, 'other'), path: `${bin}:${SYSTEM_PATH}` });
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('codex', [], BY_PATH) });
    expect(r.stderr).toContain(`the loopledger on the PATH (${join(bin, 'loopledger')}) is another installation`);
  });

  it('with node\'s path too when the PATH\'s node is another node (the launcher\'s #! would pick it)', () => {
    const bin = join(tmp.dir, 'other-node');
    tmp.write('other-node/node', '#!/bin/sh\nexit 1\n');
    chmodSync(join(bin, 'node'), 0o755);
    const r = install(['codex'], { cwd: join(tmp.dir, 'other'), path: `${bin}:${SYSTEM_PATH}` });
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('codex', [], `${process.execPath} ${BIN}`) });
  });

  it('--state-dir and --config are made absolute and quoted: the command runs from any folder', () => {
    const project = join(tmp.dir, 'rel');
    const r = install(['claude-code', '--state-dir', "my state/it's", '--config', 'll.json'], { cwd: project });
    const command = (JSON.parse(r.stdout) as Settings).hooks.Stop![0]!.hooks[0]!.command;
    expect(command).toBe(`${BY_PATH} hook claude-code --state-dir '${project}/my state/it'\\''s' --config ${project}/ll.json`);
  });
});

describe('install', () => {
  it('without --write prints the entry and writes nothing', () => {
    const project = join(tmp.dir, 'dry');
    const r = install(['claude-code'], { cwd: project });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('claude-code', [], BY_PATH) });
    expect(r.stderr).toContain(join(project, '.claude/settings.json'));
    expect(existsSync(join(project, '.claude'))).toBe(false);
  });

  it('--user writes under HOME, creating the file, and the doctor it runs then says the guard answered', () => {
    const home = join(tmp.dir, 'home-user');
    const r = install(['codex', '--user', '--write'], { cwd: join(tmp.dir, 'anywhere'), home });
    expect(r.code).toBe(0);
    expect(readJson(join(home, '.codex/hooks.json'))).toEqual({ hooks: settingsEntry('codex', [], BY_PATH) });
    expect(r.stderr).toMatch(/loopledger hook doctor: ok: .*hooks\.json \(PreToolUse, PostToolUse, Stop\) runs `.*`: answered in \d+ ms/);
    expect(r.stderr).not.toContain('warning');
  });

  it('rejects hooks that are not an object, without touching the input', () => {
    const bad = { hooks: [] };
    expect(() => mergeSettings(bad, 'gemini')).toThrow(/not an object/);
    expect(bad).toEqual({ hooks: [] });
  });

  it('usage errors exit 2', () => {
    expect(install(['cursor'], { cwd: tmp.dir }).code).toBe(2);
    expect(install(['codex', '--mode', 'loud'], { cwd: tmp.dir }).code).toBe(2);
    expect(install([], { cwd: tmp.dir }).code).toBe(2);
  });

  it('an empty settings file is a fresh one', () => {
    const project = join(tmp.dir, 'empty');
    const target = tmp.write('empty/.gemini/settings.json', '');
    const r = install(['gemini', '--write'], { cwd: project });
    expect(r.code).toBe(0);
    expect(readJson(target)).toEqual({ hooks: settingsEntry('gemini', [], BY_PATH) });
  });

  it('a settings path that is a folder is refused, nothing written', () => {
    const project = join(tmp.dir, 'folder');
    mkdirSync(join(project, '.claude', 'settings.json'), { recursive: true });
    const r = install(['claude-code', '--write'], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/settings\.json: not a regular file; nothing written/);
  });
});

