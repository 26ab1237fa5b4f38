// `loopledger hook doctor <agent>`: run the guard command the agent's settings hold, as the agent
// would (through `sh -c`, from the agent's folder, with its environment, a payload on stdin, killed
// at the handler's timeout), and say in one line whether it answered and how fast. Only a command
// `hook install` of this installation writes is run (provenance.ts): any other is reported.
//
// The probe is a PreToolUse-shaped payload carrying `loopledger_probe`: the guard answers it with
// its version, mode and state folder once its arguments and configuration loaded, before it locks
// or writes anything. A guard that fails open answers nothing (exit 0, empty stdout), exactly as a
// working one does to an ordinary call, so only an answer to the probe proves it ran; and nothing
// is left in the user's state (no probe session to clean up from a folder only the command knows).

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { codexConfigPath, codexKeyPath, installedGuards, isCodexGuard, PLANS, readAgentSettings, type Scope, settingsPath } from './install.js';
import { provenance, type Provenance } from './provenance.js';
import { codexReview } from './codex-trust.js';
import type { Agent } from './payload.js';
import { sanitize } from '../sanitize.js';

export interface DoctorIO {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** What each agent sends before a tool runs (see payload.ts for the sources), for a harmless call. */
function probePayload(agent: Agent, id: string, cwd: string): Record<string, unknown> {
  const session = `loopledger-probe-${id}`;
  const common = { session_id: session, transcript_path: null, cwd, loopledger_probe: id };
  if (agent === 'gemini') {
    return { ...common, hook_event_name: 'BeforeTool', timestamp: new Date().toISOString(), tool_name: 'run_shell_command', tool_input: { command: 'true' } };
  }
  const call = { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'true' }, tool_use_id: `probe_${id}`, permission_mode: 'default' };
  return agent === 'codex' ? { ...common, ...call, turn_id: `probe-${id}`, model: '' } : { ...common, ...call };
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  ms: number;
  stdout: string;
  stderr: string;
}

const OUTPUT_CAP = 1 << 20;

/**
 * The variables the agent adds to a hook's environment, which a command may use to find the
 * launcher (`"$CLAUDE_PROJECT_DIR"/node_modules/.bin/loopledger`): the project is this folder.
 */
const PROJECT_DIR_VARIABLE: Partial<Record<Agent, string>> = { 'claude-code': 'CLAUDE_PROJECT_DIR', gemini: 'GEMINI_PROJECT_DIR' };

function agentEnv(agent: Agent, io: DoctorIO): NodeJS.ProcessEnv {
  const name = PROJECT_DIR_VARIABLE[agent];
  return name === undefined || io.env[name] !== undefined ? io.env : { ...io.env, [name]: io.cwd };
}

/**
 * `sh -c command`, in its own process group so a timeout ends the guard too, not just the shell.
 * The system's sh by its path: a PATH that starts in the project must not choose the shell.
 */
function runCommand(command: string, input: string, timeoutMs: number, cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      if (stdout.length < OUTPUT_CAP) stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < OUTPUT_CAP) stderr += c.toString('utf8');
    });
    // A guard that never reads its stdin closes the pipe: that is its business, not an error here.
    child.stdin.on('error', () => {});
    child.on('error', (e) => {
      stderr += e.message;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, ms: Math.round(performance.now() - started), stdout, stderr });
    });
    child.stdin.end(input);
  });
}

interface ProbeAnswer {
  version: string;
  mode: string;
  stateDir: string;
}

