// `loopledger hook doctor <agent>` (SPEC 0.3, "Hook doctor": "runs the installed hook command with
// a probe payload as the agent would and prints whether it answered and in how many milliseconds
// (exit 0 ok, 1 not)"). Settings are written by hand here, as a user or an older install would
// have left them, and the doctor runs from the built binary with the test's HOME and PATH.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, scratch } from '../cli/helpers.js';
import { hookCommand } from './install-run.js';
import type { AgentName } from './agents.js';

const BIN = join(ROOT, 'bin', 'loopledger.js');
const tmp = scratch('loopledger-hook-doctor-');
const STATE = join(tmp.dir, 'state');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const SYSTEM_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');
/** Blocks the guard's start for 30 s. */
const HANG = 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30000)';

const FILE: Record<AgentName, string> = { 'claude-code': '.claude/settings.json', gemini: '.gemini/settings.json', codex: '.codex/hooks.json' };
const EVENT: Record<AgentName, string> = { 'claude-code': 'PreToolUse', gemini: 'BeforeTool', codex: 'PreToolUse' };

function settings(agent: AgentName, command: string, timeout?: number): string {
  const handler = { type: 'command', command, ...(timeout === undefined ? {} : { timeout }) };
  return JSON.stringify({ hooks: { [EVENT[agent]]: [{ hooks: [handler] }] } });
}

async function doctor(agent: string, cwd: string, { home = join(tmp.dir, 'nohome'), path = SYSTEM_PATH, codexHome = undefined as string | undefined, env = {} as Record<string, string> } = {}) {
  const started = Date.now();
  const r = await hookCommand('doctor', [agent], { cwd, home, path, env: { XDG_STATE_HOME: STATE, ...(codexHome === undefined ? {} : { CODEX_HOME: codexHome }), ...env } });
  return { ...r, ms: Date.now() - started };
}

/**
 * The doctor runs only the command install writes (this launcher by its path), so a guard that
 * misbehaves is made by what the environment hands node: a module it loads first.
 */
function misbehaving(name: string, js: string): Record<string, string> {
  // The doctor inherits it too, and goes on as usual.
  return { NODE_OPTIONS: `--require ${tmp.write(`${name}.cjs`, `if (!process.argv.includes('doctor')) { ${js} }\n`)}` };
}

/** This installation on the PATH under its npm bin name, as a global install puts it. */
function ourLoopledgerOnPath(name: string): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  spawnSync('ln', ['-s', BIN, join(dir, 'loopledger')]);
  return `${dir}:${SYSTEM_PATH}`;
}

describe.each<AgentName>(['claude-code', 'gemini', 'codex'])('%s', (agent) => {
  it('a working guard: ok, how many ms, the version and mode it runs; nothing left in the state', async () => {
    const project = join(tmp.dir, `ok-${agent}`);
    tmp.write(join(`ok-${agent}`, FILE[agent]), settings(agent, `${process.execPath} ${BIN} hook ${agent} --mode enforce`));
    const r = await doctor(agent, project);
    expect(r.stderr).toBe('');
    const ok = `loopledger hook doctor: ok: ${FILE[agent].replace(/\./g, '\\.')} \\(${EVENT[agent]}\\) runs \`.*\`: answered in \\d+ ms \\(loopledger \\d+\\.\\d+\\.\\d+, mode enforce\\)\\n`;
    if (agent === 'codex') {
      // Written by hand, so never reviewed: Codex would not run it (see "Codex's review" below).
      expect(r.stdout).toMatch(new RegExp(`^${ok}loopledger hook doctor: not reviewed: \\.codex/hooks\\.json: .*\\n$`));
      expect(r.code).toBe(1);
    } else {
      expect(r.stdout).toMatch(new RegExp(`^${ok}$`));
      expect(r.code).toBe(0);
    }
    // The probe is answered before the guard locks or writes anything.
    expect(existsSync(STATE) ? readdirSync(STATE, { recursive: true }) : []).toEqual([]);
  });
});

