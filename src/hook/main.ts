// `loopledger hook`: the live guard's entry. bin/loopledger.js loads this module alone for
// `hook` (no commander, chalk, cli-table3 or price data), so a call costs about one Node start.
//
// Fail open, always: bad stdin, a missing or replaced transcript, a corrupt state file, a bug:
// exit 0, nothing on stdout, one line in <state-dir>/errors.log. A guard that breaks the agent
// is worse than no guard.

import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { isatty } from 'node:tty';
import { chooseConfigFile, loadConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { ladderSettings } from '../ladder/config.js';
import { PolicyResolver } from '../ladder/policy.js';
import { CANONICAL_SCHEMA } from '../formats/canonical.js';
import { AGENTS, type Agent, type HookEvent, hookOf, parsePayload } from './payload.js';
import { canCarryContext, render, type Verdict } from './respond.js';
import { Session } from './session.js';
import { freshState, type GuardConfig, type LiveMode, type SessionState, stateProblem } from './state.js';
import { appendLines, defaultStateDir, ensureDir, fileKey, lock, LockTimeout, logError, readState, sleep, StateRefused, writeState } from './store.js';
import { loadAdapter, readTranscript, TranscriptGone, TranscriptRotated, TranscriptTooLarge } from './transcript.js';
import { isMode } from '../vocabulary.js';

export interface HookIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: NodeJS.ProcessEnv;
  /** The payload; defaults to reading all of stdin. */
  readStdin?: () => string | Promise<string>;
  cwd?: string;
  /** When the call started, on performance.now()'s clock (a process: 0, its own start). */
  startedAt?: number;
}

/**
 * The call's time budget, from its start: the agents' timeout is 5 s (we install that), and a
 * hook killed at it leaves its lock and its state unwritten. A payload not complete by
 * STDIN_DEADLINE_MS, or a lock not free by LOCK_DEADLINE_MS, fails open, which leaves a second
 * and more for the reading itself (at most 4 MB of transcript, see transcript.ts).
 */
const STDIN_DEADLINE_MS = 2_500;
const LOCK_DEADLINE_MS = 3_500;
/**
 * A start slowed by a loaded machine still gets this long to read a payload or take the lock:
 * the agent's timeout is the outer bound, and giving up on a payload already there helps no one.
 */
const GRACE_MS = 750;

/** Milliseconds left until `deadline` (from the call's start), never less than GRACE_MS. */
function until(startedAt: number, deadline: number): number {
  return Math.max(GRACE_MS, startedAt + deadline - performance.now());
}

/**
 * The largest payload read. Claude Code's PostToolUse for an Edit carries the whole original
 * file (`tool_response.originalFile`) beside the edit, and a Write the whole new file: a 10 MB
 * file is a payload of 10 to 20 MB. 32 MiB holds that with room; JSON.parse takes about 0.3 s and
 * 100 MB on it. Past it the call fails open (the rest is drained, never kept).
 */
const STDIN_MAX_BYTES = 32 * 1024 * 1024;

const USAGE = `Usage:
  loopledger hook <agent> [--mode off|telemetry|enforce] [--config FILE] [--set K=V] [--state-dir DIR]
  loopledger hook install <agent> [--project|--user] [--write] [--mode M] [--state-dir DIR] [--config FILE]
  loopledger hook uninstall <agent> [--project|--user] [--write]
  loopledger hook doctor <agent>
<agent>: ${AGENTS.join(', ')}

The live guard: the agent calls it for each hook event with one JSON payload on stdin; it runs the
same detectors and ladder as \`analyze\` over the session so far, incrementally, and answers in
the agent's hook contract. Off: nothing. Telemetry: never changes the agent; every decision is
appended to <state-dir>/<session>.ledger.jsonl (canonical JSONL: \`loopledger analyze\` reads it).
Enforce: a loop is refused before it runs and the turn ended; a steer adds a recovery reminder.
Any failure of its own fails open: exit 0, nothing on stdout, a line in <state-dir>/errors.log.

  --mode <mode>       overrides the configuration's mode (default: telemetry)
  --config <file>     configuration file (JSON), as for analyze
  --set <key=value>   one configuration key (repeatable)
  --state-dir <dir>   default $XDG_STATE_HOME/loopledger, else ~/.local/state/loopledger
`;

