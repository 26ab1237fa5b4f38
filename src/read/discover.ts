// Paths in, the list of inputs out: files as given, directories searched for transcripts, `-`
// for stdin. Sorted, so that the same arguments always give the same ledger.

import { promises as fs, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import { isConversationDir } from './conversation-dir.js';

export interface DiscoveryError {
  path: string;
  message: string;
}

export interface Discovery {
  /** In processing order; `-` stands for stdin. */
  files: string[];
  /** Paths that cannot be read (the CLI exits 2 naming them). */
  errors: DiscoveryError[];
}

/**
 * What a directory search picks up; a file named explicitly is read whatever its name. `.traj`
 * is SWE-agent's name for its run files, which are JSON documents.
 */
export function isTranscriptName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.endsWith('.jsonl') || lower.endsWith('.json') || lower.endsWith('.traj');
}

export async function discoverInputs(paths: readonly string[]): Promise<Discovery> {
  const files: string[] = [];
  const errors: DiscoveryError[] = [];
  const seen = new Set<string>();
  const add = (path: string) => {
    // The same file named twice (or found both by name and in a directory) is read once.
    const key = path === '-' ? '-' : resolve(path);
    if (seen.has(key)) return;
    seen.add(key);
    files.push(path);
  };
  const visitedDirs = new Set<string>();

  for (const path of paths) {
    if (path === '-') {
      add('-');
      continue;
    }
    let stat;
    try {
      stat = await fs.stat(path);
    } catch (err) {
      errors.push({ path, message: describe(err) });
      continue;
    }
    if (stat.isDirectory()) {
      await walk(path, visitedDirs, add, errors);
    } else {
      // Regular files, but also FIFOs such as `<(zcat log.jsonl.gz)`: read as given.
      add(path);
    }
  }
  files.sort(compareCodePoints);
  errors.sort((a, b) => compareCodePoints(a.path, b.path));
  return { files, errors };
}

async function walk(
  dir: string,
  visited: Set<string>,
  add: (path: string) => void,
  errors: DiscoveryError[],
): Promise<void> {
  // Directories are identified by their real path, so a symlink back up the tree ends here.
  let real: string;
  try {
    real = await fs.realpath(dir);
  } catch (err) {
    errors.push({ path: dir, message: describe(err) });
    return;
  }
  if (visited.has(real)) return;
  visited.add(real);

  let entries: Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (err) {
    errors.push({ path: dir, message: describe(err) });
    return;
  }
  // An OpenHands V1 conversation folder is one transcript, read whole (not file by file).
  if (isConversationDir(entries)) return add(dir);
  entries.sort((a, b) => compareCodePoints(a.name, b.name));
  for (const entry of entries) {
    // Hidden entries (.git, editor state, a corpus's .labels.json) are not transcripts; a hidden
    // path named explicitly is still read.
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      await walk(path, visited, add, errors);
    } else if (entry.isFile()) {
      if (isTranscriptName(entry.name)) add(path);
    } else {
      // Symbolic links, and entries whose type the file system does not report.
      let target;
      try {
        target = await fs.stat(path);
      } catch (err) {
        // A dangling link is only worth a word when its name promises a transcript.
        if (isTranscriptName(entry.name)) errors.push({ path, message: describe(err) });
        continue;
      }
      if (target.isDirectory()) await walk(path, visited, add, errors);
      else if (target.isFile() && isTranscriptName(entry.name)) add(path);
    }
  }
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENOTDIR':
      return 'not a directory';
    default:
      return e?.message ?? String(err);
  }
}

/**
 * Order by Unicode code point. The default sort compares UTF-16 code units, which puts
 * astral characters before U+E000–U+FFFF; code points give the same order as a byte-wise
 * sort of the UTF-8 names (what `LC_ALL=C ls` shows).
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const cx = a.codePointAt(i)!;
    const cy = b.codePointAt(i)!;
    return cx < cy ? -1 : cx > cy ? 1 : 0;
  }
  return a.length - b.length;
}
