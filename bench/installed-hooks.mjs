// The hook of each guarded agent, run as that agent runs it, without the agent:
// `hook install <agent> --user --write --mode telemetry` into a scratch HOME, the command read back
// from what install wrote (settings, OpenCode's, Kilo's and OpenClaw's plugin, pi's extension, Cline's hook files), then fed
// that agent's own payloads on stdin: a pre-call and a post-call event per run, interleaved with a
// bare `node -e 0` start, so a noisy neighbour slows all three alike. Claude Code, Codex, Gemini
// CLI and Droid read their transcript, so theirs is a copy of the agent's own recording (fixtures/agents/).
// Run by bench/agents-latency.mjs (`--hook-only`: this table alone).

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'loopledger.js');

/** Where install put the guard for each agent, and how the agent starts it. */
const settingsCommand = (file, pre, post, key = 'command') => (home) => {
  const hooks = JSON.parse(readFileSync(join(home, file), 'utf8')).hooks;
  // Claude-style settings nest handlers in matcher groups; Copilot CLI lists them flat.
  const find = (event) =>
    hooks[event]
      .flatMap((g) => g.hooks ?? [g])
      .map((h) => h[key])
      .find((c) => c.includes(' hook '));
  return { pre: ['/bin/sh', '-c', find(pre)], post: ['/bin/sh', '-c', find(post)] };
};
/** OpenCode's and Kilo's plugin spawns `/bin/sh -c COMMAND` for each event (src/agents/opencode/hook.ts). */
const pluginCommand = (file) => (home) => {
  const command = JSON.parse(/^const COMMAND = (".*");$/m.exec(readFileSync(join(home, file), 'utf8'))[1]);
  return { pre: ['/bin/sh', '-c', command], post: ['/bin/sh', '-c', command] };
};

const shellOutput = (i) => `${i}`;

/**
 * Each agent's payloads for the i-th shell call `echo i` (answered `i`): the shapes its hook sends,
 * as src/agents/<agent>/hook.ts reads them and test/hook/agents-more.test.ts plays them.
 */
