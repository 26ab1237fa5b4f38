#!/usr/bin/env node
// Records one session of a 0.4 agent (issue 55) against the scripted chat server: a failing
// command three times, one that succeeds, then a closing text. The agent runs with a fresh HOME
// under a temporary folder, so its store holds this session only; the store is copied to OUT.
// Usage: node test/agents/record-more.mjs <opencode|kilo|qwen|copilot|cline|pi|droid|openclaw> OUT_DIR
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOOPLEDGER } from './harness.mjs';
import { ensureMoreAgent, moreAgentNodeDir, MORE_AGENTS } from './install-more.mjs';
import { startChat } from './servers/chat.mjs';

export const FAILING = 'cat /nonexistent/loopledger-missing.txt';
export const SUCCEEDING = 'echo loopledger-ok';
export const PROMPT = 'Read /nonexistent/loopledger-missing.txt and tell me what it says';

/** The model's last turn: a text, and for Cline the call that ends its run (its -y mode ends only through submit_and_exit). */
export function closingTurn(agent, text = 'The file does not exist; echo works.') {
  return { text, ...(agent === 'cline' ? { calls: [{ role: 'finish', input: { summary: text } }] } : {}) };
}

/** The scenario: three identical failing calls, one succeeding, a closing text. */
export function scenario(agent) {
  const closing = closingTurn(agent);
  const turns = [
    { text: 'Reading the file.', calls: [{ role: 'shell', input: { command: FAILING } }] },
    { calls: [{ role: 'shell', input: { command: FAILING } }] },
    { calls: [{ role: 'shell', input: { command: FAILING } }] },
    { calls: [{ role: 'shell', input: { command: SUCCEEDING } }] },
    closing,
  ];
  return (v) => turns[v.modelTurns] ?? { text: 'Done.' };
}

function openCodeConfig(base) {
  return {
    provider: { mock: { npm: '@ai-sdk/openai-compatible', name: 'Mock', options: { baseURL: base, apiKey: 'mock-key' }, models: { 'mock-model': { name: 'Mock model', tool_call: true } } } },
    model: 'mock/mock-model',
    small_model: 'mock/mock-model',
    autoupdate: false,
    share: 'disabled',
    permission: { bash: 'allow', external_directory: 'allow' },
  };
}

/** The command line, environment and files that point `agent` at the server. */
function setUp(agent, home, base) {
  const env = { PATH: process.env.PATH, HOME: home, TERM: 'dumb', LANG: 'C.UTF-8', XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'), XDG_CACHE_HOME: join(home, '.cache'), XDG_STATE_HOME: join(home, '.local', 'state') };
  const nodeDir = moreAgentNodeDir(agent);
  if (nodeDir) env.PATH = `${nodeDir}:${env.PATH}`;
  switch (agent) {
    case 'opencode':
      mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
      writeFileSync(join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify(openCodeConfig(base)));
      Object.assign(env, { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' });
      return { args: ['run', '--format', 'json', PROMPT], env, store: join(home, '.local', 'share', 'opencode') };
    case 'kilo':
      mkdirSync(join(home, '.config', 'kilo'), { recursive: true });
      writeFileSync(join(home, '.config', 'kilo', 'kilo.json'), JSON.stringify(openCodeConfig(base)));
      Object.assign(env, { KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_MODELS_FETCH: '1', KILO_DISABLE_SESSION_INGEST: '1', KILO_DISABLE_PRESENCE: '1', KILO_DISABLE_SHARE: '1' });
      return { args: ['run', '--format', 'json', PROMPT], env, store: join(home, '.local', 'share', 'kilo') };
    case 'qwen':
      mkdirSync(join(home, '.qwen'), { recursive: true });
      writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'openai' } }, model: { name: 'mock-model' }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }));
      Object.assign(env, { OPENAI_API_KEY: 'mock-key', OPENAI_BASE_URL: base, OPENAI_MODEL: 'mock-model' });
      return { args: ['--auth-type', 'openai', '-m', 'mock-model', '--yolo', '-o', 'stream-json', PROMPT], env, store: join(home, '.qwen') };
    case 'copilot':
      Object.assign(env, { COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_BASE_URL: base, COPILOT_PROVIDER_TYPE: 'openai', COPILOT_PROVIDER_API_KEY: 'mock-key', COPILOT_MODEL: 'mock-model', COPILOT_AUTO_UPDATE: 'false' });
      return { args: ['-p', PROMPT, '--allow-all-tools', '--allow-all-paths', '--output-format', 'json'], env, store: join(home, '.copilot') };
    case 'cline':
      return { pre: [['auth', '-p', 'openai', '-k', 'mock-key', '-m', 'mock-model', '-b', base]], args: ['--json', '-y', PROMPT], env, store: join(home, '.cline', 'data') };
    case 'pi':
      // A custom provider in models.json (pi's documented way to a local server), priced so the store records a cost;
      // --offline skips its startup network checks.
      mkdirSync(join(home, '.pi', 'agent'), { recursive: true });
      writeFileSync(join(home, '.pi', 'agent', 'models.json'), JSON.stringify({ providers: { mock: { baseUrl: base, api: 'openai-completions', apiKey: 'mock-key', compat: { supportsDeveloperRole: false, supportsReasoningEffort: false }, models: [{ id: 'mock-model', cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }] } } }));
      return { args: ['--offline', '--provider', 'mock', '--model', 'mock-model', '-p', PROMPT], env, store: join(home, '.pi', 'agent', 'sessions') };
    case 'droid':
      // Bring-your-own-key: a custom model in ~/.factory/settings.json, named `custom:<displayName>-<index>`.
      mkdirSync(join(home, '.factory'), { recursive: true });
      writeFileSync(join(home, '.factory', 'settings.json'), JSON.stringify({ customModels: [{ model: 'mock-model', displayName: 'Mock', baseUrl: base, apiKey: 'mock-key', provider: 'generic-chat-completion-api', maxOutputTokens: 4096 }] }));
      return { args: ['exec', '--auto', 'high', '-m', 'custom:Mock-0', '-o', 'json', PROMPT], env, store: join(home, '.factory', 'sessions') };
    case 'openclaw':
      // A custom OpenAI-compatible provider in ~/.openclaw/openclaw.json; `agent --local` runs the embedded agent, no Gateway.
      mkdirSync(join(home, '.openclaw'), { recursive: true });
      writeFileSync(join(home, '.openclaw', 'openclaw.json'), JSON.stringify({ models: { providers: { mock: { baseUrl: base, apiKey: 'mock-key', api: 'openai-completions', models: [{ id: 'mock-model', name: 'Mock', reasoning: false, input: ['text'], cost: { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 4096 }] } } }, agents: { defaults: { model: { primary: 'mock/mock-model' } } } }));
      return { args: ['agent', '--local', '--agent', 'main', '--json', '--model', 'mock/mock-model', '-m', PROMPT], env, store: join(home, '.openclaw') };
    default:
      throw new Error(`unknown agent ${agent}`);
  }
}