describe('a guard that would not run', () => {
  it('a bare `loopledger` the agent will not find: said so without running it, exit 1', async () => {
    const project = join(tmp.dir, 'notfound');
    tmp.write('notfound/.claude/settings.json', settings('claude-code', 'loopledger hook claude-code'));
    const r = await doctor('claude-code', project);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^loopledger hook doctor: no answer: \.claude\/settings\.json \(PreToolUse\) runs `loopledger hook claude-code`: no `loopledger` on the PATH, not run: the agent will not find this command\n$/);
  });

  it("a repository's own launcher ($CLAUDE_PROJECT_DIR/tools/loopledger, here a link to this very installation) is foreign: never run (issue 53, item 2)", async () => {
    const project = join(tmp.dir, 'projdir');
    mkdirSync(join(project, 'tools'), { recursive: true });
    spawnSync('ln', ['-s', BIN, join(project, 'tools', 'loopledger')]);
    tmp.write('projdir/.claude/settings.json', settings('claude-code', '"$CLAUDE_PROJECT_DIR"/tools/loopledger hook claude-code'));
    const r = await doctor('claude-code', project);
    expect(r.stdout).toMatch(/^loopledger hook doctor: foreign: .*tools\/loopledger hook claude-code`: not a command `hook install` of this installation writes .*so not run/);
    expect(r.code).toBe(1);
  });

  it('the same command answers once the PATH holds this installation', async () => {
    const bin = join(tmp.dir, 'linked');
    mkdirSync(bin, { recursive: true });
    spawnSync('ln', ['-s', BIN, join(bin, 'loopledger')]);
    const r = await doctor('claude-code', join(tmp.dir, 'notfound'), { path: `${bin}:${SYSTEM_PATH}` });
    expect(r.stdout).toMatch(/: ok: .*answered in \d+ ms/);
    expect(r.code).toBe(0);
  });

  it('a guard that fails open (exit 0, nothing said): no answer, exit 1', async () => {
    const project = join(tmp.dir, 'silent');
    tmp.write('silent/.codex/hooks.json', settings('codex', `${BIN} hook codex`));
    const r = await doctor('codex', project, { env: misbehaving('silent', 'process.exit(0)') });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/no answer: .*: exit 0 after \d+ ms: the guard stopped before it answered/);
  });

  it('a configuration the guard cannot load: no answer, exit 1', async () => {
    const project = join(tmp.dir, 'noconfig');
    tmp.write('noconfig/.claude/settings.json', settings('claude-code', `${BIN} hook claude-code --config ${join(tmp.dir, 'missing.json')}`));
    const r = await doctor('claude-code', project);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/no answer: .*--config .*missing\.json`: exit 0 after \d+ ms/);
  });

  it('--mode off answers nothing, and the doctor says that may be why', async () => {
    const project = join(tmp.dir, 'off');
    tmp.write('off/.gemini/settings.json', settings('gemini', `${BIN} hook gemini --mode off`));
    const r = await doctor('gemini', project);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('under --mode off it answers nothing');
  });

  it('a guard that answers but could not keep its state (its state folder cannot be made): not ok, exit 1', async () => {
    const project = join(tmp.dir, 'nostate');
    const blocker = tmp.write('nostate/a-file', 'not a folder\n');
    tmp.write('nostate/.claude/settings.json', settings('claude-code', `${BIN} hook claude-code --state-dir ${blocker}/state`));
    const r = await doctor('claude-code', project);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^loopledger hook doctor: not ok: .*answered in \\d+ ms \\(loopledger [\\d.]+, mode telemetry; its state folder ${blocker.replace(/[.]/g, '\\.')}/state is not writable\\)\\n$`));
  });

  it('a guard that hangs is killed at the handler\'s timeout (Claude Code: seconds), not waited for', async () => {
    const project = join(tmp.dir, 'hang');
    tmp.write('hang/.claude/settings.json', settings('claude-code', `${BIN} hook claude-code`, 1));
    const r = await doctor('claude-code', project, { env: misbehaving('hang', HANG) });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("still running at the agent's timeout (1000 ms), killed");
    expect(r.ms).toBeLessThan(10_000);
  });

  it('Gemini\'s timeout is in milliseconds', async () => {
    const project = join(tmp.dir, 'hang-gemini');
    tmp.write('hang-gemini/.gemini/settings.json', settings('gemini', `${BIN} hook gemini`, 700));
    const r = await doctor('gemini', project, { env: misbehaving('hang2', HANG) });
    expect(r.stdout).toContain('(700 ms)');
  });

  it('an answer that is not the probe\'s (another program) is no answer', async () => {
    const project = join(tmp.dir, 'liar');
    tmp.write('liar/.codex/hooks.json', settings('codex', `${BIN} hook codex`));
    const r = await doctor('codex', project, { env: misbehaving('liar', `process.stdout.write('{"loopledger_probe":{"id":"guessed"}}'); process.exit(0)`) });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('no answer');
  });
});

describe('where the doctor looks', () => {
  it('nothing installed: one line naming both files and the command that installs, exit 1', async () => {
    const r = await doctor('codex', join(tmp.dir, 'none'), { home: join(tmp.dir, 'none-home') });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`loopledger hook doctor: no loopledger guard for codex in .codex/hooks.json or ${join(tmp.dir, 'none-home', '.codex/hooks.json')}: run \`loopledger hook install codex --write\`\n`);
  });

  it('project and user settings both, a line each; one failing makes exit 1', async () => {
    const home = join(tmp.dir, 'both-home');
    const project = join(tmp.dir, 'both');
    tmp.write('both-home/.claude/settings.json', settings('claude-code', `${BIN} hook claude-code`));
    tmp.write('both/.claude/settings.json', settings('claude-code', '/nowhere/loopledger hook claude-code'));
    const r = await doctor('claude-code', project, { home });
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^loopledger hook doctor: foreign: \.claude\/settings\.json .*\/nowhere\/loopledger hook claude-code`: .*so not run/);
    expect(lines[1]).toMatch(new RegExp(`^loopledger hook doctor: ok: ${join(home, '.claude/settings.json').replace(/\./g, '\\.')} .*answered`));
  });

  it('the same command under several events is probed once', async () => {
    const project = join(tmp.dir, 'events');
    const handler = { type: 'command', command: `${BIN} hook claude-code` };
    tmp.write('events/.claude/settings.json', JSON.stringify({ hooks: { PreToolUse: [{ hooks: [handler] }], Stop: [{ hooks: [handler] }] } }));
    const r = await doctor('claude-code', project);
    expect(r.stdout).toMatch(/^loopledger hook doctor: ok: \.claude\/settings\.json \(PreToolUse, Stop\) runs/);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('settings that cannot be read are said so, exit 1', async () => {
    const project = join(tmp.dir, 'unreadable');
    tmp.write('unreadable/.codex/hooks.json', '{ "hooks": ');
    const r = await doctor('codex', project);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^loopledger hook doctor: cannot read \.codex\/hooks\.json: not JSON at line 1/);
  });

  it('an unknown agent is a usage error: exit 2', async () => {
    expect((await doctor('cursor', tmp.dir)).code).toBe(2);
  });
});

describe("Codex's review (Codex 0.169 runs only reviewed hooks; `codex exec` skips the others without a word)", () => {
  const codexHome = join(tmp.dir, 'elsewhere', 'codex-home');
  const home = join(tmp.dir, 'review-home');

  it('hook install codex --user writes $CODEX_HOME/hooks.json (not ~/.codex) and records the review beside it: the doctor says ok', async () => {
    mkdirSync(join(tmp.dir, 'review-cwd'), { recursive: true });
    const i = await hookCommand('install', ['codex', '--user', '--write', '--mode', 'enforce'], { cwd: join(tmp.dir, 'review-cwd'), home, env: { XDG_STATE_HOME: STATE, CODEX_HOME: codexHome } });
    expect(i.code).toBe(0);
    expect(existsSync(join(codexHome, 'hooks.json'))).toBe(true);
    expect(existsSync(join(home, '.codex'))).toBe(false);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toContain(`[hooks.state.${JSON.stringify(`${join(codexHome, 'hooks.json')}:pre_tool_use:0:0`)}]`);
    const r = await doctor('codex', join(tmp.dir, 'review-cwd'), { home, codexHome });
    expect(r.stdout).toMatch(/^loopledger hook doctor: ok: .*codex-home\/hooks\.json \(PreToolUse, PostToolUse, Stop\) runs .*answered in \d+ ms/);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(r.code).toBe(0);
  });

  it('a handler edited by hand after the review: not reviewed, in one line saying what to do, exit 1', async () => {
    const path = join(codexHome, 'hooks.json');
    const settings = JSON.parse(readFileSync(path, 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    settings.hooks['PostToolUse']![0]!.hooks[0]!.command += ' --set ladder.max_unheeded_steers=2';
    writeFileSync(path, JSON.stringify(settings));
    const r = await doctor('codex', join(tmp.dir, 'review-cwd'), { home, codexHome });
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe(
      `loopledger hook doctor: not reviewed: ${path}: Codex has not reviewed the guard under PostToolUse (no matching trusted_hash in ${join(codexHome, 'config.toml')}), so it does not run it: ` +
        'run `loopledger hook install codex --write` again with the same options (it records the review), or run `codex`, open /hooks and trust the loopledger hooks (until then `codex exec` skips them silently)',
    );
  });

  it("the review Codex itself computed is recognised: a trusted_hash Codex 0.169.0 reported (hooks/list currentHash) for `loopledger hook codex --mode enforce`", async () => {
    // The hash is the one pinned in test/agents/codex-trust.test.ts, as Codex reported it.
    const ch = join(tmp.dir, 'pinned-codex');
    const hooksPath = join(ch, 'hooks.json');
    tmp.write('pinned-codex/hooks.json', JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'loopledger hook codex --mode enforce', timeout: 5 }] }] } }));
    const trusted = `[hooks.state.${JSON.stringify(`${hooksPath}:pre_tool_use:0:0`)}]\ntrusted_hash = "sha256:f62130b0015a62879655492bec161041f068f5950167d8c215dbb1fcdd6deb38"\n`;
    tmp.write('pinned-codex/config.toml', trusted);
    const path = ourLoopledgerOnPath('pinned-bin');
    const ok = await doctor('codex', join(tmp.dir, 'pinned-cwd'), { home, codexHome: ch, path });
    expect(ok.stdout).toMatch(/^loopledger hook doctor: ok: [^\n]*\n$/);
    expect(ok.code).toBe(0);
    // One hex digit off, as after an edit Codex would see: not reviewed.
    tmp.write('pinned-codex/config.toml', trusted.replace('f62130b0', 'f62130b1'));
    const off = await doctor('codex', join(tmp.dir, 'pinned-cwd'), { home, codexHome: ch, path });
    expect(off.stdout).toContain('not reviewed: ');
    expect(off.code).toBe(1);
  });
});
