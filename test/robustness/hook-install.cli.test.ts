// Issue 27, items 11-14: `hook install` keeps the settings file as its owner keeps it. A link
// (dotfiles) stays a link and the merge goes to its target; the file's mode is kept, and its
// backup's; the user's own launcher is kept and a second guard removed; Gemini CLI's settings
// with comments are read, and never silently stripped of them. Each case runs the built binary.

import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardIn, settingsWithGuard, settingsEntry } from '../../src/hook/install.js';
import { ensureBuilt, scratch } from '../cli/helpers.js';
import { BIN, commands, install as run, readJson, type Settings } from '../hook/install-run.js';

const tmp = scratch('loopledger-install-robust-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());
const install = (args: string[], env: { cwd: string; home?: string; path?: string }) => run(args, { home: join(tmp.dir, 'home'), ...env });

/** Every character of `a`, in order, is in `b`: `b` is `a` with text inserted. */
function isSubsequence(a: string, b: string): boolean {
  let j = 0;
  for (const c of b) if (j < a.length && c === a[j]) j++;
  return j === a.length;
}

const FILE = { 'claude-code': '.claude/settings.json', codex: '.codex/hooks.json' } as const;

describe.each(['claude-code', 'codex'] as const)('%s settings that are not JSON', (agent) => {
  it('are refused with the line, and left untouched', async () => {
    const project = join(tmp.dir, `bad-${agent}`);
    const text = '{\n  "hooks": { // a comment\n';
    const target = tmp.write(join(`bad-${agent}`, FILE[agent]), text);
    const r = await install([agent, '--write'], { cwd: project });
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

  it('are read, and the guard added by inserting text: every byte the owner wrote stays, comments included', async () => {
    const project = join(tmp.dir, 'gemini-comments');
    const target = tmp.write('gemini-comments/.gemini/settings.json', commented);
    const r = await install(['gemini', '--write'], { cwd: project });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('added BeforeTool, AfterTool, AfterAgent; its comments kept');
    const after = readFileSync(target, 'utf8');
    expect(isSubsequence(commented, after)).toBe(true);
    for (const comment of ['// my Gemini settings\n', '/* the one I pay for */']) expect(after).toContain(comment);
    // What it reads as (comments dropped by hand here): the settings with the guard merged in.
    const expected = JSON.parse(commented.replace('// my Gemini settings', '').replace('/* the one I pay for */', '')) as Settings;
    expect(JSON.parse(after.replace('// my Gemini settings', '').replace('/* the one I pay for */', ''))).toEqual(settingsWithGuard(expected, 'gemini', [], BIN).settings);
    expect(readFileSync(`${target}.bak`, 'utf8')).toBe(commented);
  });

  it('a guard already there with other arguments: its handler replaced in place, the comments around it kept', async () => {
    const project = join(tmp.dir, 'gemini-update');
    const text = `{\n  // mine\n  "hooks": { "AfterAgent": [{ "hooks": [{ "type": "command", "command": "loopledger hook gemini --mode off" }] }] } // end\n}\n`;
    const target = tmp.write('gemini-update/.gemini/settings.json', text);
    const r = await install(['gemini', '--write', '--mode', 'enforce'], { cwd: project });
    expect(r.code).toBe(0);
    const after = readFileSync(target, 'utf8');
    expect(after).toContain('// mine\n');
    expect(after).toContain('] } // end\n}');
    expect(after).toContain(`{"type":"command","command":"${BIN} hook gemini --mode enforce","timeout":5000,"name":"loopledger"}`);
  });

  it('a second guard to remove: cut out with its comma, every comment kept (issue 53, item 6)', async () => {
    const project = join(tmp.dir, 'gemini-second');
    const text = `{\n  // mine\n  "hooks": { "AfterAgent": [{ "hooks": [{ "type": "command", "command": "loopledger hook gemini" }, /* b */ { "type": "command", "command": "npx loopledger hook gemini" }] }] }\n}\n`;
    const target = tmp.write('gemini-second/.gemini/settings.json', text);
    const r = await install(['gemini', '--write', '--mode', 'enforce'], { cwd: project });
    expect(r.code).toBe(0);
    const after = readFileSync(target, 'utf8');
    expect(after).toContain('// mine\n');
    expect(after).toContain('/* b */');
    expect(commands(JSON.parse(after.replace('// mine', '').replace('/* b */', '')) as Settings, 'AfterAgent')).toEqual([`${BIN} hook gemini --mode enforce`]);
  });

  it.each([
    ['a comment inside the handler to replace', '[{ "type": "command", /* mine */ "command": "loopledger hook gemini --mode off" }]'],
    ['a comment inside the second guard to remove', '[{ "type": "command", "command": "loopledger hook gemini" }, { "type": "command", /* mine */ "command": "npx loopledger hook gemini" }]'],
  ])('%s: cannot be done around the comments: the entry to paste, exit 2, the file untouched', async (_, handlers) => {
    const project = join(tmp.dir, `gemini-hard-${handlers.length}`);
    const text = `{\n  // mine\n  "hooks": { "AfterAgent": [{ "hooks": ${handlers} }] }\n}\n`;
    const target = tmp.write(`gemini-hard-${handlers.length}/.gemini/settings.json`, text);
    const r = await install(['gemini', '--write', '--mode', 'enforce'], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${target} has comments, which rewriting it would lose, and this change cannot be made by editing around them: merge the entry above into it by hand; nothing written`);
    expect(JSON.parse(r.stdout)).toEqual({ hooks: settingsEntry('gemini', ['--mode', 'enforce'], BIN) });
    expect(readFileSync(target, 'utf8')).toBe(text);
    expect(existsSync(`${target}.bak`)).toBe(false);
  });

  it('with the guard already pasted in: nothing to do, exit 0', async () => {
    const project = join(tmp.dir, 'gemini-pasted');
    const entry = settingsEntry('gemini', [], BIN);
    const pasted = `{\n  // pasted by hand\n  "hooks": ${JSON.stringify(entry)}\n}\n`;
    const target = tmp.write('gemini-pasted/.gemini/settings.json', pasted);
    const r = await install(['gemini', '--write'], { cwd: project });
    expect(r.stderr).toContain('installed already; nothing written');
    expect(r.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe(pasted);
  });

  it('a comment that is really broken JSON is refused with its line', async () => {
    const project = join(tmp.dir, 'gemini-broken');
    tmp.write('gemini-broken/.gemini/settings.json', '{\n  // fine\n  "a": 1,\n  /* unterminated\n');
    const r = await install(['gemini', '--write'], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not JSON \(comments allowed\) at line \d+: .*; nothing written/);
  });
});

describe('the file as its owner keeps it', () => {
  it('27.11: a symbolic link (dotfiles) stays a link; the merge goes into its target', async () => {
    const home = join(tmp.dir, 'home-link');
    const dotfile = tmp.write('dotfiles/claude.json', '{ "model": "opus" }\n');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const link = join(home, '.claude', 'settings.json');
    symlinkSync('../../dotfiles/claude.json', link);
    const r = await install(['claude-code', '--user', '--write'], { cwd: join(tmp.dir, 'elsewhere'), home });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`through the link, into ${dotfile}`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('../../dotfiles/claude.json');
    const merged = readJson(dotfile);
    expect(merged.model).toBe('opus');
    expect(commands(merged, 'PreToolUse')).toEqual([`${BIN} hook claude-code`]);
    // The backup sits where the owner looks (beside the link), not in the dotfiles repository.
    expect(readFileSync(`${link}.bak`, 'utf8')).toBe('{ "model": "opus" }\n');
    expect(existsSync(`${dotfile}.bak`)).toBe(false);
  });

  it('27.11: a dangling link is followed too: its target is created, the link kept', async () => {
    const home = join(tmp.dir, 'home-dangling');
    mkdirSync(join(home, '.codex'), { recursive: true });
    mkdirSync(join(tmp.dir, 'dots2'), { recursive: true });
    const link = join(home, '.codex', 'hooks.json');
    symlinkSync(join(tmp.dir, 'dots2', 'hooks.json'), link);
    const r = await install(['codex', '--user', '--write'], { cwd: tmp.dir, home });
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readJson(join(tmp.dir, 'dots2', 'hooks.json')).hooks.Stop).toBeDefined();
  });

  it('27.12: a 0600 file stays 0600, and so does its .bak', async () => {
    const project = join(tmp.dir, 'secret');
    const target = tmp.write('secret/.gemini/settings.json', '{ "security": { "auth": { "apiKey": "AIza-not-real" } } }\n');
    chmodSync(target, 0o600);
    const r = await install(['gemini', '--write'], { cwd: project });
    expect(r.code).toBe(0);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(statSync(`${target}.bak`).mode & 0o777).toBe(0o600);
  });

  it('a link planted at the backup\'s name is replaced, never written through', async () => {
    const project = join(tmp.dir, 'planted');
    const victim = tmp.write('victim.txt', 'keep me\n');
    const target = tmp.write('planted/.claude/settings.json', '{}\n');
    symlinkSync(victim, `${target}.bak`);
    expect((await install(['claude-code', '--write'], { cwd: project })).code).toBe(0);
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
    ['pnpm dlx loopledger hook claude-code', 'pnpm dlx loopledger hook claude-code --mode enforce'],
    ['env NODE_OPTIONS=--no-warnings /usr/bin/node /x/loopledger.js hook claude-code', 'env NODE_OPTIONS=--no-warnings /usr/bin/node /x/loopledger.js hook claude-code --mode enforce'],
    ['"$HOME/my tools/loopledger" hook claude-code 2>>/tmp/ll.log', '"$HOME/my tools/loopledger" hook claude-code --mode enforce 2>>/tmp/ll.log'],
  ])('%s: its launcher kept, its arguments updated', (before, after) => {
    const { settings, updated, added } = settingsWithGuard(one(before), 'claude-code', ['--mode', 'enforce'], BIN);
    expect(updated).toContain('PreToolUse');
    expect(added).not.toContain('PreToolUse');
    expect(commandOf(settings)).toBe(after);
  });

  it('a bare `loopledger` an earlier install wrote becomes the path that works, when that name is not this installation', () => {
    const { settings } = settingsWithGuard(one('loopledger hook claude-code'), 'claude-code', [], BIN);
    expect(commandOf(settings)).toBe(`${BIN} hook claude-code`);
  });

  it('another agent\'s guard, `hook doctor` and look-alikes are not ours', () => {
    for (const command of ['loopledger hook gemini', 'loopledger hook doctor claude-code', 'myloopledger hook claude-code', 'echo loopledger hook', './loopledger-wrapper.sh hook claude-code', 'echo loopledger hook claude-code', 'my-wrapper loopledger hook claude-code']) {
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
    const { settings, deduplicated } = settingsWithGuard(existing, 'claude-code', [], BIN);
    expect(deduplicated).toContain('PreToolUse');
    expect((settings.hooks as Settings['hooks']).PreToolUse).toEqual([
      { matcher: '*', hooks: [{ type: 'command', command: '/opt/ll/bin/loopledger hook claude-code', timeout: 5 }] },
      { matcher: 'Bash', hooks: [{ type: 'command', command: './lint.sh' }] },
    ]);
  });

  it('through the binary: the user\'s path kept, two guards made one, and said so', async () => {
    const project = join(tmp.dir, 'two');
    const target = tmp.write('two/.claude/settings.json', JSON.stringify({
      hooks: {
        Stop: [
          { hooks: [{ type: 'command', command: '/opt/ll/bin/loopledger hook claude-code' }] },
          { hooks: [{ type: 'command', command: 'loopledger hook claude-code' }] },
        ],
      },
    }));
    const r = await install(['claude-code', '--write'], { cwd: project });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('removed a second guard from Stop');
    expect(r.stderr).toContain('kept your command /opt/ll/bin/loopledger');
    expect(readJson(target).hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: '/opt/ll/bin/loopledger hook claude-code', timeout: 5 }] }]);
    // A launcher this install did not write: the doctor that runs after the write reports it and never runs it.
    expect(r.stderr).toMatch(/loopledger hook doctor: foreign: .*\/opt\/ll\/bin\/loopledger hook claude-code`: not a command `hook install` of this installation writes .*so not run/);
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