export const INSTALLED_HOOKS = {
  'claude-code': {
    events: 'PreToolUse, PostToolUse',
    locate: settingsCommand('.claude/settings.json', 'PreToolUse', 'PostToolUse'),
    recording: 'claude-code',
    sessionOf: (lines) => lines.find((l) => l.sessionId)?.sessionId,
    pre: (s, i) => ({ session_id: s.id, transcript_path: s.transcript, cwd: s.cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: `echo ${i}`, description: 'Print a number' }, tool_use_id: `toolu_bench_${i}` }),
    post: (s, i) => ({ ...INSTALLED_HOOKS['claude-code'].pre(s, i), hook_event_name: 'PostToolUse', tool_response: { stdout: shellOutput(i), stderr: '', interrupted: false, isImage: false } }),
  },
  codex: {
    events: 'PreToolUse, PostToolUse',
    locate: settingsCommand('.codex/hooks.json', 'PreToolUse', 'PostToolUse'),
    recording: 'codex',
    sessionOf: (lines) => lines.find((l) => l.type === 'session_meta')?.payload.id,
    pre: (s, i) => ({ session_id: s.id, turn_id: 'turn-bench', transcript_path: s.transcript, cwd: s.cwd, hook_event_name: 'PreToolUse', model: 'gpt-5-scripted', permission_mode: 'default', tool_name: 'Bash', tool_input: { command: `echo ${i}` }, tool_use_id: `call_bench_${i}` }),
    post: (s, i) => ({ ...INSTALLED_HOOKS.codex.pre(s, i), hook_event_name: 'PostToolUse', tool_response: `${shellOutput(i)}\n` }),
  },
  gemini: {
    events: 'BeforeTool, AfterTool',
    locate: settingsCommand('.gemini/settings.json', 'BeforeTool', 'AfterTool'),
    recording: 'gemini',
    sessionOf: (lines) => lines.find((l) => l.sessionId)?.sessionId,
    pre: (s, i) => ({ session_id: s.id, transcript_path: s.transcript, cwd: s.cwd, hook_event_name: 'BeforeTool', timestamp: new Date().toISOString(), tool_name: 'run_shell_command', tool_input: { command: `echo ${i}`, description: 'Print a number' } }),
    post: (s, i) => ({ ...INSTALLED_HOOKS.gemini.pre(s, i), hook_event_name: 'AfterTool', tool_response: { llmContent: `Output: ${shellOutput(i)}\nProcess Group PGID: 4242`, returnDisplay: shellOutput(i) } }),
  },
  opencode: {
    events: 'tool.execute.before, tool.execute.after',
    locate: pluginCommand('.config/opencode/plugin/loopledger.js'),
    pre: (_s, i) => ({ hook_event_name: 'tool.execute.before', session_id: 'ses_bench', tool_name: 'bash', tool_use_id: `call_${i}`, tool_input: { command: `echo ${i}`, description: 'Print a number' } }),
    post: (s, i) => ({ ...INSTALLED_HOOKS.opencode.pre(s, i), hook_event_name: 'tool.execute.after', tool_response: { output: `${shellOutput(i)}\n`, exit: 0 } }),
  },
  kilo: {
    events: 'tool.execute.before, tool.execute.after',
    locate: pluginCommand('.config/kilo/plugin/loopledger.js'),
    pre: (s, i) => INSTALLED_HOOKS.opencode.pre(s, i),
    post: (s, i) => INSTALLED_HOOKS.opencode.post(s, i),
  },
  qwen: {
    events: 'PreToolUse, PostToolUse',
    locate: settingsCommand('.qwen/settings.json', 'PreToolUse', 'PostToolUse'),
    pre: (_s, i) => ({ session_id: 'q-bench', hook_event_name: 'PreToolUse', permission_mode: 'yolo', tool_name: 'run_shell_command', tool_input: { command: `echo ${i}` }, tool_use_id: `toolu_${i}`, tool_call_id: `call_${i}` }),
    post: (s, i) => ({ ...INSTALLED_HOOKS.qwen.pre(s, i), hook_event_name: 'PostToolUse', tool_response: { llmContent: shellOutput(i), returnDisplay: shellOutput(i) } }),
  },
  copilot: {
    events: 'preToolUse, postToolUse',
    locate: settingsCommand('.copilot/settings.json', 'preToolUse', 'postToolUse', 'bash'),
    // No call id is sent; toolArgs is an object.
    pre: (s, i) => ({ sessionId: 'c-bench', timestamp: Date.now(), cwd: s.cwd, toolName: 'bash', toolArgs: { command: `echo ${i}`, description: 'Print a number' } }),
    post: (s, i) => ({ ...INSTALLED_HOOKS.copilot.pre(s, i), toolResult: { resultType: 'success', textResultForLlm: `${shellOutput(i)}\n<shellId: ${i} completed with exit code 0>` } }),
  },
  droid: {
    events: 'PreToolUse, PostToolUse',
    locate: settingsCommand('.factory/settings.json', 'PreToolUse', 'PostToolUse'),
    // Droid sends no call id and the guard follows its transcript. Its recording is named here: the package test/agents pins is the launcher, 0.225.1; the droid that runs is 0.225.2.
    recording: 'droid',
    pinned: '0.225.2',
    sessionOf: (lines) => lines.find((l) => l.type === 'session_start')?.id,
    pre: (s, i) => ({ session_id: s.id, transcript_path: s.transcript, cwd: s.cwd, permission_mode: 'auto-high', hook_event_name: 'PreToolUse', tool_name: 'Execute', tool_input: { summary: `echo ${i}`, command: `echo ${i}`, riskLevelReason: 'prints', riskLevel: 'low' } }),
    post: (s, i) => ({ ...INSTALLED_HOOKS.droid.pre(s, i), hook_event_name: 'PostToolUse', tool_response: `${shellOutput(i)}\n\n\n[Process exited with code 0]` }),
  },
  pi: {
    events: 'tool_call, tool_result',
    // pi's extension spawns `/bin/sh -c COMMAND` for each event, as OpenCode's plugin does.
    locate: pluginCommand('.pi/agent/extensions/loopledger.js'),
    pre: (_s, i) => ({ hook_event_name: 'tool_call', session_id: 'pi-bench', tool_name: 'bash', tool_use_id: `call_${i}`, tool_input: { command: `echo ${i}` } }),
    post: (s, i) => ({ ...INSTALLED_HOOKS.pi.pre(s, i), hook_event_name: 'tool_result', tool_response: { content: [{ type: 'text', text: shellOutput(i) }], isError: false } }),
  },
  openclaw: {
    events: 'before_tool_call, after_tool_call',
    // OpenClaw's plugin spawns `/bin/sh -c COMMAND` for each event, as pi's extension does.
    locate: pluginCommand('.openclaw/extensions/loopledger/index.mjs'),
    pre: (_s, i) => ({ hook_event_name: 'before_tool_call', session_id: 'oc-bench', tool_name: 'exec', tool_use_id: `call_${i}`, tool_input: { command: `echo ${i}` }, assistant_text: null }),
    post: (s, i) => ({ ...INSTALLED_HOOKS.openclaw.pre(s, i), hook_event_name: 'after_tool_call', tool_response: { content: [{ type: 'text', text: shellOutput(i) }], isError: false, exitCode: 0 } }),
  },
  cline: {
    events: 'PreToolUse, PostToolUse',
    // Cline executes the hook files install wrote, by their path.
    locate: (home) => ({ pre: [join(home, '.cline/hooks/PreToolUse')], post: [join(home, '.cline/hooks/PostToolUse')] }),
    pre: (_s, i) => ({ taskId: 't-bench', hookName: 'tool_call', iteration: i, tool_call: { id: `c${i}`, name: 'run_commands', input: { commands: [`echo ${i}`] } }, preToolUse: { toolName: 'run_commands', parameters: { commands: JSON.stringify([`echo ${i}`]) } } }),
    post: (_s, i) => ({ taskId: 't-bench', hookName: 'tool_result', tool_result: { id: `c${i}`, name: 'run_commands', input: { commands: [`echo ${i}`] }, output: [{ query: `echo ${i}`, result: shellOutput(i), success: true }] } }),
  },
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function timed(argv, options) {
  const t = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', ...options });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr || r.error?.message}`);
  // Telemetry never answers the agent: an answer here would be a different code path than measured.
  if (r.stdout.trim() !== '') throw new Error(`${argv.join(' ')} answered under telemetry: ${r.stdout.slice(0, 200)}`);
  return ms;
}

