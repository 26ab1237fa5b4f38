// `hook install|uninstall|doctor` for OpenCode, Kilo, Qwen Code, Copilot CLI and Cline (issue 55
// item 3), from the built binary as a user runs them: each guard where its agent looks for it, the
// plugin file OpenCode and Kilo load actually calling the guard, Cline's hook files run as Cline
// runs them, `uninstall` for all eight agents removing only what install wrote, and `doctor`
// warning when two installs of the guard would both run on every call.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, scratch } from '../cli/helpers.js';
import { BIN, hookCommand, install, SYSTEM_PATH } from './install-run.js';

vi.setConfig({ testTimeout: 120_000 });
const tmp = scratch('loopledger-hook-install-more-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const hook = (sub: string, args: string[], cwd: string, home: string) => hookCommand(sub, args, { cwd, home });

let n = 0;
const fresh = () => {
  n += 1;
  return { cwd: join(tmp.dir, `p${n}`), home: join(tmp.dir, `h${n}`) };
};

describe('settings agents', () => {
  it('Qwen Code: Claude-style groups in ~/.qwen/settings.json, PostToolUseFailure included, timeout in seconds', async () => {
    const { cwd, home } = fresh();
    expect((await install(['qwen', '--user', '--write', '--mode', 'enforce'], { cwd, home })).code).toBe(0);
    const s = JSON.parse(readFileSync(join(home, '.qwen/settings.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]> };
    expect(Object.keys(s.hooks)).toEqual(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop']);
    expect(s.hooks.PostToolUseFailure![0]!.hooks[0]).toEqual({ type: 'command', command: `${BIN} hook qwen --mode enforce`, timeout: 5 });
  });

  it('Copilot CLI: handlers listed under preToolUse/postToolUse (`bash`, `timeoutSec`); a repository file starts with version 1', async () => {
    const { cwd, home } = fresh();
    expect((await install(['copilot', '--user', '--write'], { cwd, home })).code).toBe(0);
    const user = JSON.parse(readFileSync(join(home, '.copilot/settings.json'), 'utf8')) as Record<string, unknown>;
    expect(user).toEqual({ hooks: { preToolUse: [{ type: 'command', bash: `${BIN} hook copilot`, timeoutSec: 5 }], postToolUse: [{ type: 'command', bash: `${BIN} hook copilot`, timeoutSec: 5 }] } });
    expect((await install(['copilot', '--project', '--write'], { cwd, home })).code).toBe(0);
    const repo = JSON.parse(readFileSync(join(cwd, '.github/hooks/loopledger.json'), 'utf8')) as Record<string, unknown>;
    expect(repo.version).toBe(1);
  });
});

describe('file agents', () => {
  it('Cline: executable PreToolUse and PostToolUse in ~/.cline/hooks that run the guard with the payload on stdin', async () => {
    const { cwd, home } = fresh();
    const r = await install(['cline', '--user', '--write', '--mode', 'enforce'], { cwd, home });
    expect(r.code).toBe(0);
    for (const name of ['PreToolUse', 'PostToolUse']) {
      const path = join(home, '.cline/hooks', name);
      expect(statSync(path).mode & 0o777).toBe(0o755);
      expect(readFileSync(path, 'utf8')).toMatch(/^#!\/bin\/sh\n# loopledger: .*\nexec .*hook cline --mode enforce\n$/);
    }
    // As Cline runs it: the file itself, one payload on stdin (a doctor-style probe answers).
    const run = spawnSync(join(home, '.cline/hooks/PreToolUse'), [], { input: JSON.stringify({ taskId: 't', hookName: 'tool_call', tool_call: { id: 'x', name: 'run_commands', input: { commands: ['true'] } }, loopledger_probe: 'p1' }), encoding: 'utf8', env: { HOME: home, PATH: SYSTEM_PATH } });
    expect(JSON.parse(run.stdout)).toMatchObject({ loopledger_probe: { id: 'p1', mode: 'enforce' } });
  });

  it('a file of the user\'s at the guard\'s name is never replaced: exit 2, nothing written', async () => {
    const { cwd, home } = fresh();
    mkdirSync(join(home, '.cline/hooks'), { recursive: true });
    writeFileSync(join(home, '.cline/hooks/PreToolUse'), '#!/bin/sh\necho mine\n');
    const r = await install(['cline', '--user', '--write'], { cwd, home });
    expect(r.code).toBe(2);
    expect(readFileSync(join(home, '.cline/hooks/PreToolUse'), 'utf8')).toBe('#!/bin/sh\necho mine\n');
    expect(existsSync(join(home, '.cline/hooks/PostToolUse'))).toBe(false);
  });

  it.each(['opencode', 'kilo'])('%s: the plugin file loads as the agent loads it and refuses the third identical failing call by throwing', async (agent) => {
    const { cwd, home } = fresh();
    const state = join(tmp.dir, `plugin-state-${agent}`);
    expect((await install([agent, '--user', '--write', '--mode', 'enforce', '--state-dir', state], { cwd, home })).code).toBe(0);
    const path = join(home, `.config/${agent}/plugin/loopledger.js`);
    const mod = (await import(pathToFileURL(path).href)) as { LoopledgerGuard: () => Promise<Record<string, (input: object, output: object) => Promise<void>>> };
    const hooks = await mod.LoopledgerGuard();
    const call = (i: number) => ({ tool: 'bash', sessionID: `ses_${agent}`, callID: `call_${i}` });
    const args = { command: 'cat /nonexistent/file' };
    for (let i = 1; i <= 2; i++) {
      await hooks['tool.execute.before']!(call(i), { args });
      const output = { title: '', output: 'cat: /nonexistent/file: No such file or directory\n', metadata: { exit: 1 } };
      await hooks['tool.execute.after']!({ ...call(i), args }, output);
    }
    await expect(hooks['tool.execute.before']!(call(3), { args })).rejects.toThrow(/loopledger: refused before it ran/);
  });
  // The events OpenCode 1.18.33 sent a plugin, in the order seen live (test/agents/hook-more-chant.test.ts):
  // the text part opens empty, its deltas stream, the call's part appears, the call's hook runs, and only
  // then is the text part updated whole. Kilo 7.7.7 sent the same events just after the call's hook began.
  it.each(['opencode', 'kilo'])('%s: the plugin gathers each response\'s text from its events, so a chanted text is steered in the answer the model reads', async (agent) => {
    const { cwd, home } = fresh();
    const state = join(tmp.dir, `plugin-chant-${agent}`);
    expect((await install([agent, '--user', '--write', '--mode', 'enforce', '--state-dir', state], { cwd, home })).code).toBe(0);
    const path = join(home, `.config/${agent}/plugin/loopledger.js`);
    type Hook = (input: object, output?: object) => Promise<void>;
    const mod = (await import(pathToFileURL(path).href)) as { LoopledgerGuard: () => Promise<Record<string, Hook>> };
    const hooks = await mod.LoopledgerGuard();
    const sessionID = `ses_chant_${agent}`;
    const chant = 'I will check the file again now to be sure that nothing has changed since the last time. '.repeat(8);
    const event = (type: string, properties: object) => hooks.event?.({ event: { id: `evt_${Math.random()}`, type, properties } });
    const outputs: string[] = [];
    for (let i = 1; i <= 4; i++) {
      const [messageID, textPart, callID] = [`msg_${i}`, `prt_text_${i}`, `call_${i}`];
      const args = { command: `echo step ${i}` };
      const partEvents = async () => {
        await event('message.part.updated', { sessionID, part: { id: textPart, messageID, sessionID, type: 'text', text: '' } });
        for (const piece of [chant.slice(0, 300), chant.slice(300)]) await event('message.part.delta', { sessionID, messageID, partID: textPart, field: 'text', delta: piece });
        await event('message.part.updated', { sessionID, part: { id: `prt_tool_${i}`, messageID, sessionID, type: 'tool', tool: 'bash', callID, state: { status: 'pending', input: args } } });
      };
      if (agent === 'opencode') await partEvents();
      const before = hooks['tool.execute.before']!({ tool: 'bash', sessionID, callID }, { args });
      if (agent === 'kilo') await new Promise((r) => setTimeout(r, 20)).then(partEvents);
      await before;
      const output = { title: '', output: `step ${i}\n`, metadata: { exit: 0 } };
      await hooks['tool.execute.after']!({ tool: 'bash', sessionID, callID, args }, output);
      await event('message.part.updated', { sessionID, part: { id: textPart, messageID, sessionID, type: 'text', text: chant } });
      outputs.push(output.output);
    }
    expect(outputs.some((o) => o.includes('Loop detection: your visible output'))).toBe(true);
    // The reminder never echoes the chanted text (seed 002: "never echoes the looped text").
    expect(outputs.every((o) => !o.includes('check the file again'))).toBe(true);
  });
});

describe('hook uninstall, the eight agents and OpenClaw', () => {
  it.each(['claude-code', 'gemini', 'codex', 'qwen', 'copilot', 'opencode', 'kilo', 'cline', 'openclaw'])('%s: without --write changes nothing; with it removes what install wrote and nothing else', async (agent) => {
    const { cwd, home } = fresh();
    expect((await install([agent, '--project', '--write'], { cwd, home })).code).toBe(0);
    const dry = await hook('uninstall', [agent, '--project'], cwd, home);
    expect(dry.code).toBe(0);
    expect((await hook('doctor', [agent], cwd, home)).stdout).toMatch(/ok: /);
    const r = await hook('uninstall', [agent, '--project', '--write'], cwd, home);
    expect(r.code).toBe(0);
    expect((await hook('doctor', [agent], cwd, home)).stdout).toMatch(/no loopledger guard/);
    // Once gone, again: nothing to remove.
    expect((await hook('uninstall', [agent, '--project', '--write'], cwd, home)).stderr).toMatch(/nothing to remove/);
  });

  it('keeps the user\'s own hooks and settings byte for byte (Claude Code)', async () => {
    const { cwd, home } = fresh();
    const mine = '{\n  "model": "opus",\n  "hooks": {\n    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "./guard.sh" }] }]\n  }\n}\n';
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    writeFileSync(join(cwd, '.claude/settings.json'), mine);
    expect((await install(['claude-code', '--write'], { cwd, home })).code).toBe(0);
    expect(readFileSync(join(cwd, '.claude/settings.json'), 'utf8')).not.toBe(mine);
    expect((await hook('uninstall', ['claude-code', '--write'], cwd, home)).code).toBe(0);
    expect(readFileSync(join(cwd, '.claude/settings.json'), 'utf8')).toBe(mine);
  });
});

describe('hook doctor: a guard installed twice', () => {
  it('user and project both: a `twice` line naming both, in different modes, exit 1', async () => {
    const { cwd, home } = fresh();
    await install(['qwen', '--user', '--write', '--mode', 'enforce'], { cwd, home });
    await install(['qwen', '--project', '--write', '--mode', 'telemetry'], { cwd, home });
    const r = await hook('doctor', ['qwen'], cwd, home);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/twice: the guard runs 2 times on every PreToolUse .*in different modes \(telemetry from \.qwen\/settings\.json, enforce from .*\.qwen\/settings\.json\)/);
  });

  it('once: no such line', async () => {
    const { cwd, home } = fresh();
    await install(['qwen', '--user', '--write'], { cwd, home });
    expect((await hook('doctor', ['qwen'], cwd, home)).stdout).not.toMatch(/twice/);
  });
});
