// `loopledger hook uninstall <agent>`: remove the guard's handlers from the agent's settings file
// (a group, an event or `hooks` itself goes too once the guard's removal leaves it empty), or the
// guard's own files. The file's text is edited, never rewritten from its parse: every byte outside
// the removed entries stays. Without --write it says what it would remove.

import { rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ConfigEntries, ConfigEntry, FilesInstall, Rec, SettingsInstall } from './contract.js';
import { type EntriesPlan, planRemove, readConfig } from './config-entries.js';
import { applyEdits, type Insertion, type JsonNode, parseSpans, removeItems } from './jsonc-edit.js';
import { type InstallIO, isGuardOf, readAgentSettings, type Scope, settingsPath } from './install.js';
import { filesDir, installedFiles, ownFile, readOwnFile } from './install-files.js';
import { type Agent, hookOf } from './payload.js';
import { SettingsError, type SettingsFile, stripComments, whyNotWritable, writeSettings } from './settings-file.js';

/** The settings without the guard's handlers, and how many were removed. */
function withoutGuards(settings: Rec, install: SettingsInstall, isGuard: (h: unknown) => boolean): { settings: Rec; removed: number } {
  const hooks = settings.hooks;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) return { settings, removed: 0 };
  let removed = 0;
  const kept: Rec = {};
  for (const [event, list] of Object.entries(hooks as Rec)) {
    if (!Array.isArray(list)) {
      kept[event] = list;
      continue;
    }
    const left: unknown[] = [];
    for (const entry of list) {
      if (install.nesting === 'handlers') {
        if (isGuard(entry)) removed++;
        else left.push(entry);
        continue;
      }
      const handlers = (entry as { hooks?: unknown } | null)?.hooks;
      if (!Array.isArray(handlers)) {
        left.push(entry);
        continue;
      }
      const rest = handlers.filter((h) => !isGuard(h));
      removed += handlers.length - rest.length;
      if (rest.length === handlers.length) left.push(entry);
      else if (rest.length > 0) left.push({ ...(entry as object), hooks: rest });
    }
    if (left.length > 0 || list.length === 0) kept[event] = left;
  }
  const out = { ...settings, hooks: kept };
  if (Object.keys(kept).length === 0 && Object.keys(hooks).length > 0) delete (out as Rec).hooks;
  return { settings: out, removed };
}

/** The text edits that remove the guard's handlers (and what they leave empty), or null when one would touch a comment. */
function removalEdits(text: string, install: SettingsInstall, isGuard: (h: unknown) => boolean): Insertion[] | null {
  const { json } = stripComments(text);
  const root = parseSpans(json);
  const value = (node: JsonNode): unknown => JSON.parse(json.slice(node.start, node.end));
  const hooksMember = root.members.findIndex((m) => m.key === 'hooks');
  const hooksNode = root.members[hooksMember]?.value;
  if (hooksNode?.kind !== 'object') return [];
  const edits: Insertion[] = [];
  const goneEvents: number[] = [];
  for (const [e, member] of hooksNode.members.entries()) {
    const list = member.value;
    if (list.kind !== 'array' || list.items.length === 0) continue;
    const goneEntries: number[] = [];
    for (const [g, entry] of list.items.entries()) {
      if (install.nesting === 'handlers') {
        if (isGuard(value(entry))) goneEntries.push(g);
        continue;
      }
      const handlers = entry.members.find((m) => m.key === 'hooks')?.value;
      if (handlers?.kind !== 'array') continue;
      const gone = handlers.items.flatMap((h, i) => (isGuard(value(h)) ? [i] : []));
      if (gone.length === 0) continue;
      if (gone.length === handlers.items.length) goneEntries.push(g);
      else {
        const cut = removeItems(text, json, handlers.items, gone);
        if (cut === null) return null;
        edits.push(...cut);
      }
    }
    if (goneEntries.length === list.items.length) goneEvents.push(e);
    else if (goneEntries.length > 0) {
      const cut = removeItems(text, json, list.items, goneEntries);
      if (cut === null) return null;
      edits.push(...cut);
    }
  }
  const spans = (members: JsonNode['members']) => members.map((m) => ({ start: m.keyStart, end: m.value.end }));
  const cut = goneEvents.length > 0 && goneEvents.length === hooksNode.members.length
    ? removeItems(text, json, spans(root.members), [hooksMember])
    : goneEvents.length > 0 ? removeItems(text, json, spans(hooksNode.members), goneEvents) : [];
  if (cut === null) return null;
  return [...edits, ...cut];
}

/** The settings file's text without the guard, or null when it cannot be edited so. */
export function uninstallText(file: SettingsFile, install: SettingsInstall, isGuard: (h: unknown) => boolean): string | null {
  if (file.text === null) return null;
  const want = withoutGuards(file.value as Rec, install, isGuard).settings;
  const edits = removalEdits(file.text, install, isGuard);
  return edits === null ? null : applyEdits(file.text, edits, want);
}

export interface UninstallOptions {
  agent: Agent;
  scope: Scope;
  write: boolean;
}

