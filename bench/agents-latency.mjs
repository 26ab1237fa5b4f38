// `node bench/agents-latency.mjs [--runs 3] [--calls 6] [--only claude-code,gemini,codex,qwen,…] [--hook-only]`
// First, the hook of each of the eight guarded agents on its own (bench/installed-hooks.mjs): the
// command `hook install <agent> --write` wrote, started as that agent starts it, fed that agent's
// payloads; the median of five runs of each event against a bare `node -e 0`. Needs no agent.
// Then (unless --hook-only) the wall time the hook adds to one tool call inside each real agent
// (installed by test/agents/install.mjs, or test/agents/install-more.mjs for the five 0.4 agents,
// at its pinned version; an agent that is not installed is skipped). The five 0.4 agents run
// without a hook and with the guard installed by `hook install --user --write` (no `node -e 0`
// hook setting for them).
// A scripted model server asks for `--calls` shell calls (`echo <n>`: varied, so nothing is
// refused); the server's arrival times give each call's wall time (from the request that asked
// for it to the next request). Each run plays three settings back to back: no hook, the same
// events running a bare `node -e 0` (what any Node hook costs inside that agent), and
// loopledger's guard (telemetry: it reads, decides and writes as under enforce, but never changes
// the run); a bare `node -e 0` start is timed in the same run, and the figures are ratios to it,
// since the machine is shared and noisy.
// Then one hook call is profiled (`node --cpu-prof`) to say where its time goes.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentBin, AGENTS } from '../test/agents/install.mjs';
import { MORE_AGENTS, moreAgentBin } from '../test/agents/install-more.mjs';
import { record } from '../test/agents/record-more.mjs';
import { runAgent, SHELL } from '../test/agents/harness.mjs';
import { trustCodexHooks } from '../dist/hook/codex-trust.js';
import { INSTALLED_HOOKS, installedHooksTable, measureInstalledHook } from './installed-hooks.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const runs = Number(arg('--runs', '3'));
const calls = Number(arg('--calls', '6'));
// Every guarded agent whose hook is timed here (bench/installed-hooks.mjs).
const only = arg('--only', Object.keys(INSTALLED_HOOKS).join(',')).split(',');
const unknown = only.filter((agent) => !(agent in INSTALLED_HOOKS));
if (unknown.length > 0) {
  console.error(`bench/agents-latency.mjs: no hook to time for ${unknown.join(', ')} (agents: ${Object.keys(INSTALLED_HOOKS).join(', ')})`);
  process.exit(2);
}

const hookOnly = args.includes('--hook-only');

/** The release each guarded agent is pinned at in test/agents/ (its recording, its label). */
const pinned = (agent) => AGENTS[agent] ?? MORE_AGENTS[agent];
const hookRows = Object.keys(INSTALLED_HOOKS)
  .filter((agent) => only.includes(agent))
  .map((agent) => ({ label: `${pinned(agent).pkg}@${pinned(agent).version}`, ...measureInstalledHook(agent, { runs: 5, version: pinned(agent).version }) }));
console.log(`The hook as each agent runs it (hook install --user --write --mode telemetry; the agent's own payloads; after one untimed pair), median of 5 runs; load ${loadavg()[0].toFixed(1)}:\n`);
console.log(installedHooksTable(hookRows));
if (hookOnly) process.exit(0);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => `${x.toFixed(0)} ms`;

