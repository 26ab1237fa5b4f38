// `loopledger hook install <agent>`: print the settings entry that runs the guard, or merge it
// into the agent's settings file keeping every hook already there (and a `.bak` of the file).

import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { PACKAGE_ROOT } from '../package-root.js';
import { type Agent, hookOf } from './payload.js';
import type { Rec, SettingsInstall } from './contract.js';
import { editSettingsText } from './jsonc-edit.js';
import { CodexConfigError } from './codex-config.js';
import { FileWriteError, replaceInPlace } from '../file-in-place.js';
import { readSettings, restoreSettings, SettingsError, type SettingsFile, whyNotWritable, writeSettings } from './settings-file.js';
import { shellWords, shQuote } from './shell.js';
import type { HandlerMove, ReviewPlan } from './codex-trust.js';

export type Scope = 'project' | 'user';

export interface InstallOptions {
  agent: Agent;
  scope: Scope;
  write: boolean;
  /** Extra arguments for the guard command (--mode, --state-dir, --config), already absolute. */
  guardArgs: string[];
}

export interface InstallIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The launcher of this installation: bin/loopledger.js in the package that holds this module. */
export const LAUNCHER = join(PACKAGE_ROOT, 'bin', 'loopledger.js');

export function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first `name` on `env.PATH` that can run, as the agent's shell would find it. Folders only
 * this process has are skipped: an empty or relative entry (the working folder, the agent's may
 * differ, and a cloned repository's own `bin/` must not stand for this installation) and
 * `node_modules/.bin`, which npx and `npm run` put first on the PATH of what they start, never on
 * the agent's.
 */
function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!isAbsolute(dir) || /(^|[\\/])node_modules[\\/]\.bin[\\/]?$/.test(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/**
 * A launcher an install of this installation would have written: bare `loopledger`, or words
 * ending in this very launcher file (whichever node runs it).
 */
export function writtenByUs(launcher: string): boolean {
  if (launcher === 'loopledger') return true;
  const last = shellWords(launcher)?.words.at(-1)?.value;
  if (last === undefined || !last.startsWith('/')) return false;
  const real = realpathOrNull(last);
  return real !== null && real === realpathOrNull(LAUNCHER);
}

interface Launcher {
  /** The words before `hook <agent>`, quoted for sh. */
  command: string;
  /** Why it is not plain `loopledger`, for the user. */
  note: string | null;
}

/**
 * How the agent's shell reaches this installation: `loopledger` when that name on the PATH is
 * this very launcher (npm's bin link resolves to it); else the launcher by absolute path, run by
 * the `node` running now unless the PATH's `node` is that one (the launcher's `#!/usr/bin/env
 * node` would pick any other, perhaps one too old).
 */
export function launcherFor(env: NodeJS.ProcessEnv): Launcher {
  const execPath = process.execPath;
  const ours = realpathOrNull(LAUNCHER) ?? LAUNCHER;
  const found = onPath('loopledger', env);
  if (found !== null && realpathOrNull(found) === ours) return { command: 'loopledger', note: null };
  let elsewhere = found === null ? 'no loopledger on the PATH' : `the loopledger on the PATH (${found}) is another installation`;
  // npx runs a package it fetched from its cache, which npm clears when it likes.
  if (/[\\/]_npx[\\/]/.test(ours)) elsewhere += ` (and this installation is in npx's cache, which npm may clear: \`npm install -g loopledger\` gives a lasting one)`;
  const node = onPath('node', env);
  const sameNode = node !== null && realpathOrNull(node) === realpathOrNull(execPath);
  if (sameNode && isExecutableFile(ours)) return { command: shQuote(ours), note: `${elsewhere}: the hook runs this installation by its path` };
  return { command: `${shQuote(execPath)} ${shQuote(ours)}`, note: `${elsewhere}: the hook runs this installation and this node by their paths` };
}

/** The agent's install, which must be into a settings file here. */
function settingsInstall(agent: Agent): SettingsInstall {
  const install = hookOf(agent).install;
  if (install.kind !== 'settings') throw new Error(`${agent}'s guard is installed as files, not in a settings file`);
  return install;
}

/** The `hooks` object this agent needs: each event's one matcher group (or handler) running the guard. */
export function settingsEntry(agent: Agent, guardArgs: readonly string[] = [], launcher = 'loopledger'): Record<string, unknown[]> {
  const install = settingsInstall(agent);
  const handler = install.handler(guardCommand(launcher, agent, guardArgs));
  const hooks: Record<string, unknown[]> = {};
  for (const e of install.events) {
    if (install.nesting === 'handlers') {
      hooks[e.event] = [{ ...handler }];
      continue;
    }
    const group: Record<string, unknown> = {};
    if (e.matcher !== null) group.matcher = e.matcher;
    group.hooks = [{ ...handler }];
    hooks[e.event] = [group];
  }
  return hooks;
}

export function guardCommand(launcher: string, agent: Agent, guardArgs: readonly string[], tail = ''): string {
  const rest = tail === '' || /^\s/.test(tail) ? tail : ` ${tail}`;
  return `${launcher} ${['hook', agent, ...guardArgs].map(shQuote).join(' ')}${rest}`;
}

export interface GuardCommand {
  /** The command's text before `hook`, as its author wrote it (`/opt/ll/bin/loopledger`, `npx loopledger`). */
  launcher: string;
  /** The guard's arguments after `hook <agent>`. */
  args: string[];
  /** A redirection or second command after them, kept as written. */
  tail: string;
}

/** npm's bin name, the launcher file, `npx loopledger@0.3`, a Windows shim. */
const LAUNCHER_WORD = /^loopledger(@[^/\s]*)?(\.[cm]?js|\.cmd)?$/i;

/**
 * What may come before the launcher: programs that run it (node, npx, `pnpm dlx`, env), their
 * options, variable assignments. Anything else (`echo loopledger hook …`) is not a guard.
 */
const RUNNER_WORD = /^(node|nodejs|npx|bunx|bun|pnpx|pnpm|yarn|dlx|exec|env|-.*|[A-Za-z_][A-Za-z0-9_]*=.*)$/;

/**
 * The guard of `agent` in a handler's command, whatever path reaches it: a word naming the
 * launcher, after nothing but what runs it, followed by `hook <agent>`. null for anything else
 * (another agent's guard, `hook doctor`, someone else's hook).
 */
export function guardIn(command: string, agent: Agent): GuardCommand | null {
  const parsed = shellWords(command);
  if (parsed === null) return null;
  const { words, tail } = parsed;
  for (let i = 1; i + 1 < words.length; i++) {
    if (words[i]!.value !== 'hook' || words[i + 1]!.value !== agent) continue;
    const name = words[i - 1]!.value.split('/').at(-1)!;
    if (!LAUNCHER_WORD.test(name)) continue;
    if (!words.slice(0, i - 1).every((w) => RUNNER_WORD.test(w.value.split('/').at(-1)!))) continue;
    return {
      launcher: command.slice(0, words[i]!.start).trimEnd(),
      args: words.slice(i + 2).map((w) => w.value),
      tail: command.slice(tail),
    };
  }
  return null;
}

function handlerCommand(handler: unknown, field: string): string | null {
  if (typeof handler !== 'object' || handler === null) return null;
  const command = (handler as Rec)[field];
  return typeof command === 'string' ? command : null;
}

/** Each event's handler lists: every group's `hooks`, or the event's own list (Copilot CLI). */
function handlerLists(groups: unknown[], nesting: SettingsInstall['nesting']): unknown[][] {
  if (nesting === 'handlers') return [groups];
  return groups.map((g) => (g as { hooks?: unknown } | null)?.hooks).filter((h): h is unknown[] => Array.isArray(h));
}

/** A handler that runs this agent's guard (the user's own handlers beside it are not). */
export function isGuardOf(agent: Agent): (handler: unknown) => boolean {
  const field = settingsInstall(agent).commandField;
  return (handler) => {
    const command = handlerCommand(handler, field);
    return command !== null && guardIn(command, agent) !== null;
  };
}

/** A handler that runs the Codex guard. */
export const isCodexGuard = isGuardOf('codex');

export interface InstalledGuard {
  event: string;
  command: string;
  /** In the agent's unit, as written (undefined: the agent's default). */
  timeout: unknown;
}

/** Every handler in `settings` that runs this agent's guard, event by event. */
export function installedGuards(settings: unknown, agent: Agent): InstalledGuard[] {
  const install = settingsInstall(agent);
  const hooks = (settings as { hooks?: unknown } | null)?.hooks;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) return [];
  const found: InstalledGuard[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const handlers of handlerLists(groups, install.nesting)) {
      for (const h of handlers) {
        const command = handlerCommand(h, install.commandField);
        if (command !== null && guardIn(command, agent) !== null) found.push({ event, command, timeout: (h as Rec)[install.timeoutField] });
      }
    }
  }
  return found;
}

