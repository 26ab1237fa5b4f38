// `loopledger swep` would otherwise be read as a path named "swep" (analyze is the default
// command) and fail with "no such file or directory". When no such path exists and the word is
// a slip of a command's name, say so.

import { existsSync } from 'node:fs';
import { levenshtein } from '../config/load.js';
import { UsageError } from '../errors.js';

/** The command `word` most likely meant, or null. */
function nearestCommand(word: string, commands: readonly string[]): string | null {
  const w = word.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of commands) {
    const d = levenshtein(w, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  // One or two slips, and never most of the word (`ls` is not `hook`).
  if (best === null || bestDistance === 0 || bestDistance > 2 || bestDistance * 2 >= best.length) return null;
  return best;
}

/** Throws a usage error (exit 2) for a first argument that is no path and a slip of a command. */
export function refuseMistypedCommand(argv: readonly string[], commands: readonly string[]): void {
  const first = argv[0];
  if (first === undefined || first.startsWith('-') || commands.includes(first)) return;
  // A path-looking word is a path, whether or not it exists.
  if (/[/\\.]/.test(first) || existsSync(first)) return;
  const near = nearestCommand(first, commands);
  if (near !== null) {
    throw new UsageError(`unknown command '${first}'; did you mean 'loopledger ${near}'? (no file or directory of that name exists either)`);
  }
}
