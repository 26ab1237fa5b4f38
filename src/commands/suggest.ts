// `loopledger swep` would otherwise be read as a path named "swep" (analyze is the default
// command) and fail with "no such file or directory". When no such path exists and the word is
// a slip of a command's name, say so; when it names a part of the configuration (`loopledger
// judge`), point at `--set`; any other bare word is still read as a path, with a hint.

import { existsSync } from 'node:fs';
import { levenshtein } from '../config/load.js';
import { CONFIG_KEYS } from '../config/registry.js';
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

/** `judge`, `tool-batch`, `mode`: a section of the configuration (`judge.*`), or one of its keys. */
function configWord(word: string): { key: string; section: boolean } | null {
  const w = word.toLowerCase().replace(/-/g, '_');
  if (CONFIG_KEYS.some((k) => k.key.startsWith(`${w}.`))) return { key: w, section: true };
  if (CONFIG_KEYS.some((k) => k.key === w)) return { key: w, section: false };
  return null;
}

/**
 * For a first argument that is no path: throws a usage error (exit 2) when it is a slip of a
 * command or names a part of the configuration; returns a hint to print when it is some other
 * bare word (it is then read as the path it may be meant as, and reported missing as one).
 */
export function refuseMistypedCommand(argv: readonly string[], commands: readonly string[]): string | null {
  const first = argv[0];
  // `help` is commander's own command, never listed among the program's.
  if (first === undefined || first.startsWith('-') || first === 'help' || commands.includes(first)) return null;
  // A path-looking word is a path, whether or not it exists.
  if (/[/\\.]/.test(first) || existsSync(first)) return null;
  const near = nearestCommand(first, commands);
  if (near !== null) {
    throw new UsageError(`unknown command '${first}'; did you mean 'loopledger ${near}'? (no file or directory of that name exists either)`);
  }
  const config = configWord(first);
  if (config !== null) {
    const set = config.section ? `--set ${config.key}.KEY=VALUE` : `--set ${config.key}=VALUE`;
    const list = config.section ? `the ${config.key}.* keys with their values` : 'its value';
    const example = config.key === 'judge' ? ' (loopledger runs/ --set judge.endpoint=URL --set judge.model=NAME)' : '';
    throw new UsageError(
      `'${first}' is no command, nor a file or directory: ${config.key} is configured with ${set}${example}; ` +
        `loopledger config lists ${list}`,
    );
  }
  if (/^[a-z][a-z-]{0,23}$/i.test(first)) {
    return `'${first}' is read as a path: it is no command (the commands are ${commands.join(', ')}; loopledger --help)`;
  }
  return null;
}
