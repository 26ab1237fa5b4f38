// Whether a guard command in an agent's settings is one `hook install` of this installation
// writes, byte for byte. `hook doctor` runs only those: a settings file can come with a cloned
// repository, and a command that merely looks like the guard (`./tools/loopledger hook codex`,
// `loopledger hook codex; curl … | sh`) is that repository's to run, not the doctor's.

import { isAbsolute } from 'node:path';
import { MODES } from '../vocabulary.js';
import { guardCommand, guardIn, LAUNCHER, onPath, realpathOrNull } from './install.js';
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
 * that name on the PATH (its absolute folders only) is this launcher.
 */
function ownLaunchers(env: NodeJS.ProcessEnv): Set<string> {
  const launchers = new Set([LAUNCHER, realpathOrNull(LAUNCHER) ?? LAUNCHER]);
  const nodes = new Set([process.execPath, realpathOrNull(process.execPath) ?? process.execPath]);
  const out = new Set<string>();
  for (const l of launchers) {
    out.add(shQuote(l));
    for (const n of nodes) out.add(`${shQuote(n)} ${shQuote(l)}`);
  }
  if (isThisLauncher('loopledger', env)) out.add('loopledger');
  return out;
}

function isThisLauncher(word: string, env: NodeJS.ProcessEnv): boolean {
  const path = word === 'loopledger' ? onPath('loopledger', env) : isAbsolute(word) ? word : null;
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

export function provenance(command: string, agent: Agent, env: NodeJS.ProcessEnv): Provenance {
  const guard = guardIn(command, agent);
  if (guard === null) return { kind: 'foreign' };
  const exact = guard.tail === '' && installArguments(guard.args) && guardCommand(guard.launcher, agent, guard.args) === command;
  if (exact && ownLaunchers(env).has(guard.launcher)) return { kind: 'ours' };
  if (guard.launcher === 'loopledger' && onPath('loopledger', env) === null) return { kind: 'not-found' };
  const word = shellWords(guard.launcher)?.words.at(-1)?.value ?? '';
  if (!isThisLauncher(word, env)) return { kind: 'foreign' };
  const why = guard.tail.trim() !== '' ? `\`${guard.tail.trim()}\` after the guard` : exact ? 'something before the launcher' : 'arguments or quoting install does not write';
  return { kind: 'modified', why };
}