function nodeStart() {
  const t = process.hrtime.bigint();
  execFileSync(process.execPath, ['-e', '0']);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** Per-call wall times of one run: request k asked for call k, request k+1 came after it. */
function callTimes(run) {
  rmSync(run.dir.root, { recursive: true, force: true });
  const at = run.modelRequests.map((q) => q.at);
  const out = [];
  for (let k = 0; k < calls && k + 1 < at.length; k++) out.push(at[k + 1] - at[k]);
  return out;
}

const script = (agent) => (v) => (v.modelTurns < calls ? { calls: [SHELL[agent](`echo ${v.modelTurns}`)] } : { text: 'Done.' });

/**
 * The same events with the command swapped for a bare Node start (`node -e 0`): what any Node
 * hook costs inside this agent (its spawning, its shell, its waiting), apart from loopledger's own.
 */
function bareNodeHook(agent) {
  const command = `${process.execPath} -e 0`;
  return (d) => {
    const file = agent === 'codex' ? join(d.codexHome, 'hooks.json') : join(d.project, agent === 'gemini' ? '.gemini' : '.claude', 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    for (const groups of Object.values(settings.hooks)) for (const g of groups) for (const h of g.hooks) if (h.command.includes(' hook ')) h.command = command;
    writeFileSync(file, JSON.stringify(settings, null, 2));
    // Codex runs only reviewed hooks: the swapped command is marked reviewed as install marks the guard.
    if (agent === 'codex') trustCodexHooks(file, settings, join(d.codexHome, 'config.toml'), (h) => h.command === command);
  };
}

/** Per-call wall times of one run of a 0.4 agent (record-more.mjs), with the guard under telemetry or none. */
async function moreCallTimes(agent, guarded) {
  const out = mkdtempSync(join(tmpdir(), `loopledger-bench-${agent}-`));
  // Cline's -y mode ends only through submit_and_exit.
  const closing = { text: 'Done.', ...(agent === 'cline' ? { calls: [{ role: 'finish', input: { summary: 'done' } }] } : {}) };
  const before = guarded
    ? ({ home, work, env }) => {
        const i = spawnSync(process.execPath, [join(root, 'bin', 'loopledger.js'), 'hook', 'install', agent, '--user', '--write', '--mode', 'telemetry', '--state-dir', join(home, 'll-state')], { cwd: work, env });
        if (i.status !== 0) throw new Error(`hook install ${agent} failed: ${i.stderr}`);
      }
    : undefined;
  const r = await record(agent, out, { before, script: (v) => (v.modelTurns < calls ? { calls: [{ role: 'shell', input: { command: `echo ${v.modelTurns}` } }] } : closing) });
  rmSync(out, { recursive: true, force: true });
  rmSync(r.home, { recursive: true, force: true });
  const at = r.modelTimes;
  return Array.from({ length: Math.min(calls, at.length - 1) }, (_, k) => at[k + 1] - at[k]);
}

const rows = [];
for (const agent of only) {
  if (MORE_AGENTS[agent]) {
    if (!moreAgentBin(agent)) {
      console.log(`${agent}: not installed (node test/agents/install-more.mjs ${agent}); skipped`);
      continue;
    }
    const perRun = [];
    for (let r = 0; r < runs; r++) {
      const bare = median(Array.from({ length: 5 }, nodeStart));
      const without = median(await moreCallTimes(agent, false));
      const guard = median(await moreCallTimes(agent, true));
      perRun.push({ bare, without, nodeHook: NaN, guard });
    }
    rows.push({ agent, perRun, label: `${MORE_AGENTS[agent].pkg}@${MORE_AGENTS[agent].version}` });
    continue;
  }
  if (!agentBin(agent)) {
    console.log(`${agent}: not installed (node test/agents/install.mjs ${agent}); skipped`);
    continue;
  }
  const perRun = [];
  for (let r = 0; r < runs; r++) {
    // One run: a bare start, then the three settings back to back, so a noisy neighbour slows them alike.
    const bare = median(Array.from({ length: 5 }, nodeStart));
    const without = median(callTimes(await runAgent(agent, { script: script(agent), mode: null })));
    const nodeHook = median(callTimes(await runAgent(agent, { script: script(agent), mode: 'telemetry', afterInstall: bareNodeHook(agent) })));
    const guard = median(callTimes(await runAgent(agent, { script: script(agent), mode: 'telemetry' })));
    perRun.push({ bare, without, nodeHook, guard });
  }
  rows.push({ agent, perRun, label: `${AGENTS[agent].pkg}@${AGENTS[agent].version}` });
}

const spread = (xs) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
console.log(`\n${runs} runs × ${calls} calls per agent and setting; per tool call, the median wall time of a run's calls; ratios to the run's own bare \`node -e 0\` start; median (min–max over runs):\n`);
console.log('| agent | node -e 0 | without hook | with a `node -e 0` hook | with loopledger | loopledger added / node start | beyond a `node -e 0` hook / node start |');
console.log('|---|---|---|---|---|---|---|');
for (const { label, perRun } of rows) {
  const added = perRun.map((x) => (x.guard - x.without) / x.bare);
  const beyond = perRun.map((x) => (x.guard - x.nodeHook) / x.bare);
  const col = (k) => (perRun.some((x) => Number.isNaN(x[k])) ? '—' : ms(median(perRun.map((x) => x[k]))));
  const beyondCol = beyond.some(Number.isNaN) ? '—' : `${median(beyond).toFixed(2)}× (${spread(beyond)})`;
  console.log(`| ${label} | ${col('bare')} | ${col('without')} | ${col('nodeHook')} | ${col('guard')} | ${median(added).toFixed(2)}× (${spread(added)}) | ${beyondCol} |`);
}

const start = median(rows.flatMap((r) => r.perRun.map((x) => x.bare)));

// Where one hook call's time goes: a PreToolUse on a short Claude Code transcript, profiled.
const dir = mkdtempSync(join(tmpdir(), 'loopledger-hook-prof-'));
try {
  const transcript = join(dir, 't.jsonl');
  writeFileSync(transcript, `${JSON.stringify({ type: 'user', sessionId: 's', uuid: 'u1', message: { role: 'user', content: 'go' } })}\n`);
  const payload = JSON.stringify({
    session_id: 'prof',
    transcript_path: transcript,
    cwd: dir,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'echo 1' },
    tool_use_id: 'toolu_1',
  });
  const hookArgs = [join(root, 'bin', 'loopledger.js'), 'hook', 'claude-code', '--mode', 'telemetry', '--state-dir', join(dir, 'state')];
  const wall = [];
  for (let i = 0; i < 5; i++) {
    const t = process.hrtime.bigint();
    spawnSync(process.execPath, hookArgs, { input: payload });
    wall.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', join(dir, 'prof'), ...hookArgs], { input: payload });
  const profile = JSON.parse(readFileSync(join(dir, 'prof', readdirSync(join(dir, 'prof'))[0]), 'utf8'));
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const buckets = { 'compiling and loading modules': 0, 'loopledger code (dist/)': 0, 'node internals': 0, 'idle / GC / other': 0 };
  for (const [id, t] of self) {
    const { url, functionName } = byNode.get(id).callFrame;
    if (/compileFunction|wrapSafe|loadESM|moduleEvaluation|link|instantiate|ModuleJob|esm\/(loader|translators|module_job)|compileSourceTextModule/.test(`${url} ${functionName}`))
      buckets['compiling and loading modules'] += t;
    else if (url.includes('/dist/')) buckets['loopledger code (dist/)'] += t;
    else if (url.startsWith('node:')) buckets['node internals'] += t;
    else buckets['idle / GC / other'] += t;
  }
  const modules = new Set(profile.nodes.map((n) => n.callFrame.url).filter((u) => u.includes('/dist/')));
  console.log(`\none hook call (PreToolUse, telemetry): median ${ms(median(wall))} wall, ${(median(wall) / start).toFixed(2)}× a bare start; ${modules.size} dist/ modules on the profile`);
  for (const [k, v] of Object.entries(buckets)) console.log(`  ${k}: ${ms(v)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