export interface HookArgs {
  agent: Agent;
  mode?: string;
  config?: string;
  sets: string[];
  stateDir?: string;
}

export class HookUsageError extends Error {}

/** The guard's arguments (no commander on this path). */
export function parseHookArgs(argv: readonly string[]): HookArgs {
  const sets: string[] = [];
  let agent: string | undefined;
  let mode: string | undefined;
  let config: string | undefined;
  let stateDir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (arg.startsWith('--') && eq > 0) return arg.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new HookUsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--mode':
        mode = value();
        if (!isMode(mode)) throw new HookUsageError(`--mode takes off, telemetry or enforce, not ${mode}`);
        break;
      case '--config':
        config = value();
        break;
      case '--set':
        sets.push(value());
        break;
      case '--state-dir':
        stateDir = value();
        break;
      default:
        if (arg.startsWith('-')) throw new HookUsageError(`unknown option ${arg}`);
        if (agent !== undefined) throw new HookUsageError(`unexpected argument ${arg}`);
        agent = arg;
    }
  }
  if (agent === undefined) throw new HookUsageError(`name the agent: ${AGENTS.join(', ')}`);
  if (!(AGENTS as readonly string[]).includes(agent)) throw new HookUsageError(`unknown agent ${agent} (${AGENTS.join(', ')})`);
  return { agent: agent as Agent, mode, config, sets, stateDir };
}

/** `loopledger hook …`; resolves to the exit code (0 on every guard path). */
export async function runHook(argv: readonly string[], io: HookIO = processIO()): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(USAGE);
    return 0;
  }
  const startedAt = io.startedAt ?? performance.now();
  let args: HookArgs;
  try {
    args = parseHookArgs(argv);
  } catch (e) {
    // A hook command misconfigured in the agent's settings still fails open.
    const dir = stateDirFrom(argv, io.env);
    io.stderr.write(`loopledger hook: ${(e as Error).message}\n`);
    logError(dir, `usage: ${(e as Error).message}`);
    return 0;
  }
  const stateDir = args.stateDir ?? defaultStateDir(io.env);
  let context = `${args.agent}`;
  const fail = (e: unknown) => {
    const err = e as Error;
    const bug = err?.stack && !(e instanceof Expected || e instanceof ConfigError || e instanceof StateRefused || e instanceof LockTimeout);
    const message = `${context}: ${err?.message ?? String(e)}`;
    const unlogged = logError(stateDir, `${message}${bug ? ` [${firstFrame(err.stack!)}]` : ''}`);
    // The agent shows a hook's stderr: a guard switched off by its own setup says so there.
    if (unlogged !== null || e instanceof ConfigError || e instanceof StateRefused) {
      const also = unlogged !== null && !message.endsWith(unlogged) ? `; not in errors.log: ${unlogged}` : '';
      const why = `${message} (the guard is off for this call${also})`;
      say(io.stderr, `loopledger hook: ${why.replace(/[\r\n]+/g, ' ')}\n`);
    }
  };
  let out: string | null = null;
  try {
    out = await guard(args, stateDir, io, startedAt, (c) => (context = c));
  } catch (e) {
    fail(e);
  }
  if (out !== null) {
    try {
      io.stdout.write(`${out}\n`);
    } catch (e) {
      // The agent stopped reading (EPIPE): nothing left to tell it.
      fail(new Expected(`stdout: ${(e as Error).message}`));
    }
  }
  return 0;
}

function say(stream: HookIO['stderr'], text: string): void {
  try {
    stream.write(text);
  } catch {
    // stderr is gone too: errors.log has it, or nothing can.
  }
}

/** Failures that are conditions, not bugs: logged without a stack frame. */
class Expected extends Error {}

function firstFrame(stack: string): string {
  const line = stack.split('\n').find((l) => l.trim().startsWith('at '));
  return line ? line.trim() : '';
}

function stateDirFrom(argv: readonly string[], env: NodeJS.ProcessEnv): string {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--state-dir' && argv[i + 1]) return argv[i + 1]!;
    if (argv[i]!.startsWith('--state-dir=')) return argv[i]!.slice('--state-dir='.length);
  }
  return defaultStateDir(env);
}

/**
 * Synchronous writes straight to the descriptor: a stream would report a closed pipe (EPIPE)
 * later, as an 'error' event with a stack trace and exit 1; here it is an exception caught above.
 */
