// Whether a guard command in an agent's settings is one `hook install` of this installation
// writes, byte for byte. `hook doctor` runs only those: a settings file can come with a cloned
// repository, and a command that merely looks like the guard (`./tools/loopledger hook codex`,
// `loopledger hook codex; curl … | sh`) is that repository's to run, not the doctor's.

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, resolve } from 'node:path';
import { MODES } from '../vocabulary.js';
import { guardCommand, guardIn, LAUNCHER, realpathOrNull } from './install.js';
import type { Agent } from './payload.js';
import { shellWords, shQuote } from './shell.js';

export type Provenance =
  | { kind: 'ours' }
  /** This installation's launcher, with more than install writes (a tail, other arguments). */
  | { kind: 'modified'; why: string }
  | { kind: 'foreign' }
  /** A bare `loopledger` with none on the PATH: it would not run at all. */
  | { kind: 'not-found' };

/**
 * The launchers (the words before `hook <agent>`) an install of this installation writes in some
 * environment: this launcher by its path, after this node or not, and a bare `loopledger` when
 * that is the name the agent's shell finds on the PATH.
 */
function ownLaunchers(env: NodeJS.ProcessEnv, cwd: string): Set<string> {
  const launchers = new Set([LAUNCHER, realpathOrNull(LAUNCHER) ?? LAUNCHER]);
  const nodes = new Set([process.execPath, realpathOrNull(process.execPath) ?? process.execPath]);
  const out = new Set<string>();
  for (const l of launchers) {
    out.add(shQuote(l));
    for (const n of nodes) out.add(`${shQuote(n)} ${shQuote(l)}`);
  }
  if (isThisLauncher('loopledger', env, cwd)) out.add('loopledger');
  return out;
}

/**
 * The `name` the agent's shell runs: the first on the PATH, every entry as the shell reads it (an
 * empty or relative one is a folder of the project it starts in), so a repository's own `bin/`
 * early on the PATH is what it finds, not a later installation.
 */
function firstOnPath(name: string, env: NodeJS.ProcessEnv, cwd: string): string | null {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    const candidate = resolve(cwd, dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not there, or not runnable: the shell goes on to the next folder.
    }
  }
  return null;
}

function isThisLauncher(word: string, env: NodeJS.ProcessEnv, cwd: string): boolean {
  const path = word === 'loopledger' ? firstOnPath('loopledger', env, cwd) : isAbsolute(word) ? word : null;
  const ours = realpathOrNull(LAUNCHER);
  return path !== null && ours !== null && realpathOrNull(path) === ours;
}

/** The guard's arguments exactly as `guardArgsFrom` writes them: its order, absolute paths. */
function installArguments(args: readonly string[]): boolean {
  let i = 0;
  if (args[i] === '--mode' && (MODES as readonly string[]).includes(args[i + 1] ?? '')) i += 2;
  if (args[i] === '--state-dir' && isAbsolute(args[i + 1] ?? '')) i += 2;
  if (args[i] === '--config' && isAbsolute(args[i + 1] ?? '')) i += 2;
  return i === args.length;
}

export function provenance(command: string, agent: Agent, env: NodeJS.ProcessEnv, cwd: string): Provenance {
  const guard = guardIn(command, agent);
  if (guard === null) return { kind: 'foreign' };
  const exact = guard.tail === '' && installArguments(guard.args) && guardCommand(guard.launcher, agent, guard.args) === command;
  if (exact && ownLaunchers(env, cwd).has(guard.launcher)) return { kind: 'ours' };
  if (guard.launcher === 'loopledger' && firstOnPath('loopledger', env, cwd) === null) return { kind: 'not-found' };
  const word = shellWords(guard.launcher)?.words.at(-1)?.value ?? '';
  if (!isThisLauncher(word, env, cwd)) return { kind: 'foreign' };
  const why = guard.tail.trim() !== '' ? `\`${guard.tail.trim()}\` after the guard` : exact ? 'something before the launcher' : 'arguments or quoting install does not write';
  return { kind: 'modified', why };
}
