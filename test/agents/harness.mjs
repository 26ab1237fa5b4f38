// Runs a real agent (installed by install.mjs) against a scripted model server in a scratch
// home and project, with loopledger's hook installed as a user would, and collects what the
// agent left behind: its output, its transcript, the requests the model saw, the hook's files.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentBin, AGENTS } from './install.mjs';
import { startAnthropic } from './servers/anthropic.mjs';
import { startGemini } from './servers/gemini.mjs';
import { startOpenAI } from './servers/openai.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const LOOPLEDGER = join(ROOT, 'bin', 'loopledger.js');

/** Each agent's shell tool, as its model calls it. */
export const SHELL = {
  'claude-code': (command) => ({ name: 'Bash', input: { command, description: 'run it' } }),
  gemini: (command) => ({ name: 'run_shell_command', input: { command, description: 'run it' } }),
  codex: (command) => ({ name: 'exec_command', input: { cmd: command } }),
};

function filesUnder(dir, test) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p, test));
    else if (test(p)) out.push(p);
  }
  return out;
}

function run(cmd, args, options) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeout ?? 120_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Number(process.hrtime.bigint() - started) / 1e6 });
    });
  });
}

const SPECS = {
  'claude-code': {
    server: startAnthropic,
    setup() {},
    env: (s) => ({
      ANTHROPIC_BASE_URL: s.url,
      ANTHROPIC_API_KEY: 'sk-ant-scripted',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
    }),
    args: (prompt) => ['-p', prompt, '--output-format', 'json', '--allowedTools', 'Bash,Task,Agent,Read'],
    transcripts: (d) => filesUnder(join(d.home, '.claude', 'projects'), (p) => p.endsWith('.jsonl')),
  },
  gemini: {
    server: startGemini,
    setup(d) {
      mkdirSync(join(d.home, '.gemini'), { recursive: true });
      const settings = { security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } }, general: { disableAutoUpdate: true }, privacy: { usageStatisticsEnabled: false } };
      writeFileSync(join(d.home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
    },
    env: (s) => ({ GEMINI_API_KEY: 'scripted', GOOGLE_GEMINI_BASE_URL: s.url, GEMINI_CLI_NO_RELAUNCH: 'true' }),
    args: (prompt) => ['-p', prompt, '--yolo', '--output-format', 'json', '-m', 'gemini-2.5-pro'],
    transcripts: (d) => filesUnder(join(d.home, '.gemini', 'tmp'), (p) => /\/chats\/.*\.jsonl?$/.test(p)),
  },
  codex: {
    server: startOpenAI,
    setup(d, s) {
      mkdirSync(d.codexHome, { recursive: true });
      writeFileSync(
        join(d.codexHome, 'config.toml'),
        [
          'model = "gpt-5-scripted"',
          'model_provider = "scripted"',
          'approval_policy = "never"',
          'sandbox_mode = "danger-full-access"',
          '[model_providers.scripted]',
          'name = "scripted"',
          `base_url = "${s.url}/v1"`,
          'wire_api = "responses"',
          'env_key = "SCRIPTED_API_KEY"',
          '',
        ].join('\n'),
      );
    },
    env: () => ({ SCRIPTED_API_KEY: 'scripted', CODEX_HOME: undefined }),
    args: (prompt) => ['exec', '--skip-git-repo-check', '--json', prompt],
    transcripts: (d) => filesUnder(join(d.codexHome, 'sessions'), (p) => p.endsWith('.jsonl')),
  },
};

/** A scratch home, project and PATH with `loopledger` on it (a shim to this checkout). */
export function scratch(agent) {
  const root = mkdtempSync(join(process.env.LOOPLEDGER_AGENTS_TMP || tmpdir(), `ll-${agent}-`));
  const d = { root, home: join(root, 'home'), project: join(root, 'project'), bin: join(root, 'bin'), state: join(root, 'state') };
  d.codexHome = join(d.home, '.codex');
  for (const p of [d.home, d.project, d.bin]) mkdirSync(p, { recursive: true });
  writeFileSync(join(d.bin, 'loopledger'), `#!/bin/sh\nexec "${process.execPath}" "${LOOPLEDGER}" "$@"\n`, { mode: 0o755 });
  return d;
}

