// Runs `loopledger hook install` from the built binary the way a user does: from a project
// folder, with a HOME and a PATH of the test's (the PATH of a machine where loopledger is not
// installed, unless a test adds a folder to it).

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { environmentNeedsProcess, ROOT, runBuiltMain } from '../cli/helpers.js';

/** This checkout's launcher: what install writes, by its path, when loopledger is not on the PATH (its folder needs no quoting). */
export const BIN = join(ROOT, 'bin', 'loopledger.js');

/** The system's folders, with node and sh, and no loopledger. */
export const SYSTEM_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');

export interface InstallEnv {
  cwd: string;
  home: string;
  path?: string;
  /** More of the environment (an agent's home variable). */
  env?: Record<string, string>;
}

export function install(args: string[], env: InstallEnv) {
  return hookCommand('install', args, env);
}

/**
 * `loopledger hook <sub> …` from `cwd`, with HOME and PATH as its whole environment: the built
 * `main` called in this worker (the folder is an argument of its, CliIO.cwd), or a process under
 * LOOPLEDGER_TEST_PROCESSES=1. What it writes is the same either way (test/cli/in-worker.test.ts).
 */
export async function hookCommand(sub: string, args: string[], { cwd, home, path = SYSTEM_PATH, env: more = {} }: InstallEnv) {
  mkdirSync(cwd, { recursive: true });
  const env = { HOME: home, PATH: path, XDG_STATE_HOME: join(home, '.state'), ...more };
  const argv = ['hook', sub, ...args];
  if (environmentNeedsProcess(more) === null) {
    const r = await runBuiltMain(argv, env, cwd);
    return { code: r.code, stdout: r.stdout, stderr: r.stderr };
  }
  const r = spawnSync(process.execPath, [BIN, ...argv], { cwd, env, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export type Settings = { hooks: Record<string, { matcher?: string; hooks: { command: string; timeout?: number }[] }[]> } & Record<string, unknown>;

export const commands = (s: Settings, event: string) => (s.hooks[event] ?? []).flatMap((g) => g.hooks.map((h) => h.command));
export const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Settings;