/** `loopledger hook uninstall …`: 0 done or nothing to remove, 2 when a file cannot be read or edited safely. */
export function uninstallHook(opts: UninstallOptions, io: InstallIO): number {
  const install = hookOf(opts.agent).install;
  if (install.kind === 'files') return uninstallFiles(opts, install, io);
  const path = settingsPath(opts.agent, opts.scope, io.env, io.cwd);
  const isGuard = isGuardOf(opts.agent);
  let file: SettingsFile;
  try {
    file = readAgentSettings(opts.agent, path);
  } catch (e) {
    if (!(e instanceof SettingsError)) throw e;
    io.stderr.write(`loopledger hook uninstall: ${path}: ${e.message}; nothing written\n`);
    return 2;
  }
  const { removed } = file.text === null ? { removed: 0 } : withoutGuards(file.value as Rec, install, isGuard);
  if (removed === 0) {
    io.stderr.write(`loopledger: ${path}: no loopledger guard for ${opts.agent} there; nothing to remove\n`);
    return 0;
  }
  const text = uninstallText(file, install, isGuard);
  if (text === null) {
    io.stderr.write(`loopledger hook uninstall: ${path}: the guard's entries cannot be removed by editing around the comments in them: remove the handlers running \`loopledger hook ${opts.agent}\` by hand; nothing written\n`);
    return 2;
  }
  if (!opts.write) {
    io.stdout.write(text);
    io.stderr.write(`loopledger: ${path} without the guard's ${removed} handler(s) is above (run again with --write to write it there)\n`);
    return 0;
  }
  const why = whyNotWritable(file);
  if (why !== null) {
    io.stderr.write(`loopledger hook uninstall: ${path}: ${why}; nothing written\n`);
    return 2;
  }
  try {
    const { backup } = writeSettings(file, text);
    io.stderr.write(`loopledger: ${path}: removed the guard's ${removed} handler(s)${backup !== null ? ` (previous file kept as ${backup})` : ''}\n`);
  } catch (e) {
    if (!(e instanceof SettingsError)) throw e;
    io.stderr.write(`loopledger hook uninstall: ${path}: ${e.message}; nothing written\n`);
    return 2;
  }
  return 0;
}

function uninstallFiles(opts: UninstallOptions, install: FilesInstall, io: InstallIO): number {
  const dir = opts.scope === 'project' ? install.projectDir(io.cwd) : install.userDir(io.env);
  let found = 0;
  for (const { name } of install.files) {
    const path = join(dir, name);
    const own = readOwnFile(path, install, opts.agent);
    if (!ownFile(own)) {
      if (own.kind === 'other') io.stderr.write(`loopledger: ${path}: not a file \`hook install ${opts.agent}\` writes; kept\n`);
      continue;
    }
    found++;
    if (!opts.write) {
      io.stderr.write(`loopledger: would remove ${path} (run again with --write to remove it)\n`);
      continue;
    }
    try {
      rmSync(path);
      io.stderr.write(`loopledger: removed ${path}\n`);
    } catch (e) {
      io.stderr.write(`loopledger hook uninstall: ${path}: cannot remove it (${(e as Error).message})\n`);
      return 2;
    }
  }
  if (found === 0) io.stderr.write(`loopledger: no loopledger guard for ${opts.agent} in ${dir}; nothing to remove\n`);
  else if (install.ownDir === true && opts.write) {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty: a file the user put there keeps it.
    }
  }
  if (install.config === undefined) return 0;
  // The other scope's guard, still installed, keeps the entries both need (OpenClaw's plugin entry).
  const other = filesDir(install, opts.scope === 'project' ? 'user' : 'project', io.env, io.cwd);
  const kept = other !== dir && installedFiles(other, install, opts.agent).length > 0 ? install.config.entries(other) : [];
  const entries = install.config.entries(dir).filter((e) => !kept.some((k) => isDeepStrictEqual(k, e)));
  return uninstallEntries(install.config, entries, opts.write, io);
}

/** `entries` taken back from the agent's configuration (those still as install wrote them). */
function uninstallEntries(config: ConfigEntries, entries: readonly ConfigEntry[], write: boolean, io: InstallIO): number {
  const path = config.file(io.env);
  let plan: EntriesPlan | null;
  try {
    plan = planRemove(readConfig(config, io.env), entries);
  } catch (e) {
    if (!(e instanceof SettingsError)) throw e;
    io.stderr.write(`loopledger hook uninstall: ${path}: ${e.message}; its entries for the guard left as they are\n`);
    return 2;
  }
  if (plan === null) {
    io.stderr.write(`loopledger hook uninstall: ${path}: the guard's entries cannot be removed by editing around the comments in them: remove them by hand; nothing written\n`);
    return 2;
  }
  for (const line of plan.kept) io.stderr.write(`loopledger: ${path}: ${line}\n`);
  if (plan.text === null) return 0;
  if (!write) {
    io.stdout.write(plan.text);
    io.stderr.write(`loopledger: ${path} without ${plan.changed.join(', ')} is above (run again with --write to write it there)\n`);
    return 0;
  }
  const why = whyNotWritable(plan.file);
  if (why !== null) {
    io.stderr.write(`loopledger hook uninstall: ${path}: ${why}; nothing written\n`);
    return 2;
  }
  try {
    const { backup } = writeSettings(plan.file, plan.text);
    io.stderr.write(`loopledger: ${path}: removed ${plan.changed.join(', ')}${backup !== null ? ` (previous file kept as ${backup})` : ''}\n`);
  } catch (e) {
    if (!(e instanceof SettingsError)) throw e;
    io.stderr.write(`loopledger hook uninstall: ${path}: ${e.message}; nothing written\n`);
    return 2;
  }
  return 0;
}