function fdWriter(fd: number): HookIO['stdout'] {
  return {
    write(text: string) {
      const data = Buffer.from(text, 'utf8');
      const deadline = performance.now() + 1_000;
      let done = 0;
      while (done < data.length) {
        try {
          done += writeSync(fd, data, done, data.length - done);
        } catch (e) {
          // A non-blocking pipe that is full: the agent reads it soon, or the write is dropped.
          if ((e as NodeJS.ErrnoException).code !== 'EAGAIN' || performance.now() > deadline) throw e;
          sleep(2);
        }
      }
    },
  };
}

function processIO(): HookIO {
  return { stdout: fdWriter(1), stderr: fdWriter(2), env: process.env, startedAt: 0 };
}

/**
 * All of stdin, through the event loop: a payload may arrive late, in pieces, from a pipe the
 * agent made non-blocking (a synchronous read of fd 0 then fails with EAGAIN), so it is awaited
 * until its end, the deadline or the size cap, whichever comes first.
 */
function readAllStdin(startedAt: number): Promise<string> {
  if (isatty(0)) throw new Expected('no payload: stdin is a terminal (the agent pipes one JSON object)');
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    const chunks: Buffer[] = [];
    let size = 0;
    const tooLarge = () => new Expected(`payload larger than ${STDIN_MAX_BYTES} bytes (the cap on stdin): not read`);
    const finish = (error: Error | null) => {
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.removeAllListeners('end');
      stdin.on('error', () => {});
      stdin.destroy();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(
      () => finish(size > STDIN_MAX_BYTES ? tooLarge() : new Expected(`no complete payload on stdin within ${STDIN_DEADLINE_MS} ms (${size} bytes came)`)),
      until(startedAt, STDIN_DEADLINE_MS),
    );
    stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the cap the rest is drained unkept, so the agent's write completes.
      if (size > STDIN_MAX_BYTES) chunks.length = 0;
      else chunks.push(chunk);
    });
    stdin.on('end', () => finish(size > STDIN_MAX_BYTES ? tooLarge() : null));
    stdin.on('error', (e) => finish(new Expected(`stdin: ${e.message}`)));
  });
}

/** One hook event, start to end. Returns what to print, or null. */
async function guard(args: HookArgs, stateDir: string, io: HookIO, startedAt: number, describe: (c: string) => void): Promise<string | null> {
  const file = chooseConfigFile(args.config, io.env, io.cwd ?? process.cwd()).file;
  const loaded = await loadConfig({ file, sets: args.sets, overrides: args.mode ? { mode: args.mode } : {} });
  const config = loaded.config;
  const mode = config.ladder.mode;
  // Off: nothing runs (seed 002: "mode off ... skip the detectors entirely").
  if (mode !== 'telemetry' && mode !== 'enforce') return null;

  const text = await (io.readStdin ? io.readStdin() : readAllStdin(startedAt));
  let event: HookEvent;
  try {
    event = parsePayload(args.agent, text, io.env);
  } catch (e) {
    throw new Expected(`bad stdin: ${(e as Error).message}`);
  }
  const key = fileKey(event.subagent ? `${event.sessionId}.agent-${event.subagent}` : event.sessionId);
  describe(`${args.agent} ${event.name} ${key}`);
  // `hook doctor` asks: answered before anything is locked or written, after the config loaded.
  if (event.probe !== null) {
    const { VERSION } = await import('../version.js');
    return JSON.stringify({ loopledger_probe: { id: event.probe, version: VERSION, mode, state_dir: stateDir } });
  }
  if (event.kind === 'other') return null;

  if (event.transcriptPath !== null && event.subagent === null && hookOf(args.agent).transcript !== undefined) await loadAdapter(args.agent);
  ensureDir(stateDir);
  const release = lock(join(stateDir, `${key}.lock`), until(startedAt, LOCK_DEADLINE_MS));
  try {
    return runEvent(args.agent, mode, event, key, stateDir, loaded.resolved, config, loaded.warnings);
  } finally {
    release();
  }
}

