// `loopledger hook install <agent>`: print the settings entry that runs the guard, or merge it
// into the agent's settings file keeping every hook already there (and a `.bak` of the file).

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { AGENTS, type Agent } from './payload.js';
import type { HookIO } from './main.js';
import { isMode } from '../vocabulary.js';
import { trustCodexHooks } from './codex-trust.js';

interface Handler {
  type: 'command';
  command: string;
  timeout: number;
  name?: string;
}

interface EventPlan {
  event: string;
  /** null: the event takes no matcher. */
  matcher: string | null;
}

/**
 * Which events, where, and in which unit the timeout is. A hook call takes about one Node start;
 * 5 s leaves room for a first call that reads a long transcript whole, and fails open past it.
 *
 * - Claude Code: ~/.claude/settings.json or .claude/settings.json; `matcher` is a regex on the
 *   tool name and "*" matches all; Stop takes no matcher; `timeout` in seconds ("Hooks reference",
 *   https://code.claude.com/docs/en/hooks). PostToolUseFailure is where failing calls land, and
 *   identical failing batches are the loop this guard exists for.
 * - Gemini CLI: ~/.gemini/settings.json or .gemini/settings.json; "*" matches every tool;
 *   `timeout` in milliseconds (docs/hooks/reference.md, "Configuration schema").
 * - Codex: ~/.codex/hooks.json or <repo>/.codex/hooks.json; no matcher runs for every tool the
 *   event supports; `timeout` in seconds (https://developers.openai.com/codex/hooks).
 */
const PLANS: Record<Agent, { events: EventPlan[]; timeout: number; named: boolean; user: string; project: string }> = {
  'claude-code': {
    events: [
      { event: 'PreToolUse', matcher: '*' },
      { event: 'PostToolUse', matcher: '*' },
      { event: 'PostToolUseFailure', matcher: '*' },
      { event: 'Stop', matcher: null },
    ],
    timeout: 5,
    named: false,
    user: '.claude/settings.json',
    project: '.claude/settings.json',
  },
  gemini: {
    events: [
      { event: 'BeforeTool', matcher: '*' },
      { event: 'AfterTool', matcher: '*' },
      { event: 'AfterAgent', matcher: null },
    ],
    timeout: 5000,
    named: true,
    user: '.gemini/settings.json',
    project: '.gemini/settings.json',
  },
  codex: {
    events: [
      { event: 'PreToolUse', matcher: null },
      { event: 'PostToolUse', matcher: null },
      { event: 'Stop', matcher: null },
    ],
    timeout: 5,
    named: false,
    user: '.codex/hooks.json',
    project: '.codex/hooks.json',
  },
};

interface InstallOptions {
  agent: Agent;
  scope: 'project' | 'user';
  write: boolean;
  /** Extra arguments for the guard command (--mode, --state-dir, --config). */
  guardArgs: string[];
}

class InstallError extends Error {}

function quote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function guardCommand(agent: Agent, guardArgs: readonly string[]): string {
  return ['loopledger', 'hook', agent, ...guardArgs].map(quote).join(' ');
}

/** The `hooks` object this agent needs: each event's one matcher group running the guard. */
export function settingsEntry(agent: Agent, guardArgs: readonly string[] = []): Record<string, unknown[]> {
  const plan = PLANS[agent];
  const handler: Handler = { type: 'command', command: guardCommand(agent, guardArgs), timeout: plan.timeout };
  if (plan.named) handler.name = 'loopledger';
  const hooks: Record<string, unknown[]> = {};
  for (const e of plan.events) {
    const group: Record<string, unknown> = {};
    if (e.matcher !== null) group.matcher = e.matcher;
    group.hooks = [{ ...handler }];
    hooks[e.event] = [group];
  }
  return hooks;
}

/** A handler that already runs this agent's guard (any flags, any path to the binary). */
function isOurs(handler: unknown, agent: Agent): boolean {
  if (typeof handler !== 'object' || handler === null) return false;
  const command = (handler as { command?: unknown }).command;
  if (typeof command !== 'string') return false;
  return new RegExp(`(^|[\\s/"'])loopledger(\\.js)?['"]?\\s+hook\\s+${agent}(\\s|$)`).test(command);
}

export interface MergeResult {
  settings: Record<string, unknown>;
  added: string[];
  updated: string[];
}

/**
 * `entry` merged into `existing`: every key, event and hook already there is kept in place; the
 * guard's handler is updated where one runs already, else its group is appended to the event.
 */