export interface MergeResult {
  settings: Record<string, unknown>;
  added: string[];
  updated: string[];
  /** Events where a second handler of the guard was removed (it would have run the guard twice). */
  deduplicated: string[];
  /** Launchers of the user's own kept in place of ours. */
  keptLaunchers: string[];
  /** Second guards removed (positions as in the file before), and the groups that held only them. */
  removed: { event: string; group: number; handler: number }[];
  removedGroups: { event: string; group: number }[];
  /** Where each handler of an event that lost one was and now is (Codex keys reviews by position). */
  moves: HandlerMove[];
}

class InstallError extends Error {}

/**
 * The guard merged into `existing`: every key, event and hook already there is kept in place.
 * Where the guard runs already, its first handler is updated (the launcher its author wrote
 * stays: `/opt/ll/bin/loopledger` is not rewritten to `loopledger`) and any further one in the
 * same event removed; else the guard's group is appended to the event.
 */
export function settingsWithGuard(
  existing: unknown,
  agent: Agent,
  guardArgs: readonly string[] = [],
  launcher = 'loopledger',
  isOurs: (launcher: string) => boolean = (l) => l === 'loopledger',
): MergeResult {
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
  const install = settingsInstall(agent);
  const flat = install.nesting === 'handlers';
  const entry = settingsEntry(agent, guardArgs, launcher);
  const result: MergeResult = { settings, added: [], updated: [], deduplicated: [], keptLaunchers: [], removed: [], removedGroups: [], moves: [] };
  for (const [event, entryList] of Object.entries(entry)) {
    const given = hooks[event] ?? [];
    if (!Array.isArray(given)) throw new InstallError(`its "hooks.${event}" is not a list`);
    // Handlers listed under the event itself are merged as one group holding them all.
    const list = flat ? [{ hooks: given }] : given;
    const groups = flat ? [{ hooks: entryList }] : entryList;
    const ours = (groups[0] as { hooks: Rec[] }).hooks[0]!;
    let found = false;
    const kept: unknown[] = [];
    const moves: HandlerMove[] = [];
    for (const [g, group] of list.entries()) {
      const handlers = (group as { hooks?: unknown } | null)?.hooks;
      if (!Array.isArray(handlers)) {
        kept.push(group);
        continue;
      }
      const left: unknown[] = [];
      const at: number[] = [];
      for (const [h, handler] of handlers.entries()) {
        const command = handlerCommand(handler, install.commandField);
        const guard = command === null ? null : guardIn(command, agent);
        at.push(guard !== null && found ? -1 : left.length);
        if (guard === null) {
          left.push(handler);
          continue;
        }
        if (found) {
          result.removed.push({ event, group: g, handler: h });
          continue;
        }
        found = true;
        // What an earlier install of this installation wrote (a bare `loopledger`, or this
        // launcher by its path) is refreshed to what works now; anyone else's launcher is kept.
        const launcherKept = isOurs(guard.launcher) ? launcher : guard.launcher;
        if (launcherKept !== launcher && !result.keptLaunchers.includes(launcherKept)) result.keptLaunchers.push(launcherKept);
        left.push({ ...(handler as object), ...ours, [install.commandField]: guardCommand(launcherKept, agent, guardArgs, guard.tail) });
      }
      // A group left with no handler at all was the duplicate's alone.
      const gone = !flat && handlers.length > 0 && left.length === 0;
      if (gone) result.removedGroups.push({ event, group: g });
      for (const [h, to] of at.entries()) moves.push({ event, from: [g, h], to: gone || to < 0 ? null : [kept.length, to] });
      if (!gone) kept.push({ ...(group as object), hooks: left });
    }
    if (moves.some((m) => m.to === null || m.to[0] !== m.from[0] || m.to[1] !== m.from[1])) {
      result.deduplicated.push(event);
      result.moves.push(...moves);
    }
    if (found) result.updated.push(event);
    else {
      kept.push(groups[0]);
      result.added.push(event);
    }
    hooks[event] = flat ? kept.flatMap((g) => (g as { hooks: unknown[] }).hooks) : kept;
  }
  return result;
}