function baseEnv(d, extra) {
  const env = {};
  // Only what an agent needs to start: nothing of the caller's own agent sessions leaks in.
  for (const k of ['LANG', 'TERM', 'TMPDIR', 'SYSTEMROOT']) if (process.env[k]) env[k] = process.env[k];
  Object.assign(env, {
    HOME: d.home,
    PATH: `${d.bin}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    XDG_STATE_HOME: d.state,
    XDG_CONFIG_HOME: join(d.home, '.config'),
    XDG_CACHE_HOME: join(d.home, '.cache'),
    CODEX_HOME: d.codexHome,
    NO_COLOR: '1',
    CI: '1',
  });
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) continue;
    env[k] = v;
  }
  return env;
}

/**
 * One agent run. `mode`: 'enforce' | 'telemetry' | null (no hook). Returns the run, the
 * requests the server received, the transcripts the agent wrote, the hook's state dir files.
 */
export async function runAgent(agent, { script, mode = 'enforce', prompt = 'Read missing.txt and fix it.', dir, env: extraEnv = {}, installArgs = [], agentArgs = [], timeout = 120_000, configLines = [], afterInstall }) {
  const bin = agentBin(agent);
  if (!bin) throw new Error(`${AGENTS[agent].pkg} is not installed: run node test/agents/install.mjs ${agent}`);
  const spec = SPECS[agent];
  const d = dir ?? scratch(agent);
  const server = await spec.server(script);
  try {
    spec.setup(d, server);
    // Extra lines for the agent's config file (Codex's `[otel]` table): appended after the scripted provider's.
    if (configLines.length > 0 && agent === 'codex') appendFileSync(join(d.codexHome, 'config.toml'), `${configLines.join('\n')}\n`);
    const env = baseEnv(d, { ...spec.env(server), ...extraEnv });
    let install = null;
    if (mode) {
      const scope = agent === 'codex' ? ['--user'] : [];
      install = spawnSync(process.execPath, [LOOPLEDGER, 'hook', 'install', agent, ...scope, '--write', '--mode', mode, ...installArgs], { cwd: d.project, env, encoding: 'utf8' });
      if (install.status !== 0) throw new Error(`hook install ${agent} failed: ${install.stderr}`);
      afterInstall?.(d);
    }
    const result = await run(bin, [...spec.args(prompt), ...agentArgs], { cwd: d.project, env, timeout });
    const stateDir = join(d.state, 'loopledger');
    return {
      dir: d,
      install,
      result,
      requests: server.requests,
      modelRequests: server.requests.filter((r) => r.kind === 'model'),
      transcripts: spec.transcripts(d),
      ledgers: filesUnder(stateDir, (p) => p.endsWith('.ledger.jsonl')),
      errorsLog: existsSync(join(stateDir, 'errors.log')) ? readFileSync(join(stateDir, 'errors.log'), 'utf8') : '',
    };
  } finally {
    await server.close();
  }
}

/** `loopledger analyze --format json` of some files: the parsed report. */
export function analyze(files, extra = []) {
  const r = spawnSync(process.execPath, [LOOPLEDGER, 'analyze', ...files, '--format', 'json', ...extra], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 << 20 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`analyze failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The hook's decisions, read from its session ledger files. */
export function hookDecisions(ledgerFiles) {
  const out = [];
  for (const f of ledgerFiles) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line);
      if (r.type === 'decision') out.push(r);
    }
  }
  return out;
}

/** One verdict as both sides can state it: where, which detector and kind, what enforce does. */
export function verdictKey(entry) {
  return `turn ${entry.turn} round ${entry.round} ${entry.detector}/${entry.kind} strike ${entry.strike?.count ?? '-'} enforce:${entry.intervention?.enforce}`;
}

/**
 * The verdicts before any stop, as the live hook recorded them (its ledger files) and as `analyze`
 * reads the store the agent wrote: a guarded run's two views, each without repeats.
 */
export function liveAndStoreVerdicts(ledgerFiles, store) {
  const verdicts = (entries) => [...new Set(entries.filter((e) => !e.after_stop).map(verdictKey))];
  const live = verdicts(hookDecisions(ledgerFiles).flatMap((d) => (d.entry === undefined ? [] : [d.entry])));
  const stored = verdicts(analyze([store]).sessions.flatMap((s) => s.entries));
  return { live, stored };
}

/**
 * Codex's own view of the hooks in a scratch home: `codex app-server`, JSON-RPC hooks/list
 * (each hook's key, currentHash and trustStatus), the same review state the TUI's /hooks shows.
 */
export function codexHookList(d) {
  const bin = agentBin('codex');
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'loopledger-test', version: '1' } } },
    { jsonrpc: '2.0', method: 'initialized' },
    { jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [d.project] } },
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['app-server'], { cwd: d.project, env: baseEnv(d, {}), stdio: ['pipe', 'pipe', 'pipe'] });
    let buf = '';
    let answered = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('codex app-server did not answer hooks/list in 60 s'));
    }, 60_000);
    child.stdout.on('data', (c) => {
      buf += c;
      for (const l of buf.split('\n')) {
        if (!l.startsWith('{')) continue;
        let msg;
        try {
          msg = JSON.parse(l);
        } catch {
          continue;
        }
        if (msg.id === 2 && !answered) {
          answered = true;
          clearTimeout(timer);
          // Answered once the server has exited: it still writes in $CODEX_HOME after answering, and a
          // test's cleanup that removed the folder meanwhile failed with ENOTEMPTY (.ci/run, 2026-12-07).
          child.on('close', () => (msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result.data.flatMap((x) => x.hooks))));
          setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
          child.kill();
          return;
        }
      }
    });
    child.on('error', reject);
    child.stdin.write(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  });
}