export function mergeSettings(existing: unknown, agent: Agent, guardArgs: readonly string[] = []): MergeResult {
  if (typeof existing !== 'object' || existing === null || Array.isArray(existing)) {
    throw new InstallError('the settings file does not hold a JSON object');
  }
  const settings = structuredClone(existing) as Record<string, unknown>;
  const current = settings.hooks ?? {};
  if (typeof current !== 'object' || current === null || Array.isArray(current)) {
    throw new InstallError('its "hooks" is not an object');
  }
  const hooks = current as Record<string, unknown>;
  settings.hooks = hooks;
  const entry = settingsEntry(agent, guardArgs);
  const added: string[] = [];
  const updated: string[] = [];
  for (const [event, groups] of Object.entries(entry)) {
    const list = hooks[event] ?? [];
    if (!Array.isArray(list)) throw new InstallError(`its "hooks.${event}" is not a list`);
    const ours = (groups[0] as { hooks: Handler[] }).hooks[0]!;
    let found = false;
    for (const group of list) {
      const handlers = (group as { hooks?: unknown })?.hooks;
      if (!Array.isArray(handlers)) continue;
      handlers.forEach((h, i) => {
        if (!isOurs(h, agent)) return;
        found = true;
        handlers[i] = { ...(h as object), ...ours };
      });
    }
    if (found) updated.push(event);
    else {
      list.push(groups[0]);
      added.push(event);
    }
    hooks[event] = list;
  }
  return { settings, added, updated };
}

function settingsPath(agent: Agent, scope: 'project' | 'user', env: NodeJS.ProcessEnv, cwd: string): string {
  const plan = PLANS[agent];
  return scope === 'user' ? join(env['HOME'] || homedir(), plan.user) : resolve(cwd, plan.project);
}

function parseInstallArgs(argv: readonly string[]): InstallOptions {
  let agent: string | undefined;
  let scope: 'project' | 'user' = 'project';
  let write = false;
  const guardArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--project') scope = 'project';
    else if (arg === '--user') scope = 'user';
    else if (arg === '--write') write = true;
    else if (['--mode', '--state-dir', '--config'].includes(arg)) {
      const v = argv[++i];
      if (v === undefined) throw new InstallError(`${arg} needs a value`);
      if (arg === '--mode' && !isMode(v)) throw new InstallError(`--mode takes off, telemetry or enforce, not ${v}`);
      // The guard runs wherever the agent runs it: paths are made absolute now.
      guardArgs.push(arg, arg === '--mode' ? v : resolve(v));
    } else if (arg.startsWith('-')) throw new InstallError(`unknown option ${arg}`);
    else if (agent === undefined) agent = arg;
    else throw new InstallError(`unexpected argument ${arg}`);
  }
  if (agent === undefined || !(AGENTS as readonly string[]).includes(agent)) {
    throw new InstallError(`name the agent: ${AGENTS.join(', ')}`);
  }
  return { agent: agent as Agent, scope, write, guardArgs };
}

/** `loopledger hook install …`: 0 done, 2 usage or an unreadable settings file (left untouched). */
export function runInstall(argv: readonly string[], io: HookIO): number {
  let opts: InstallOptions;
  try {
    opts = parseInstallArgs(argv);
  } catch (e) {
    io.stderr.write(`loopledger hook install: ${(e as Error).message}\n`);
    return 2;
  }
  const path = settingsPath(opts.agent, opts.scope, io.env, io.cwd ?? process.cwd());
  if (!opts.write) {
    io.stdout.write(`${JSON.stringify({ hooks: settingsEntry(opts.agent, opts.guardArgs) }, null, 2)}\n`);
    io.stderr.write(`loopledger: merge this into ${path} (or run again with --write to merge it there)\n`);
    return 0;
  }
  try {
    let existing: unknown = {};
    let before: string | null = null;
    if (existsSync(path)) {
      before = readFileSync(path, 'utf8');
      try {
        existing = before.trim() === '' ? {} : JSON.parse(before);
      } catch (e) {
        throw new InstallError(`not JSON (${(e as Error).message})`);
      }
    }
    const result = mergeSettings(existing, opts.agent, opts.guardArgs);
    mkdirSync(dirname(path), { recursive: true });
    if (before !== null) writeFileSync(`${path}.bak`, before);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(result.settings, null, 2)}\n`);
    renameSync(tmp, path);
    const what = [
      result.added.length > 0 ? `added ${result.added.join(', ')}` : '',
      result.updated.length > 0 ? `updated ${result.updated.join(', ')}` : '',
    ].filter((x) => x !== '');
    io.stderr.write(`loopledger: ${path}: ${what.join('; ')}${before !== null ? ` (previous file kept as ${path}.bak)` : ''}\n`);
    if (opts.agent === 'codex') {
      const codexHome = io.env['CODEX_HOME'] || join(io.env['HOME'] || homedir(), '.codex');
      io.stderr.write(`${trustCodexHooks(path, result.settings, join(codexHome, 'config.toml'), (h) => isOurs(h, 'codex'))}\n`);
    }
    return 0;
  } catch (e) {
    io.stderr.write(`loopledger hook install: ${path}: ${(e as Error).message}; nothing written\n`);
    return 2;
  }
}