export function settingsPath(agent: Agent, scope: Scope, env: NodeJS.ProcessEnv, cwd: string): string {
  const install = settingsInstall(agent);
  return scope === 'project' ? install.project(cwd) : install.user(env, cwd);
}

export function readAgentSettings(agent: Agent, path: string): SettingsFile {
  return readSettings(path, settingsInstall(agent).comments);
}

/** The guard's own arguments, made absolute: the agent runs the command from its own folder. */
export function guardArgsFrom(opts: { mode?: string; stateDir?: string; config?: string }, cwd: string): string[] {
  const args: string[] = [];
  if (opts.mode !== undefined) args.push('--mode', opts.mode);
  if (opts.stateDir !== undefined) args.push('--state-dir', resolve(cwd, opts.stateDir));
  if (opts.config !== undefined) args.push('--config', resolve(cwd, opts.config));
  return args;
}

function summary(result: MergeResult, file: SettingsFile, backup: string | null, path: string): string {
  const what = [
    result.added.length > 0 ? `added ${result.added.join(', ')}` : '',
    result.updated.length > 0 ? `updated ${result.updated.join(', ')}` : '',
    result.deduplicated.length > 0 ? `removed a second guard from ${result.deduplicated.join(', ')}` : '',
    result.keptLaunchers.length > 0 ? `kept your command ${result.keptLaunchers.join(', ')}` : '',
  ].filter((x) => x !== '');
  if (file.hasComments) what.push('its comments kept');
  const through = file.target !== resolve(path) ? ` (through the link, into ${file.target})` : '';
  return `loopledger: ${path}${through}: ${what.join('; ')}${backup !== null ? ` (previous file kept as ${backup})` : ''}\n`;
}

