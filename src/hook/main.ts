// `loopledger hook`: the live guard's entry. bin/loopledger.js loads this module alone for
// `hook` (no commander, chalk, cli-table3 or price data), so a call costs about one Node start.
//
// Fail open, always: bad stdin, a missing or replaced transcript, a corrupt state file, a bug:
// exit 0, nothing on stdout, one line in <state-dir>/errors.log. A guard that breaks the agent
// is worse than no guard.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config/load.js';
import { parseConfig } from '../config/registry.js';
import { ladderSettings } from '../ladder/config.js';
import { PolicyResolver } from '../ladder/policy.js';
import { CANONICAL_SCHEMA } from '../formats/canonical.js';
import { AGENTS, type Agent, type HookEvent, parsePayload } from './payload.js';
import { canCarryContext, render, type Verdict } from './respond.js';
import { freshState, type GuardConfig, type LiveMode, Session, type SessionState, STATE_VERSION } from './session.js';
import { appendLines, defaultStateDir, ensureDir, fileKey, lock, logError, readState, writeState } from './store.js';
import { loadAdapter, readTranscript, TranscriptGone, TranscriptRotated } from './transcript.js';
import { isMode } from '../vocabulary.js';

export interface HookIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: NodeJS.ProcessEnv;
  /** The payload; defaults to reading all of stdin. */
  readStdin?: () => string;
  cwd?: string;
}

const USAGE = `Usage:
  loopledger hook claude-code|gemini|codex [--mode off|telemetry|enforce] [--config FILE] [--set K=V] [--state-dir DIR]
  loopledger hook install claude-code|gemini|codex [--project|--user] [--write] [--mode M] [--state-dir DIR] [--config FILE]
  loopledger hook doctor claude-code|gemini|codex

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
  if (agent === undefined) throw new HookUsageError('name the agent: claude-code, gemini or codex');
  if (!(AGENTS as readonly string[]).includes(agent)) throw new HookUsageError(`unknown agent ${agent} (claude-code, gemini or codex)`);
  return { agent: agent as Agent, mode, config, sets, stateDir };
}

/** `loopledger hook …`; resolves to the exit code (0 on every guard path). */
export async function runHook(argv: readonly string[], io: HookIO = processIO()): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(USAGE);
    return 0;
  }
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
  try {
    const out = await guard(args, stateDir, io, (c) => (context = c));
    if (out !== null) io.stdout.write(`${out}\n`);
  } catch (e) {
    const err = e as Error;
    logError(stateDir, `${context}: ${err?.message ?? String(e)}${err?.stack && !(e instanceof Expected) ? ` [${firstFrame(err.stack)}]` : ''}`);
  }
  return 0;
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

function processIO(): HookIO {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

function readAllStdin(): string {
  if (process.stdin.isTTY) throw new Expected('no payload: stdin is a terminal (the agent pipes one JSON object)');
  return readFileSync(0, 'utf8');
}

/** One hook event, start to end. Returns what to print, or null. */
async function guard(args: HookArgs, stateDir: string, io: HookIO, describe: (c: string) => void): Promise<string | null> {
  const loaded = await loadConfig({ file: args.config, sets: args.sets, overrides: args.mode ? { mode: args.mode } : {} });
  const config = loaded.config ?? parseConfig(loaded.values);
  const mode = config.ladder.mode;
  // Off: nothing runs (seed 002: "mode off ... skip the detectors entirely").
  if (mode !== 'telemetry' && mode !== 'enforce') return null;

  const text = (io.readStdin ?? readAllStdin)();
  let event: HookEvent;
  try {
    event = parsePayload(args.agent, text);
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

  if (event.transcriptPath !== null && event.subagent === null) await loadAdapter(args.agent);
  ensureDir(stateDir);
  const release = lock(join(stateDir, `${key}.lock`));
  try {
    return runEvent(args.agent, mode, event, key, stateDir, loaded.values, config, loaded.warnings);
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
  values: GuardConfig['values'],
  config: GuardConfig['config'],
  warnings: readonly string[],
): string | null {
  const statePath = join(stateDir, `${key}.state.json`);
  let state: SessionState;
  let raw: unknown;
  try {
    raw = readState(statePath);
  } catch (e) {
    writeState(statePath, freshState(agent, event.sessionId));
    throw new Expected(`corrupt state ${statePath} (${(e as Error).message}); started over`);
  }
  if (raw === null) state = freshState(agent, event.sessionId);
  else if (isState(raw, agent, event.sessionId)) state = raw;
  else {
    writeState(statePath, freshState(agent, event.sessionId));
    throw new Expected(`state ${statePath} is not this session's (or from another version); started over`);
  }
  if (!state.ledgerStarted && warnings.length > 0) {
    // Configuration warnings are said once per session, where a user looking for them looks.
    logError(stateDir, `${agent} ${key}: configuration: ${warnings.join('; ')}`);
  }

  const cfg: GuardConfig = {
    mode,
    values,
    config,
    settings: ladderSettings(config.ladder, config.toolBatch),
    policy: new PolicyResolver(config.ladder),
  };
  const session = new Session(cfg, state, event);
  let tentative = null;
  const followed = event.transcriptPath !== null && event.subagent === null;
  if (followed) {
    try {
      const read = readTranscript(agent, event.transcriptPath!, state.cursor);
      session.applyTranscript(read.delta);
      tentative = read.delta.tentative;
      state.cursor = read.cursor;
    } catch (e) {
      if (e instanceof TranscriptRotated) {
        writeState(statePath, freshState(agent, event.sessionId));
        throw new Expected(`${e.message}: state started over`);
      }
      if (e instanceof TranscriptGone) throw new Expected(e.message);
      throw e;
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
    out = render(agent, event.name, event.kind, shown);
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

function isState(v: unknown, agent: Agent, session: string): v is SessionState {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Partial<SessionState>;
  return (
    s.v === STATE_VERSION &&
    s.agent === agent &&
    s.session === session &&
    typeof s.turn === 'number' &&
    typeof s.rounds === 'number' &&
    Array.isArray(s.denied) &&
    Array.isArray(s.closedCalls) &&
    Array.isArray(s.closedLines) &&
    Array.isArray(s.refused) &&
    Array.isArray(s.aliases)
  );
}

/** bin/loopledger.js calls this for `loopledger hook …` (argv includes `hook`). */
export function main(argv: readonly string[]): Promise<number> {
  return runHook(argv.slice(1));
}