/** The agent's own recording (fixtures/agents/<agent>-<pinned>/), copied: the hook reads it as its transcript. */
function transcriptOf(hook, dir, version) {
  if (!hook.recording) return { id: undefined, transcript: undefined };
  const folder = join(root, 'fixtures', 'agents', `${hook.recording}-${hook.pinned ?? version}`);
  // Droid's lies below its store's folders (.factory/sessions/<cwd>/), the others' at the top.
  const file = readdirSync(folder, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('.jsonl'));
  const transcript = join(dir, basename(file));
  copyFileSync(join(folder, file), transcript);
  const lines = readFileSync(transcript, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { id: hook.sessionOf(lines), transcript };
}

/** How many of the bench's calls (`echo 0` … `echo runs`) the guard's session ledgers hold. */
function recordedCalls(state, runs) {
  const calls = readdirSync(state)
    .filter((f) => f.endsWith('.ledger.jsonl'))
    .flatMap((f) => readFileSync(join(state, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)))
    .flatMap((r) => (r.type === 'assistant' ? (r.tool_calls ?? []) : []))
    .map((c) => JSON.stringify(c.arguments));
  let n = 0;
  for (let i = 0; i <= runs; i++) if (calls.some((c) => new RegExp(`echo ${i}\\b`).test(c))) n++;
  return n;
}

/**
 * `runs` interleaved triples (a bare start, a pre-call event, a post-call event) after one untimed
 * pair (the session's first call reads its transcript whole: bench/hook.mjs reports that apart).
 */
export function measureInstalledHook(agent, { runs = 5, version } = {}) {
  const hook = INSTALLED_HOOKS[agent];
  const dir = mkdtempSync(join(tmpdir(), `loopledger-installed-${agent}-`));
  try {
    const home = join(dir, 'home');
    const cwd = join(dir, 'project');
    mkdirSync(home);
    mkdirSync(cwd);
    const env = { PATH: process.env.PATH ?? '', HOME: home, LANG: 'C' };
    const state = join(dir, 'state');
    const install = spawnSync(process.execPath, [bin, 'hook', 'install', agent, '--user', '--write', '--mode', 'telemetry', '--state-dir', state], { cwd, env, encoding: 'utf8' });
    if (install.status !== 0) throw new Error(`hook install ${agent}: ${install.stderr}`);
    const argv = hook.locate(home);
    const session = { cwd, ...transcriptOf(hook, dir, version) };
    const call = (which, i) => timed(argv[which], { cwd, env, input: JSON.stringify(hook[which](session, i)) });
    call('pre', 0);
    call('post', 0);
    const bare = [];
    const pre = [];
    const post = [];
    for (let i = 1; i <= runs; i++) {
      bare.push(timed([process.execPath, '-e', '0'], { env }));
      pre.push(call('pre', i));
      post.push(call('post', i));
    }
    // A call that failed open leaves a line here; its time would not be the guard's.
    if (existsSync(join(state, 'errors.log'))) throw new Error(`${agent}: the guard failed open: ${readFileSync(join(state, 'errors.log'), 'utf8').slice(0, 300)}`);
    return { agent, events: hook.events, command: argv.pre.at(-1), bare, pre, post, recorded: recordedCalls(state, runs) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (x) => `${x.toFixed(0)} ms`;
const ratio = (x) => `${x.toFixed(2)}×`;

/** The table: medians of the runs, and each event's median over the bare start's. */
export function installedHooksTable(rows) {
  const out = [
    '| agent | events timed | `node -e 0` | pre-call event | post-call event | pre / `node -e 0` | post / `node -e 0` | both / `node -e 0` |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const [b, pre, post] = [median(r.bare), median(r.pre), median(r.post)];
    out.push(`| ${r.label} | ${r.events} | ${ms(b)} | ${ms(pre)} | ${ms(post)} | ${ratio(pre / b)} | ${ratio(post / b)} | **${ratio((pre + post) / b)}** |`);
  }
  return out.join('\n');
}