/**
 * `loopledger hook install …`: print the entry, or merge it into the settings file. 0 done (or
 * nothing to do), 2 when a file cannot be read, merged or written safely: every file it would
 * write (the settings, and Codex's config.toml) is checked first, so a refusal changes none of
 * them (the entry to paste is printed instead). After a write, `afterWrite` checks the
 * installed command runs.
 */
export async function installHook(opts: InstallOptions, io: InstallIO, afterWrite?: (path: string) => Promise<void>): Promise<number> {
  const path = settingsPath(opts.agent, opts.scope, io.env, io.cwd);
  const launcher = launcherFor(io.env);
  const entry = settingsEntry(opts.agent, opts.guardArgs, launcher.command);
  const paste = `${JSON.stringify({ hooks: entry }, null, 2)}\n`;
  if (launcher.note !== null) io.stderr.write(`loopledger: ${launcher.note}\n`);
  if (!opts.write) {
    io.stdout.write(paste);
    io.stderr.write(`loopledger: merge this into ${path} (or run again with --write to merge it there)\n`);
    return 0;
  }
  const refuse = (where: string, why: string, joiner = ': ') => {
    io.stdout.write(paste);
    io.stderr.write(`loopledger hook install: ${where}${joiner}${why}; nothing written\n`);
    return 2;
  };
  let file: SettingsFile;
  let result: MergeResult;
  try {
    file = readAgentSettings(opts.agent, path);
    result = settingsWithGuard(file.value, opts.agent, opts.guardArgs, launcher.command, writtenByUs);
  } catch (e) {
    if (!(e instanceof SettingsError || e instanceof InstallError)) throw e;
    io.stderr.write(`loopledger hook install: ${path}: ${e.message}; nothing written\n`);
    return 2;
  }
  const unchanged = file.text !== null && isDeepStrictEqual(result.settings, file.value);
  // The file's text is edited, never rewritten from its parse: numbers past 2^53, key order,
  // comments and layout stay byte for byte outside the entries the merge changed.
  let text: string | null = null;
  if (!unchanged) {
    // A new project file starts with what the agent wants at its top (Copilot CLI's `version`).
    const fresh = file.text === null && opts.scope === 'project' ? { ...settingsInstall(opts.agent).preamble, ...result.settings } : result.settings;
    text = file.text === null || file.text.trim() === '' ? `${JSON.stringify(fresh, null, 2)}\n` : editSettingsText(file.text, result.settings, result);
    if (text === null) {
      const why = file.hasComments ? 'has comments, which rewriting it would lose, and this change cannot be made by editing around them' : 'cannot be changed by editing its text, and rewriting it whole would not keep it as written';
      return refuse(path, `${why}: merge the entry above into it by hand`, ' ');
    }
    const why = whyNotWritable(file);
    if (why !== null) return refuse(path, why);
  }
  // An agent that runs only hooks its user reviewed (Codex) gets the review of exactly the handler
  // written here, recorded the way the agent fingerprints it.
  let review: ReviewPlan | null = null;
  const reviews = settingsInstall(opts.agent).review;
  if (reviews !== undefined) {
    const ours = settingsInstall(opts.agent).handler(guardCommand(launcher.command, opts.agent, opts.guardArgs));
    try {
      review = reviews.plan(path, result.settings, io, (h) => isDeepStrictEqual(h, ours), isGuardOf(opts.agent), result.moves);
    } catch (e) {
      if (!(e instanceof CodexConfigError || e instanceof FileWriteError)) throw e;
      return refuse(reviews.file(io), e.message);
    }
  }
  let backup: string | null = null;
  if (text !== null) {
    try {
      ({ backup } = writeSettings(file, text));
    } catch (e) {
      if (!(e instanceof SettingsError)) throw e;
      return refuse(path, e.message);
    }
  }
  if (review?.file) {
    try {
      replaceInPlace(review.file, review.text);
    } catch (e) {
      if (!(e instanceof FileWriteError)) throw e;
      // All or nothing: the settings go back to what they were.
      if (text !== null) restoreSettings(file);
      return refuse(review.file.target, e.message);
    }
  }
  io.stderr.write(text === null ? `loopledger: ${path}: the guard is installed already; nothing written\n` : summary(result, file, backup, path));
  if (review !== null) io.stderr.write(`${review.message}\n`);
  await afterWrite?.(path);
  return 0;
}
