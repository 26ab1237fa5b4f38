// The live guard in OpenClaw 2026.9.6 (issue 58 item 3), through the built binary: `hook install
// openclaw` writes a plugin folder of the guard's own and the config entries OpenClaw loads it by,
// `hook uninstall` takes both back byte for byte, `hook doctor` probes it (and runs nothing it did
// not write), and the plugin module, loaded as OpenClaw loads one (its default export's
// `register(api)`), refuses the third identical failing call with the events OpenClaw was seen to
// send (test/agents/guard-openclaw.test.ts drives OpenClaw itself).

import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openclawHook } from '../../src/agents/openclaw/hook.js';
import type { ConfigEntry, FilesInstall } from '../../src/hook/contract.js';
import { planAdd, planRemove } from '../../src/hook/config-entries.js';
import { readSettings } from '../../src/hook/settings-file.js';
import { ensureBuilt, scratch } from '../cli/helpers.js';
import { BIN, hookCommand, install } from './install-run.js';

vi.setConfig({ testTimeout: 120_000 });
const tmp = scratch('loopledger-hook-guard-openclaw-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

let n = 0;
const fresh = () => {
  n += 1;
  return { cwd: join(tmp.dir, `p${n}`), home: join(tmp.dir, `h${n}`), state: join(tmp.dir, `s${n}`) };
};

const hook = (sub: string, args: string[], cwd: string, home: string, env: Record<string, string> = {}) => hookCommand(sub, args, { cwd, home, env });

const REFUSED = /^loopledger: refused before it ran\. This tool batch repeats the previous ones/;
const FAILING = 'cat /nonexistent/file';
const FAILED = 'cat: /nonexistent/file: No such file or directory\n\n(Command exited with code 1)';
/** A user's config as people keep it: comments, their provider, their own plugin entry. */
const MINE = `{
  // my models
  "models": { "providers": { "mock": { "baseUrl": "http://127.0.0.1:1/v1", "apiKey": "k", "api": "openai-completions" } } },
  "plugins": {
    "entries": { "voice-call": { "enabled": true } } // theirs
  }
}
`;

type Handler = (event: object, ctx: object) => unknown;
/** The plugin as OpenClaw loads it: its default export's register(api), the handlers collected by name. */
async function load(path: string): Promise<Record<string, Handler>> {
  const mod = (await import(`${pathToFileURL(path).href}?${++n}`)) as { default: { id: string; register(api: { on(name: string, h: Handler): void }): void } };
  expect(mod.default.id).toBe('loopledger');
  const handlers: Record<string, Handler> = {};
  mod.default.register({ on: (name, h) => void (handlers[name] = h) });
  return handlers;
}
const ctx = { sessionId: 'oc-session-1', sessionKey: 'agent:main:main', agentId: 'main', runId: 'r1' };
const assistant = (i: number, command: string, text = '') => ({ message: { role: 'assistant', content: [...(text ? [{ type: 'text', text }] : []), { type: 'toolCall', id: `call_${i}`, name: 'exec', arguments: { command } }] } });
const call = (i: number, command: string) => ({ toolName: 'exec', params: { command }, runId: 'r1', toolCallId: `call_${i}` });
const result = (i: number, command: string, text: string, exitCode: number) => ({ ...call(i, command), result: { content: [{ type: 'text', text }], details: { status: 'completed', exitCode } }, durationMs: 5 });

/** One call as OpenClaw makes it: the assistant message written, before_tool_call awaited, after_tool_call not. */
async function play(on: Record<string, Handler>, i: number, command: string, answer: string, exitCode: number) {
  on.before_message_write!(assistant(i, command), ctx);
  const pre = (await on.before_tool_call!(call(i, command), ctx)) as { block?: boolean; blockReason?: string } | undefined;
  if (pre?.block !== true) void on.after_tool_call!(result(i, command, answer, exitCode), ctx);
  return pre;
}

describe('OpenClaw (2026.9.6): install, uninstall, doctor', () => {
  it('install writes the plugin folder and the two config entries beside the user\'s own (comments kept); uninstall gives the config back byte for byte and removes the folder; doctor probes it', async () => {
    const { cwd, home } = fresh();
    mkdirSync(join(home, '.openclaw'), { recursive: true });
    writeFileSync(join(home, '.openclaw/openclaw.json'), MINE);
    const r = await install(['openclaw', '--user', '--write', '--mode', 'enforce'], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    const dir = join(home, '.openclaw/extensions/loopledger');
    expect(readdirSync(dir).sort()).toEqual(['index.mjs', 'openclaw.plugin.json']);
    const manifest = JSON.parse(readFileSync(join(dir, 'openclaw.plugin.json'), 'utf8')) as { id: string; description: string };
    expect(manifest.id).toBe('loopledger');
    expect(manifest.description).toContain(`${BIN} hook openclaw --mode enforce`);
    const text = readFileSync(join(home, '.openclaw/openclaw.json'), 'utf8');
    expect(text.startsWith('{\n  // my models\n')).toBe(true);
    expect(text).toContain('"voice-call": { "enabled": true }');
    const config = readSettings(join(home, '.openclaw/openclaw.json'), true).value as { plugins: { entries: object; load: object } };
    expect(config.plugins.entries).toEqual({ 'voice-call': { enabled: true }, loopledger: { enabled: true, hooks: { allowConversationAccess: true } } });
    expect(config.plugins.load).toEqual({ paths: [dir] });
    expect((await hook('doctor', ['openclaw'], cwd, home)).stdout).toMatch(/^loopledger hook doctor: ok: .*extensions\/loopledger \(plugin manifest, before_tool_call, after_tool_call, agent_end\) runs .*answered in \d+ ms \(loopledger .*, mode enforce\)\n$/);
    // Installed already: nothing written twice.
    expect((await install(['openclaw', '--user', '--write', '--mode', 'enforce'], { cwd, home })).stderr).toMatch(/installed already; nothing written/);
    expect(readFileSync(join(home, '.openclaw/openclaw.json'), 'utf8')).toBe(text);
    const u = await hook('uninstall', ['openclaw', '--user', '--write'], cwd, home);
    expect(u.code, u.stderr).toBe(0);
    expect(readFileSync(join(home, '.openclaw/openclaw.json'), 'utf8')).toBe(MINE);
    expect(existsSync(dir)).toBe(false);
    expect((await hook('doctor', ['openclaw'], cwd, home)).stdout).toMatch(/no loopledger guard/);
  });

  it('without a config file: install creates one holding only the entries; uninstall leaves it an empty object', async () => {
    const { cwd, home } = fresh();
    expect((await install(['openclaw', '--user', '--write'], { cwd, home })).code).toBe(0);
    expect(Object.keys(readSettings(join(home, '.openclaw/openclaw.json'), true).value as object)).toEqual(['plugins']);
    expect((await hook('uninstall', ['openclaw', '--user', '--write'], cwd, home)).code).toBe(0);
    expect(readSettings(join(home, '.openclaw/openclaw.json'), true).value).toEqual({});
  });

  it('OPENCLAW_STATE_DIR moves the plugin folder and the config; OPENCLAW_CONFIG_PATH names the config', async () => {
    const { cwd, home } = fresh();
    const state = join(home, 'claw-state');
    expect((await hook('install', ['openclaw', '--user', '--write'], cwd, home, { OPENCLAW_STATE_DIR: state })).code).toBe(0);
    expect(existsSync(join(state, 'extensions/loopledger/index.mjs'))).toBe(true);
    expect(existsSync(join(state, 'openclaw.json'))).toBe(true);
    expect(existsSync(join(home, '.openclaw'))).toBe(false);
    const other = fresh();
    const configPath = join(other.home, 'conf', 'claw.json');
    expect((await hook('install', ['openclaw', '--user', '--write'], other.cwd, other.home, { OPENCLAW_CONFIG_PATH: configPath })).code).toBe(0);
    // OpenClaw's config folder is then the config file's own.
    expect(existsSync(join(other.home, 'conf/extensions/loopledger/openclaw.plugin.json'))).toBe(true);
    expect((readSettings(configPath, true).value as { plugins: { load: { paths: string[] } } }).plugins.load.paths).toEqual([join(other.home, 'conf/extensions/loopledger')]);
  });

  it('a plugin allowlist without loopledger: install says OpenClaw will not load it, doctor says so too (exit 1), and the list is left as the user wrote it', async () => {
    const { cwd, home } = fresh();
    mkdirSync(join(home, '.openclaw'), { recursive: true });
    writeFileSync(join(home, '.openclaw/openclaw.json'), '{ "plugins": { "allow": ["voice-call"] } }\n');
    expect((await install(['openclaw', '--user', '--write'], { cwd, home })).stderr).toMatch(/`plugins\.allow` does not list loopledger/);
    expect((readSettings(join(home, '.openclaw/openclaw.json'), true).value as { plugins: { allow: string[] } }).plugins.allow).toEqual(['voice-call']);
    const d = await hook('doctor', ['openclaw'], cwd, home);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(/not loaded: .*`plugins\.allow` does not list loopledger/);
  });

  it('doctor says the guard is not loaded when the config lost its entries', async () => {
    const { cwd, home } = fresh();
    expect((await install(['openclaw', '--user', '--write'], { cwd, home })).code).toBe(0);
    writeFileSync(join(home, '.openclaw/openclaw.json'), '{}\n');
    const d = await hook('doctor', ['openclaw'], cwd, home);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(/not loaded: .*lacks plugins\.entries\.loopledger and plugins\.load\.paths/);
  });

  it('a file of the user\'s where the guard\'s would go: refused, nothing written (the config untouched)', async () => {
    const { cwd, home } = fresh();
    const dir = join(home, '.openclaw/extensions/loopledger');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'index.mjs'), 'export default { id: "loopledger", register() {} };\n');
    const r = await install(['openclaw', '--user', '--write'], { cwd, home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/index\.mjs: a file of yours/);
    expect(existsSync(join(dir, 'openclaw.plugin.json'))).toBe(false);
    expect(existsSync(join(home, '.openclaw/openclaw.json'))).toBe(false);
  });

  it('a JSON5 config (unquoted keys) is not edited: install says where and what to add, and writes nothing', async () => {
    const { cwd, home } = fresh();
    mkdirSync(join(home, '.openclaw'), { recursive: true });
    writeFileSync(join(home, '.openclaw/openclaw.json'), '{ agents: { defaults: {} } }\n');
    const r = await install(['openclaw', '--user', '--write'], { cwd, home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/openclaw\.json: not JSON \(comments allowed\) at line 1.*nothing written \(the agent loads the guard with plugins\.entries\.loopledger: \{"enabled":true,"hooks":\{"allowConversationAccess":true\}\}; plugins\.load\.paths \(a list\) holding /);
    expect(existsSync(join(home, '.openclaw/extensions'))).toBe(false);
  });

  it('user and project both: doctor says `twice` naming both modes (exit 1); uninstall --project leaves the user\'s entries', async () => {
    const { cwd, home } = fresh();
    expect((await install(['openclaw', '--user', '--write', '--mode', 'enforce'], { cwd, home })).code).toBe(0);
    expect((await install(['openclaw', '--project', '--write', '--mode', 'telemetry'], { cwd, home })).code).toBe(0);
    const paths = () => (readSettings(join(home, '.openclaw/openclaw.json'), true).value as { plugins: { load: { paths: string[] } } }).plugins.load.paths;
    expect(paths()).toEqual([join(home, '.openclaw/extensions/loopledger'), join(cwd, '.openclaw/extensions/loopledger')]);
    const d = await hook('doctor', ['openclaw'], cwd, home);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(/twice: the guard runs 2 times on every .*in different modes \(telemetry from .*, enforce from /);
    expect((await hook('uninstall', ['openclaw', '--project', '--write'], cwd, home)).code).toBe(0);
    expect(paths()).toEqual([join(home, '.openclaw/extensions/loopledger')]);
    const after = await hook('doctor', ['openclaw'], cwd, home);
    expect(after.stdout).toMatch(/^loopledger hook doctor: ok: [^\n]*\n$/);
    expect(after.code).toBe(0);
  });

  it('doctor never runs a look-alike: a plugin written around another launcher is reported foreign, not run', async () => {
    const { cwd, home } = fresh();
    const marker = join(home, 'ran');
    const fake = join(home, 'bin', 'loopledger');
    mkdirSync(join(home, 'bin'), { recursive: true });
    writeFileSync(fake, `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(fake, 0o755);
    const install = openclawHook.install as FilesInstall;
    const dir = join(home, '.openclaw/extensions/loopledger');
    mkdirSync(dir, { recursive: true });
    for (const f of install.files) writeFileSync(join(dir, f.name), install.text(`${fake} hook openclaw`, f.name));
    const d = await hook('doctor', ['openclaw'], cwd, home);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(/foreign: .*so not run/);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('OpenClaw: the plugin, loaded as OpenClaw loads it', () => {
  it('under enforce blocks the third identical failing call with the reason; after agent_end the next call is a new turn', async () => {
    const { cwd, home, state } = fresh();
    expect((await install(['openclaw', '--user', '--write', '--mode', 'enforce', '--state-dir', state], { cwd, home })).code).toBe(0);
    const on = await load(join(home, '.openclaw/extensions/loopledger/index.mjs'));
    expect(Object.keys(on).sort()).toEqual(['after_tool_call', 'agent_end', 'before_message_write', 'before_tool_call']);
    for (let i = 1; i <= 2; i++) expect(await play(on, i, FAILING, FAILED, 1)).toBeUndefined();
    const refused = await play(on, 3, FAILING, FAILED, 1);
    expect(refused?.block).toBe(true);
    // Seed 000: "max_strikes = 2 allows two identical batches and errors on the third".
    expect(refused?.blockReason).toMatch(REFUSED);
    await on.agent_end!({ success: true, messages: [] }, ctx);
    expect(await play(on, 4, 'echo ok', 'ok', 0)).toBeUndefined();
  });

  it('a non-zero exitCode is the failure OpenClaw records: the same calls answered with exit 0 and changing output are never refused', async () => {
    const { cwd, home, state } = fresh();
    expect((await install(['openclaw', '--user', '--write', '--mode', 'enforce', '--state-dir', state], { cwd, home })).code).toBe(0);
    const on = await load(join(home, '.openclaw/extensions/loopledger/index.mjs'));
    for (let i = 1; i <= 5; i++) expect(await play(on, i, 'cat /tmp/progress', `${i * 20}% done`, 0)).toBeUndefined();
  });

  it('under telemetry the plugin never blocks and the ledger holds the refusal enforce would make; a guard that cannot run lets every call through', async () => {
    const { cwd, home, state } = fresh();
    expect((await install(['openclaw', '--user', '--write', '--state-dir', state], { cwd, home })).code).toBe(0);
    const on = await load(join(home, '.openclaw/extensions/loopledger/index.mjs'));
    for (let i = 1; i <= 4; i++) expect(await play(on, i, FAILING, FAILED, 1)).toBeUndefined();
    // after_tool_call is not awaited by OpenClaw: the plugin's own queue has sent the last one by the next event.
    await on.agent_end!({ success: true }, ctx);
    expect(readFileSync(join(state, 'oc-session-1.ledger.jsonl'), 'utf8')).toMatch(/"repeated_batch"/);
    const gone = fresh();
    expect((await install(['openclaw', '--project', '--write', '--mode', 'enforce'], { cwd: gone.cwd, home: gone.home })).code).toBe(0);
    const path = join(gone.cwd, '.openclaw/extensions/loopledger/index.mjs');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/^const COMMAND = .*$/m, 'const COMMAND = "exit 3";'));
    const broken = await load(path);
    for (let i = 1; i <= 4; i++) expect(await play(broken, i, FAILING, FAILED, 1)).toBeUndefined();
  });
});

describe('OpenClaw: what is the guard\'s own', () => {
  const files = openclawHook.install as FilesInstall;

  it('property: any command is read back from each file install writes around it, and from no file changed anywhere', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), fc.constantFrom(...files.files.map((f) => f.name)), fc.nat(), fc.string({ minLength: 1, maxLength: 3 }), (command, name, at, insert) => {
        const text = files.text(command, name);
        expect(files.commandIn(text)).toBe(command);
        const i = at % (text.length + 1);
        const changed = text.slice(0, i) + insert + text.slice(i);
        // A change inside the command itself makes another command, reported as that (and never run as ours).
        const read = files.commandIn(changed);
        if (read !== null) expect(files.files.some((f) => files.text(read, f.name) === changed)).toBe(true);
      }),
      { numRuns: 300, seed: 58 },
    );
  });

  it('property: the entries added to any JSON config and removed again give it back byte for byte', () => {
    const entries = files.config!.entries('/home/u/.openclaw/extensions/loopledger');
    const key = fc.constantFrom('plugins', 'entries', 'load', 'paths', 'models', 'x');
    // Objects and lists below the top hold something: an empty one that the entries alone then fill goes with them on removal.
    const json = fc.dictionary(key, fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.dictionary(key, fc.oneof(fc.integer(), fc.array(fc.string({ maxLength: 3 }), { minLength: 1, maxLength: 2 })), { minKeys: 1, maxKeys: 3 })), { maxKeys: 4 });
    fc.assert(
      fc.property(json, fc.constantFrom(0, 2), (value, indent) => {
        const text = `${JSON.stringify(value, null, indent)}\n`;
        const file = (t: string) => ({ path: 'c.json', target: 'c.json', text: t, value: JSON.parse(t) as unknown, mode: null, hasComments: false });
        const added = planAdd(file(text), entries);
        // A key on the way that holds no object (`"plugins": 3`) is the user's: nothing can be added there.
        if (added === null) return;
        const after = added.text ?? text;
        const removed = planRemove(file(after), entries.filter((e: ConfigEntry) => added.changed.includes(e.keys.join('.'))));
        expect(removed?.text ?? after).toBe(text);
      }),
      { numRuns: 300, seed: 58 },
    );
  });
});
