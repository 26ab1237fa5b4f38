// The live guard in the agents of issue 58 (item 3), through the built binary as each agent calls
// it, with the payloads and transcript records the pinned releases were seen to send and write
// (test/agents/guard-npm.test.ts drives the agents themselves), and `hook install|uninstall|doctor`
// as a user runs them.

import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { piHook } from '../../src/agents/pi/hook.js';
import type { FilesInstall } from '../../src/hook/contract.js';
import { ensureBuilt, scratch } from '../cli/helpers.js';
import { runHook } from './agents.js';
import { BIN, hookCommand, install, SYSTEM_PATH } from './install-run.js';

vi.setConfig({ testTimeout: 120_000 });
const tmp = scratch('loopledger-hook-guard-npm-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

let n = 0;
const fresh = () => {
  n += 1;
  return { cwd: join(tmp.dir, `p${n}`), home: join(tmp.dir, `h${n}`), state: join(tmp.dir, `s${n}`) };
};

const hook = (sub: string, args: string[], cwd: string, home: string) => hookCommand(sub, args, { cwd, home });

const REFUSED = /^loopledger: refused before it ran\. This tool batch repeats the previous ones/;
const FAILING = 'cat /nonexistent/file';

describe('Droid (0.225.2)', () => {
  /**
   * Droid as seen: the assistant's tool_use is written before PreToolUse runs (stdin carries no call
   * id), the answer after; a failing call fires no PostToolUse, so its answer is the transcript's alone.
   */
  function droidSession(dir: string) {
    const path = join(dir, 'session.jsonl');
    mkdirSync(dir, { recursive: true });
    const line = (r: object) => appendFileSync(path, `${JSON.stringify(r)}\n`);
    writeFileSync(path, `${JSON.stringify({ type: 'session_start', id: 'd1', title: 't', owner: 'unknown', version: 2, cwd: dir })}\n`);
    line({ type: 'message', id: 'u1', message: { role: 'user', content: [{ type: 'text', text: 'Read the file' }] } });
    const input = (command: string) => ({ summary: command, command, riskLevelReason: command, riskLevel: 'low' });
    const pre = (command: string) => ({ session_id: 'd1', transcript_path: path, cwd: dir, permission_mode: 'auto-high', hook_event_name: 'PreToolUse', tool_name: 'Execute', tool_input: input(command) });
    return {
      path,
      call(i: number, command: string) {
        line({ type: 'message', id: `a${i}`, message: { role: 'assistant', content: [{ type: 'tool_use', id: `call_${i}`, name: 'Execute', input: input(command) }] } });
        return pre(command);
      },
      // Droid's record of the hook's run, then the answer.
      answer(i: number, content: string, isError: boolean) {
        line({ type: 'message', id: `h${i}`, message: { role: 'user', content: [], visibility: 'user_only', hookEventName: 'PreToolUse', hookStatus: 'completed', hookResults: [{ exitCode: 0, stdout: '', stderr: '' }] } });
        line({ type: 'message', id: `r${i}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `call_${i}`, is_error: isError, content }] } });
      },
    };
  }

  const ERROR = 'Error: Command failed (exit code: 1)\ncat: /nonexistent/file: No such file or directory\n\n\n[Process exited with code 1]';

  it('under enforce refuses the third identical failing call, read from the transcript, with a deny the model reads and no end of the run', async () => {
    const { cwd, state } = fresh();
    const s = droidSession(cwd);
    const outs: string[] = [];
    for (let i = 1; i <= 3; i++) {
      outs.push((await runHook(['droid', '--mode', 'enforce', '--state-dir', state], JSON.stringify(s.call(i, FAILING)))).stdout);
      if (i < 3) s.answer(i, ERROR, true);
    }
    expect(outs.slice(0, 2)).toEqual(['', '']);
    const answer = JSON.parse(outs[2]!) as Record<string, unknown> & { hookSpecificOutput: Record<string, string> };
    // Seed 000: "max_strikes = 2 allows two identical batches and errors on the third".
    expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(answer.hookSpecificOutput.permissionDecisionReason).toMatch(REFUSED);
    // Droid reads `continue: false` before the decision and ends the run: the model would never read why.
    expect(answer.continue).toBeUndefined();
  });

  it('a poll whose answer changes is never refused', async () => {
    const { cwd, state } = fresh();
    const s = droidSession(cwd);
    for (let i = 1; i <= 5; i++) {
      expect((await runHook(['droid', '--mode', 'enforce', '--state-dir', state], JSON.stringify(s.call(i, 'cat /tmp/progress')))).stdout).toBe('');
      s.answer(i, `${i * 20}% done\n\n\n[Process exited with code 0]`, false);
    }
  });

  it('under telemetry never answers; the refusal enforce would make is in the ledger', async () => {
    const { cwd, state } = fresh();
    const s = droidSession(cwd);
    for (let i = 1; i <= 3; i++) {
      expect((await runHook(['droid', '--mode', 'telemetry', '--state-dir', state], JSON.stringify(s.call(i, FAILING)))).stdout).toBe('');
      s.answer(i, ERROR, true);
    }
    const ledger = readFileSync(join(state, 'd1.ledger.jsonl'), 'utf8');
    expect(ledger).toMatch(/"repeated_batch"/);
  });

  it('install: Claude-style groups in ~/.factory/settings.json beside the user\'s settings; uninstall gives the file back byte for byte; doctor probes it', async () => {
    const { cwd, home } = fresh();
    const mine = '{\n  "customModels": [{ "model": "m", "baseUrl": "http://127.0.0.1:1/v1", "provider": "generic-chat-completion-api" }]\n}\n';
    mkdirSync(join(home, '.factory'), { recursive: true });
    writeFileSync(join(home, '.factory/settings.json'), mine);
    expect((await install(['droid', '--user', '--write', '--mode', 'enforce'], { cwd, home })).code).toBe(0);
    const s = JSON.parse(readFileSync(join(home, '.factory/settings.json'), 'utf8')) as { hooks: Record<string, { matcher?: string; hooks: object[] }[]> };
    expect(Object.keys(s.hooks)).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
    expect(s.hooks.PreToolUse).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: `${BIN} hook droid --mode enforce`, timeout: 5 }] }]);
    expect((await hook('doctor', ['droid'], cwd, home)).stdout).toMatch(/ok: /);
    expect((await hook('uninstall', ['droid', '--user', '--write'], cwd, home)).code).toBe(0);
    expect(readFileSync(join(home, '.factory/settings.json'), 'utf8')).toBe(mine);
    expect((await hook('doctor', ['droid'], cwd, home)).stdout).toMatch(/no loopledger guard/);
  });

  it('install --user with FACTORY_HOME_OVERRIDE: the settings of the home Droid uses', () => {
    const { cwd, home } = fresh();
    const elsewhere = join(home, 'factory-home');
    mkdirSync(cwd, { recursive: true });
    const r = spawnSync(process.execPath, [BIN, 'hook', 'install', 'droid', '--user', '--write'], { cwd, env: { HOME: home, PATH: SYSTEM_PATH, FACTORY_HOME_OVERRIDE: elsewhere }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(Object.keys((JSON.parse(readFileSync(join(elsewhere, '.factory/settings.json'), 'utf8')) as { hooks: object }).hooks)).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
    expect(existsSync(join(home, '.factory/settings.json'))).toBe(false);
  });

  it('install --project: .factory/settings.json in the project', async () => {
    const { cwd, home } = fresh();
    expect((await install(['droid', '--project', '--write'], { cwd, home })).code).toBe(0);
    expect(Object.keys((JSON.parse(readFileSync(join(cwd, '.factory/settings.json'), 'utf8')) as { hooks: object }).hooks)).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
  });
});

describe('pi (0.73.1)', () => {
  type Handler = (event: object, ctx: object) => Promise<{ block?: boolean; reason?: string; content?: unknown[] } | undefined>;
  /** The extension as pi loads it: its default export called with an API that collects `pi.on` handlers. */
  async function load(path: string): Promise<Record<string, Handler>> {
    const mod = (await import(`${pathToFileURL(path).href}?${++n}`)) as { default: (pi: { on(name: string, h: Handler): void }) => void };
    const handlers: Record<string, Handler> = {};
    mod.default({ on: (name, h) => void (handlers[name] = h) });
    return handlers;
  }
  const ctx = { sessionManager: { getSessionId: () => 'pi-session-1' } };
  const call = (i: number, command: string) => ({ type: 'tool_call', toolName: 'bash', toolCallId: `call_${i}`, input: { command } });
  const result = (i: number, command: string, text: string, isError: boolean) => ({ type: 'tool_result', toolName: 'bash', toolCallId: `call_${i}`, input: { command }, content: [{ type: 'text', text }], details: {}, isError });
  const FAILED = 'cat: /nonexistent/file: No such file or directory\n\nCommand exited with code 1';

  it('install writes ~/.pi/agent/extensions/loopledger.js; the extension, loaded as pi loads it, blocks the third identical failing call with the reason', async () => {
    const { cwd, home, state } = fresh();
    expect((await install(['pi', '--user', '--write', '--mode', 'enforce', '--state-dir', state], { cwd, home })).code).toBe(0);
    const on = await load(join(home, '.pi/agent/extensions/loopledger.js'));
    expect(Object.keys(on).sort()).toEqual(['agent_end', 'tool_call', 'tool_result']);
    for (let i = 1; i <= 2; i++) {
      expect(await on.tool_call!(call(i, FAILING), ctx)).toBeUndefined();
      expect(await on.tool_result!(result(i, FAILING, FAILED, true), ctx)).toBeUndefined();
    }
    const refused = await on.tool_call!(call(3, FAILING), ctx);
    expect(refused?.block).toBe(true);
    // Seed 000: "max_strikes = 2 allows two identical batches and errors on the third".
    expect(refused?.reason).toMatch(REFUSED);
    // The prompt answered (agent_end): the next prompt's calls are a new turn, not refused.
    await on.agent_end!({ type: 'agent_end', messages: [] }, ctx);
    expect(await on.tool_call!(call(4, 'echo ok'), ctx)).toBeUndefined();
  });

  it('under telemetry the extension never blocks; a guard that cannot run lets every call through', async () => {
    const { cwd, home, state } = fresh();
    expect((await install(['pi', '--user', '--write', '--state-dir', state], { cwd, home })).code).toBe(0);
    const on = await load(join(home, '.pi/agent/extensions/loopledger.js'));
    for (let i = 1; i <= 4; i++) {
      expect(await on.tool_call!(call(i, FAILING), ctx)).toBeUndefined();
      await on.tool_result!(result(i, FAILING, FAILED, true), ctx);
    }
    expect(readFileSync(join(state, 'pi-session-1.ledger.jsonl'), 'utf8')).toMatch(/"repeated_batch"/);
    const gone = fresh();
    expect((await install(['pi', '--project', '--write', '--mode', 'enforce'], { cwd: gone.cwd, home: gone.home })).code).toBe(0);
    const path = join(gone.cwd, '.pi/extensions/loopledger.js');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/^const COMMAND = .*$/m, 'const COMMAND = "exit 3";'));
    const broken = await load(path);
    for (let i = 1; i <= 4; i++) expect(await broken.tool_call!(call(i, FAILING), ctx)).toBeUndefined();
  });

  it('PI_CODING_AGENT_DIR moves the extension folder; uninstall removes the file it wrote; doctor probes it', () => {
    const { cwd, home } = fresh();
    const agentDir = join(home, 'pi-elsewhere');
    const env = (sub: string, args: string[]) => spawnSync(process.execPath, [BIN, 'hook', sub, ...args], { cwd, env: { HOME: home, PATH: SYSTEM_PATH, PI_CODING_AGENT_DIR: agentDir, XDG_STATE_HOME: join(home, '.state') }, encoding: 'utf8' });
    mkdirSync(cwd, { recursive: true });
    expect(env('install', ['pi', '--user', '--write']).status).toBe(0);
    expect(readFileSync(join(agentDir, 'extensions/loopledger.js'), 'utf8')).toMatch(/^\/\/ loopledger: the live guard/);
    expect(env('doctor', ['pi']).stdout).toMatch(/ok: /);
    expect(env('uninstall', ['pi', '--user', '--write']).status).toBe(0);
    expect(existsSync(join(agentDir, 'extensions/loopledger.js'))).toBe(false);
    expect(env('doctor', ['pi']).stdout).toMatch(/no loopledger guard/);
  });
});

describe('pi: the extension file is the guard only as written', () => {
  const install = piHook.install as FilesInstall;

  it('property: any command is read back from the file install writes around it, and from no file changed anywhere', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), fc.nat(), fc.string({ minLength: 1, maxLength: 3 }), (command, at, insert) => {
        const text = install.text(command, 'tool_call');
        expect(install.commandIn(text)).toBe(command);
        const i = at % (text.length + 1);
        const changed = text.slice(0, i) + insert + text.slice(i);
        // A change inside the command's own JSON string makes another command, reported as that (and never run as ours).
        const read = install.commandIn(changed);
        if (read !== null) expect(install.text(read, 'tool_call')).toBe(changed);
      }),
      { numRuns: 300, seed: 58 },
    );
  });
});

describe('hook doctor: Droid\'s or pi\'s guard installed twice', () => {
  it.each(['droid', 'pi'])('%s, user and project both: a `twice` line naming both modes, exit 1', async (agent) => {
    const { cwd, home } = fresh();
    await install([agent, '--user', '--write', '--mode', 'enforce'], { cwd, home });
    await install([agent, '--project', '--write', '--mode', 'telemetry'], { cwd, home });
    const r = await hook('doctor', [agent], cwd, home);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/twice: the guard runs 2 times on every .*in different modes \(telemetry from .*, enforce from /);
  });
});