function answerOf(stdout: string, id: string): ProbeAnswer | null {
  try {
    const probe = (JSON.parse(stdout) as { loopledger_probe?: Record<string, unknown> }).loopledger_probe;
    if (probe?.['id'] !== id) return null;
    return { version: String(probe['version']), mode: String(probe['mode']), stateDir: String(probe['state_dir']) };
  } catch {
    return null;
  }
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return sanitize(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}

export interface DoctorLine {
  ok: boolean;
  line: string;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch (e) {
    // Not there yet: the guard creates it at its first call, if its nearest parent lets it.
    const parent = dirname(dir);
    return (e as NodeJS.ErrnoException).code === 'ENOENT' && parent !== dir && writable(parent);
  }
}

/** One command, probed: the verdict in one line. */
async function probe(agent: Agent, command: string, where: string, timeoutMs: number, io: DoctorIO): Promise<DoctorLine> {
  const id = randomBytes(6).toString('hex');
  const run = await runCommand(command, `${JSON.stringify(probePayload(agent, id, io.cwd))}\n`, timeoutMs, io.cwd, agentEnv(agent, io));
  const shown = `${where} runs \`${sanitize(command)}\``;
  if (run.timedOut) return { ok: false, line: `no answer: ${shown}: still running at the agent's timeout (${timeoutMs} ms), killed` };
  const answer = run.code === 0 ? answerOf(run.stdout.trim(), id) : null;
  if (answer !== null) {
    const state = writable(resolve(io.cwd, answer.stateDir)) ? '' : `; its state folder ${answer.stateDir} is not writable`;
    const line = `${shown}: answered in ${run.ms} ms (loopledger ${answer.version}, mode ${answer.mode}${state})`;
    return state === '' ? { ok: true, line: `ok: ${line}` } : { ok: false, line: `not ok: ${line}` };
  }
  const said = firstLine(run.stderr);
  const how = run.code === null ? `killed by ${run.signal}` : `exit ${run.code}`;
  const hint = run.code === 127
    ? ': the agent will not find this command'
    : run.code === 0 && said === ''
      ? ': the guard stopped before it answered (under --mode off it answers nothing; else see errors.log in its state folder)'
      : '';
  return { ok: false, line: `no answer: ${shown}: ${how} after ${run.ms} ms${said !== '' ? ` (${said})` : ''}${hint}` };
}

/** The line for a command the doctor does not run: it runs only what `hook install` of this installation writes. */
function notRun(agent: Agent, origin: Exclude<Provenance, { kind: 'ours' }>, shown: string): string {
  const instead = `remove it and run \`loopledger hook install ${agent} --write\` for this installation's command`;
  if (origin.kind === 'not-found') return `no answer: ${shown}: no \`loopledger\` on the PATH, not run: the agent will not find this command`;
  if (origin.kind === 'modified') return `modified: ${shown}: this installation's guard with ${sanitize(origin.why)}, which \`hook install\` does not write, so not run: check it yourself, or ${instead}`;
  return `foreign: ${shown}: not a command \`hook install\` of this installation writes (another installation, or a repository's own script), so not run: check it yourself, or ${instead}`;
}

/**
 * Every guard command in the agent's project and user settings that `hook install` of this
 * installation writes, probed; any other is reported (foreign, modified), never run. `ok` when at least one
 * is installed and every one answered.
 */
export async function doctor(agent: Agent, io: DoctorIO, scopes: readonly Scope[] = ['project', 'user']): Promise<{ ok: boolean; lines: DoctorLine[] }> {
  const plan = PLANS[agent];
  const lines: DoctorLine[] = [];
  // The project's file as the agent's folder sees it, the user's in full (the same file when
  // the folder is HOME: read once).
  const files = new Map<string, string>();
  for (const scope of scopes) {
    const path = settingsPath(agent, scope, io.env, io.cwd);
    if (!files.has(path)) files.set(path, scope === 'project' ? relative(io.cwd, path) : path);
  }
  const looked: string[] = [];
  for (const [path, shownPath] of files) {
    looked.push(shownPath);
    let settings: unknown;
    try {
      const file = readAgentSettings(agent, path);
      if (file.text === null) continue;
      settings = file.value;
    } catch (e) {
      lines.push({ ok: false, line: `cannot read ${shownPath}: ${(e as Error).message}` });
      continue;
    }
    // One probe per distinct command: the same guard under four events answers the same.
    const byCommand = new Map<string, { events: string[]; timeout: unknown }>();
    for (const g of installedGuards(settings, agent)) {
      const seen = byCommand.get(g.command);
      if (seen) seen.events.push(g.event);
      else byCommand.set(g.command, { events: [g.event], timeout: g.timeout });
    }
    for (const [command, { events, timeout }] of byCommand) {
      const where = `${shownPath} (${events.join(', ')})`;
      const origin = provenance(command, agent, io.env, io.cwd);
      if (origin.kind !== 'ours') {
        lines.push({ ok: false, line: notRun(agent, origin, `${where} runs \`${sanitize(command)}\``) });
        continue;
      }
      const limit = typeof timeout === 'number' && timeout > 0 ? timeout : plan.timeout;
      lines.push(await probe(agent, command, where, Math.min(limit * plan.timeoutUnitMs, 600_000), io));
    }
    // A guard that answers is still never run by Codex until its user reviewed it.
    if (agent === 'codex' && byCommand.size > 0) {
      const review = codexReview(codexKeyPath(path, io.env, io.cwd), settings as Record<string, unknown>, codexConfigPath(io.env, io.cwd), isCodexGuard);
      if (review.advice !== null) lines.push({ ok: false, line: `not reviewed: ${shownPath}: ${review.advice}` });
    }
  }
  if (lines.length === 0) {
    return { ok: false, lines: [{ ok: false, line: `no loopledger guard for ${agent} in ${looked.join(' or ')}: run \`loopledger hook install ${agent} --write\`` }] };
  }
  return { ok: lines.every((l) => l.ok), lines };
}
