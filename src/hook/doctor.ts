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
import { guardIn, installedGuards, isGuardOf, readAgentSettings, type Scope, settingsPath } from './install.js';
import { filesDir, installedFiles } from './install-files.js';
import { hasEntry, keyPath, readConfig } from './config-entries.js';
import type { ConfigEntries } from './contract.js';
import { provenance, type Provenance } from './provenance.js';
import { type Agent, hookOf } from './payload.js';
import { sanitize } from '../sanitize.js';

export interface DoctorIO {
  env: NodeJS.ProcessEnv;
  cwd: string;
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
 * The variable the agent adds to a hook's environment, which a command may use to find the
 * launcher (`"$CLAUDE_PROJECT_DIR"/node_modules/.bin/loopledger`): the project is this folder.
 */
function agentEnv(agent: Agent, io: DoctorIO): NodeJS.ProcessEnv {
  const name = hookOf(agent).projectDirVariable;
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
  const run = await runCommand(command, `${JSON.stringify(hookOf(agent).probe(id, io.cwd))}\n`, timeoutMs, io.cwd, agentEnv(agent, io));
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

/** One place the guard may be installed, read: its guards event by event, or why it cannot be read. */
interface Place {
  shown: string;
  guards: { event: string; command: string; timeout: unknown }[];
  /** Said after the probes (Codex: the review its user still owes). */
  advice: string | null;
  error: string | null;
}

function places(agent: Agent, io: DoctorIO, scopes: readonly Scope[]): { looked: string[]; found: Place[] } {
  const install = hookOf(agent).install;
  // The project's as the agent's folder sees it, the user's in full (the same when the folder is HOME: read once).
  const paths = new Map<string, string>();
  for (const scope of scopes) {
    const path = install.kind === 'settings' ? settingsPath(agent, scope, io.env, io.cwd) : filesDir(install, scope, io.env, io.cwd);
    if (!paths.has(path)) paths.set(path, scope === 'project' ? relative(io.cwd, path) : path);
  }
  const found: Place[] = [];
  for (const [path, shown] of paths) {
    if (install.kind === 'files') {
      const guards = installedFiles(path, install, agent).map((f) => ({ event: f.event, command: f.command, timeout: undefined }));
      if (guards.length > 0) found.push({ shown, guards, advice: install.config === undefined ? null : configAdvice(agent, install.config, path, io), error: null });
      continue;
    }
    let settings: unknown;
    try {
      const file = readAgentSettings(agent, path);
      if (file.text === null) continue;
      settings = file.value;
    } catch (e) {
      found.push({ shown, guards: [], advice: null, error: `cannot read ${shown}: ${(e as Error).message}` });
      continue;
    }
    const guards = installedGuards(settings, agent);
    // A guard that answers is still never run by an agent that wants it reviewed first (Codex) until its user did.
    const advice = install.review !== undefined && guards.length > 0 ? install.review.advice(path, settings as Record<string, unknown>, io, isGuardOf(agent)) : null;
    found.push({ shown, guards, advice: advice === null ? null : `not reviewed: ${shown}: ${advice}`, error: null });
  }
  return { looked: [...paths.values()], found };
}

/** Why the agent will not load the guard's files in `dir` from what its configuration holds (OpenClaw's plugin entry), or null. */
function configAdvice(agent: Agent, config: ConfigEntries, dir: string, io: DoctorIO): string | null {
  const path = config.file(io.env);
  let value: unknown;
  try {
    value = readConfig(config, io.env).value;
  } catch (e) {
    return `not loaded: cannot read ${path}: ${(e as Error).message}`;
  }
  const missing = config.entries(dir).filter((e) => !hasEntry(value, e)).map(keyPath);
  if (missing.length > 0) return `not loaded: ${path} lacks ${missing.join(' and ')} as \`hook install\` writes them, without which the agent does not load the guard: run \`loopledger hook install ${agent} --write\``;
  const blocked = config.blocked(value);
  return blocked === null ? null : `not loaded: ${path}: ${blocked}`;
}

/**
 * The guard run more than once on the same call: in the project's and the user's settings both,
 * or twice in one (each run counts the call, so a loop is seen at half its length, and two modes
 * disagree on what to do). null when each event runs it once.
 */
function twice(agent: Agent, found: readonly Place[], io: DoctorIO): string | null {
  const byEvent = new Map<string, { where: string; mode: string }[]>();
  for (const place of found) {
    // Only this installation's guards: any other command is reported as foreign or modified already.
    for (const g of place.guards.filter((x) => provenance(x.command, agent, io.env, io.cwd).kind === 'ours')) {
      const args = guardIn(g.command, agent)?.args ?? [];
      const at = args.indexOf('--mode');
      const mode = at >= 0 ? (args[at + 1] ?? '?') : (args.find((a) => a.startsWith('--mode='))?.slice(7) ?? 'the configuration\'s');
      const list = byEvent.get(g.event) ?? [];
      list.push({ where: place.shown, mode });
      byEvent.set(g.event, list);
    }
  }
  const doubled = [...byEvent].filter(([, runs]) => runs.length > 1);
  if (doubled.length === 0) return null;
  const [event, runs] = doubled[0]!;
  const modes = new Set(runs.map((r) => r.mode));
  const how = modes.size > 1 ? `, in different modes (${runs.map((r) => `${r.mode} from ${r.where}`).join(', ')})` : ` (${[...new Set(runs.map((r) => r.where))].join(' and ')})`;
  return `twice: the guard runs ${runs.length} times on every ${event}${doubled.length > 1 ? ` (and ${doubled.length - 1} more event(s))` : ''}${how}: each run counts the call, so keep one install (\`loopledger hook uninstall ${agent} --project|--user --write\` removes the other)`;
}

/**
 * Every guard command in the agent's project and user settings (or files) that `hook install` of
 * this installation writes, probed; any other is reported (foreign, modified), never run; a guard
 * installed twice is said. `ok` when at least one is installed, every one answered, and none runs twice.
 */
export async function doctor(agent: Agent, io: DoctorIO, scopes: readonly Scope[] = ['project', 'user']): Promise<{ ok: boolean; lines: DoctorLine[] }> {
  const install = hookOf(agent).install;
  const lines: DoctorLine[] = [];
  const { looked, found } = places(agent, io, scopes);
  for (const place of found) {
    if (place.error !== null) {
      lines.push({ ok: false, line: place.error });
      continue;
    }
    // One probe per distinct command: the same guard under four events answers the same.
    const byCommand = new Map<string, { events: string[]; timeout: unknown }>();
    for (const g of place.guards) {
      const seen = byCommand.get(g.command);
      if (seen) seen.events.push(g.event);
      else byCommand.set(g.command, { events: [g.event], timeout: g.timeout });
    }
    for (const [command, { events, timeout }] of byCommand) {
      const where = `${place.shown} (${events.join(', ')})`;
      const origin = provenance(command, agent, io.env, io.cwd);
      if (origin.kind !== 'ours') {
        lines.push({ ok: false, line: notRun(agent, origin, `${where} runs \`${sanitize(command)}\``) });
        continue;
      }
      const limit = typeof timeout === 'number' && timeout > 0 ? timeout : install.timeout;
      lines.push(await probe(agent, command, where, Math.min(limit * install.timeoutUnitMs, 600_000), io));
    }
    if (place.advice !== null) lines.push({ ok: false, line: place.advice });
  }
  const doubled = twice(agent, found, io);
  if (doubled !== null) lines.push({ ok: false, line: doubled });
  if (lines.length === 0) {
    return { ok: false, lines: [{ ok: false, line: `no loopledger guard for ${agent} in ${looked.join(' or ')}: run \`loopledger hook install ${agent} --write\`` }] };
  }
  return { ok: lines.every((l) => l.ok), lines };
}