/** Runs the agent without blocking this process: the scripted server answers from the same event loop. */
function runAgent(bin, args, options, timeout) {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/**
 * `script`, when given, plays instead of the scenario (the bench's varied calls). `during(store)`, when given, runs beside the agent from its start (a reader polling the store
 * while the agent writes it) and is awaited, with `stop()` called once the agent has exited.
 */
export async function record(agent, out, { during, before, script } = {}) {
  const installed = ensureMoreAgent(agent);
  if (!installed.bin) throw new Error(installed.skip);
  const home = mkdtempSync(join(tmpdir(), `ll-${agent}-`));
  const work = join(home, 'work');
  mkdirSync(work, { recursive: true });
  const server = await startChat(script ?? scenario(agent));
  try {
    const { args, env, store, pre = [] } = setUp(agent, home, `${server.url}/v1`);
    // A set-up command (Cline's `auth`) took 20 s on a loaded 2-core machine: give it time, and keep its output.
    const setup = [];
    for (const p of pre) setup.push(await runAgent(installed.bin, p, { cwd: work, env }, 240_000));
    // `before({home, work, env})`: the run's set-up beside the agent's own (a guard installed as a user would).
    before?.({ home, work, env });
    let stopped = false;
    const beside = during?.(store, () => stopped);
    const run = await runAgent(installed.bin, args, { cwd: work, env }, 300_000);
    stopped = true;
    await beside;
    mkdirSync(out, { recursive: true });
    const log = (r) => `exit ${r.status} signal ${r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}\n`;
    writeFileSync(join(out, 'run.log'), [...setup, run].map(log).join('\n'));
    writeFileSync(join(out, 'requests.json'), JSON.stringify(server.requests.map((r) => ({ path: r.path, kind: r.kind, body: r.body })), null, 1));
    cpSync(store, join(out, 'store'), { recursive: true });
    const model = server.requests.filter((r) => r.kind === 'model');
    return { status: run.status, requests: server.requests.length, home, bodies: server.requests.map((r) => JSON.stringify(r.body ?? '')), modelTimes: model.map((r) => r.at) };
  } finally {
    await server.close();
  }
}

/**
 * One recording with the guard installed as a user installs it (`hook install <agent> --user --write --mode <mode>`),
 * its state in `stateDir(home)` (default `<home>/ll-state`), then `after({home, work, env})`, the model playing `script`
 * if given: the run, its output folder and the session ledgers the guard wrote.
 */
export async function recordGuarded(agent, mode, { stateDir, after, script } = {}) {
  const out = mkdtempSync(join(tmpdir(), `loopledger-guard-${agent}-`));
  let state = '';
  const result = await record(agent, out, {
    script,
    before: ({ home, work, env }) => {
      state = stateDir?.(home) ?? join(home, 'll-state');
      const i = spawnSync(process.execPath, [LOOPLEDGER, 'hook', 'install', agent, '--user', '--write', '--mode', mode, '--state-dir', state], { cwd: work, env, encoding: 'utf8' });
      if (i.status !== 0) throw new Error(`hook install ${agent}: exit ${i.status}: ${i.stderr}`);
      after?.({ home, work, env });
    },
  });
  const ledgers = existsSync(state) ? readdirSync(state).filter((f) => f.endsWith('.ledger.jsonl')).map((f) => join(state, f)) : [];
  return { ...result, out, ledgers };
}

if (process.argv[1]?.endsWith('record-more.mjs')) {
  const [agent, out] = process.argv.slice(2);
  if (!MORE_AGENTS[agent] || !out) {
    console.error('usage: node test/agents/record-more.mjs <opencode|kilo|qwen|copilot|cline|pi|droid|openclaw> OUT_DIR');
    process.exit(2);
  }
  const r = await record(agent, out);
  console.log(`${agent}: exit ${r.status}, ${r.requests} requests, home ${r.home}`);
}
