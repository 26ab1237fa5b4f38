// The guard installed as files of its own (Cline's hooks folder, OpenCode's and Kilo's plugin
// folders, OpenClaw's plugin folder): each file is written whole around the guard's command. A file
// of the same name that `hook install` did not write is the user's, and is never replaced. Where
// the agent loads the files only with entries in its own configuration (OpenClaw), those are added
// too (config-entries.ts).

import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigEntries, FilesInstall } from './contract.js';
import { type EntriesPlan, keyPath, planAdd, readConfig } from './config-entries.js';
import { SettingsError, type SettingsFile, whyNotWritable, writeSettings } from './settings-file.js';
import { writeAtomically } from '../file-in-place.js';
import { type GuardCommand, guardCommand, guardIn, type InstallIO, installHook, type InstallOptions, launcherFor, writtenByUs } from './install.js';
import { type Agent, hookOf } from './payload.js';

type OwnFile =
  | { kind: 'none' }
  | { kind: 'ours'; text: string; command: string; guard: GuardCommand }
  | { kind: 'other'; why: string };

/** What is at `path`: nothing, a file `hook install` wrote (its command), or something else. */
export function readOwnFile(path: string, install: FilesInstall, agent: Agent): OwnFile {
  let text: string;
  try {
    if (!lstatSync(path).isFile()) return { kind: 'other', why: 'not a regular file' };
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'other', why: `cannot read it (${(e as Error).message})` };
  }
  const command = install.commandIn(text);
  const guard = command === null ? null : guardIn(command, agent);
  return command === null || guard === null ? { kind: 'other', why: 'a file of yours' } : { kind: 'ours', text, command, guard };
}

export function ownFile(own: OwnFile): own is Extract<OwnFile, { kind: 'ours' }> {
  return own.kind === 'ours';
}

export function filesDir(install: FilesInstall, scope: 'project' | 'user', env: NodeJS.ProcessEnv, cwd: string): string {
  return scope === 'project' ? install.projectDir(cwd) : install.userDir(env);
}

/** Every guard file in `dir`, with its event and command (for doctor). */
export function installedFiles(dir: string, install: FilesInstall, agent: Agent): { path: string; event: string; command: string }[] {
  return install.files.flatMap(({ name, event }) => {
    const own = readOwnFile(join(dir, name), install, agent);
    return ownFile(own) ? [{ path: join(dir, name), event, command: own.command }] : [];
  });
}

/**
 * Write (or, without `write`, print) each guard file in `dir`. A file there already that is ours
 * is refreshed (its author's launcher kept, as a settings merge keeps it); one that is not stops
 * the install before anything is written. 0 done, 2 refused.
 */
function installFiles(agent: Agent, install: FilesInstall, dir: string, guardArgs: readonly string[], launcher: string, write: boolean, io: InstallIO): number {
  const plans: { path: string; text: string; same: boolean }[] = [];
  for (const { name } of install.files) {
    const path = join(dir, name);
    const own = readOwnFile(path, install, agent);
    if (own.kind === 'other') {
      io.stderr.write(`loopledger hook install: ${path}: ${own.why}, which the guard's file would replace: move it aside (the agent runs one file of this name); nothing written\n`);
      return 2;
    }
    const kept = own.kind === 'ours' && !writtenByUs(own.guard.launcher) ? own.guard.launcher : launcher;
    const text = install.text(guardCommand(kept, agent, guardArgs), name);
    plans.push({ path, text, same: own.kind === 'ours' && own.text === text });
  }
  const entries = install.config === undefined ? null : configPlan(install.config, dir, io);
  if (entries === 'refused') return 2;
  if (!write) {
    for (const p of plans) io.stdout.write(`# ${p.path}\n${p.text}`);
    if (entries?.text != null) io.stdout.write(`# ${entries.file.path}\n${entries.text}`);
    const what = plans.length + (entries?.text != null ? 1 : 0) === 1 ? 'this file' : 'these files';
    io.stderr.write(`loopledger: write ${what} (or run again with --write to write ${what === 'this file' ? 'it' : 'them'})\n`);
    return 0;
  }
  for (const p of plans) {
    if (p.same) {
      io.stderr.write(`loopledger: ${p.path}: the guard is installed already; nothing written\n`);
      continue;
    }
    try {
      writeAtomically(p.path, p.text, install.executable ? 0o755 : 0o644);
    } catch (e) {
      io.stderr.write(`loopledger hook install: ${p.path}: cannot write it (${(e as Error).message})\n`);
      return 2;
    }
    io.stderr.write(`loopledger: ${p.path}: written\n`);
  }
  if (entries?.text != null) {
    try {
      const { backup } = writeSettings(entries.file, entries.text);
      io.stderr.write(`loopledger: ${entries.file.path}: added ${entries.changed.join(', ')}${backup !== null ? ` (previous file kept as ${backup})` : ''}\n`);
    } catch (e) {
      if (!(e instanceof SettingsError)) throw e;
      io.stderr.write(`loopledger hook install: ${entries.file.path}: ${e.message}: add ${entries.changed.join(', ')} by hand (without --write, install prints the file with them)\n`);
      return 2;
    }
  }
  return 0;
}

/**
 * What the agent's configuration needs for it to load the files written in `dir` (checked before
 * any file is written): the new text, or 'refused' (said why) when it cannot be read or edited.
 */
function configPlan(config: ConfigEntries, dir: string, io: InstallIO): EntriesPlan | 'refused' {
  const path = config.file(io.env);
  const refuse = (why: string) => {
    const wanted = config.entries(dir).map((e) => `${keyPath(e)}${e.item === true ? ' (a list) holding ' : ': '}${JSON.stringify(e.value)}`).join('; ');
    io.stderr.write(`loopledger hook install: ${path}: ${why}; nothing written (the agent loads the guard with ${wanted})\n`);
    return 'refused' as const;
  };
  let file: SettingsFile;
  try {
    file = readConfig(config, io.env);
  } catch (e) {
    if (!(e instanceof SettingsError)) throw e;
    return refuse(e.message);
  }
  const plan = planAdd(file, config.entries(dir));
  if (plan === null) return refuse('its entries cannot be added by editing around what is there');
  if (plan.text !== null) {
    const why = whyNotWritable(file);
    if (why !== null) return refuse(why);
  }
  for (const line of plan.kept) io.stderr.write(`loopledger: ${path}: ${line}\n`);
  const blocked = config.blocked(file.value);
  if (blocked !== null) io.stderr.write(`loopledger: ${path}: ${blocked}\n`);
  return plan;
}

/**
 * `loopledger hook install …` for any agent: into its settings file (install.ts), or as its own
 * files. After a write, `afterWrite` checks the installed command runs.
 */
export async function installGuard(opts: InstallOptions, io: InstallIO, afterWrite?: () => Promise<void>): Promise<number> {
  const install = hookOf(opts.agent).install;
  if (install.kind === 'settings') return installHook(opts, io, afterWrite);
  const launcher = launcherFor(io.env);
  if (launcher.note !== null) io.stderr.write(`loopledger: ${launcher.note}\n`);
  const code = installFiles(opts.agent, install, filesDir(install, opts.scope, io.env, io.cwd), opts.guardArgs, launcher.command, opts.write, io);
  if (code === 0 && opts.write) await afterWrite?.();
  return code;
}