function runEvent(
  agent: Agent,
  mode: LiveMode,
  event: HookEvent,
  key: string,
  stateDir: string,
  resolved: GuardConfig['resolved'],
  config: GuardConfig['config'],
  warnings: readonly string[],
): string | null {
  const statePath = join(stateDir, `${key}.state.json`);
  let state: SessionState;
  let raw: unknown;
  let problem: string | null = null;
  try {
    raw = readState(statePath);
  } catch (e) {
    problem = `unreadable: ${(e as Error).message}`;
  }
  if (problem === null && raw !== null) problem = stateProblem(raw, agent, event.sessionId);
  if (raw === null || problem !== null) {
    // Said once: the fresh state written at the end of this call has nothing to complain of.
    if (problem !== null) logError(stateDir, `${agent} ${key}: corrupt state ${statePath} (${problem}); started over`);
    state = freshState(agent, event.sessionId);
  } else {
    state = raw as SessionState;
  }
  try {
    return decide(agent, mode, event, key, stateDir, statePath, state, resolved, config, warnings);
  } catch (e) {
    // A state of the right shape whose detector snapshots still do not restore (what garbage in
    // them throws): start over once. I/O errors and conditions are not the state's fault.
    if (raw === null || problem !== null || !(e instanceof TypeError || e instanceof RangeError)) throw e;
    logError(stateDir, `${agent} ${key}: corrupt state ${statePath} (it does not resume: ${(e as Error).message}); started over`);
    return decide(agent, mode, event, key, stateDir, statePath, freshState(agent, event.sessionId), resolved, config, warnings);
  }
}

function decide(
  agent: Agent,
  mode: LiveMode,
  event: HookEvent,
  key: string,
  stateDir: string,
  statePath: string,
  state: SessionState,
  resolved: GuardConfig['resolved'],
  config: GuardConfig['config'],
  warnings: readonly string[],
): string | null {
  if (!state.ledgerStarted && warnings.length > 0) {
    // Configuration warnings are said once per session, where a user looking for them looks.
    logError(stateDir, `${agent} ${key}: configuration: ${warnings.join('; ')}`);
  }

  const cfg: GuardConfig = {
    mode,
    resolved,
    config,
    settings: ladderSettings(config.ladder, config.toolBatch),
    policy: new PolicyResolver(config.ladder),
  };
  const session = new Session(cfg, state, event);
  let tentative = null;
  let followed = event.transcriptPath !== null && event.subagent === null;
  if (followed) {
    try {
      const read = readTranscript(agent, event.transcriptPath!, state.cursor);
      if (read.notice !== undefined) logError(stateDir, `${agent} ${key}: ${read.notice}`);
      session.applyTranscript(read.delta);
      tentative = read.delta.tentative;
      state.cursor = read.cursor;
    } catch (e) {
      if (e instanceof TranscriptRotated) {
        writeState(statePath, freshState(agent, event.sessionId));
        throw new Expected(`${e.message}: state started over`);
      }
      if (e instanceof TranscriptGone) throw new Expected(e.message);
      if (!(e instanceof TranscriptTooLarge)) throw e;
      // Followed from stdin alone from now on (turns from the agent's stop events); said once.
      if (state.cursor?.mode !== 'oversize') logError(stateDir, `${agent} ${key}: ${e.message}`);
      state.cursor = e.cursor;
      followed = false;
    }
  }
  const verdict = session.handle(tentative, followed);

  // Telemetry never changes the agent: its decisions only go to the ledger file.
  let out: string | null = null;
  if (mode === 'enforce') {
    let shown: Verdict = verdict;
    if (verdict.context !== null && !canCarryContext(agent, event.kind)) {
      state.pendingContext = verdict.context;
      shown = { ...verdict, context: null };
    }
    out = render(agent, event.name, event.kind, shown, event.call);
  }

  const records = session.records;
  if (records.length > 0) {
    const ledger = join(stateDir, `${key}.ledger.jsonl`);
    if (!state.ledgerStarted) {
      appendLines(ledger, [
        { type: 'session', schema: CANONICAL_SCHEMA, id: event.subagent ? `${event.sessionId}/agent-${event.subagent}` : event.sessionId, parent: event.subagent ? event.sessionId : null, source: `loopledger hook ${agent}` },
      ]);
      state.ledgerStarted = true;
    }
    appendLines(ledger, records);
  }
  writeState(statePath, state);
  return out;
}

/** bin/loopledger.js calls this for `loopledger hook …` (argv includes `hook`). */
export function main(argv: readonly string[]): Promise<number> {
  return runHook(argv.slice(1));
}
