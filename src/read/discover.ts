// Paths in, the list of inputs out: files as given, directories searched for transcripts, `-`
// for stdin. Sorted, so that the same arguments always give the same ledger.

import { promises as fs, lstatSync, statSync, type Dirent, type Stats } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { isConversationDir } from './conversation-dir.js';
import { isCompanionFile, STORE_DATABASES, STORE_ROOTS, type StoreFolder } from './stores.js';

interface DiscoveryError {
  path: string;
  message: string;
}

export interface Discovery {
  /** In processing order; `-` stands for stdin. */
  files: string[];
  /** Paths named that cannot be read (the CLI exits 2 naming them). */
  errors: DiscoveryError[];
  /**
   * Entries found while walking a folder that cannot be read: a dangling link, a folder or file
   * the user may not read, a FIFO or device with a transcript's name. Counted like files that are
   * no transcript (named with --verbose), never an error: the user did not name them.
   */
  unreadable: DiscoveryError[];
  /** For each file and error path, the path given it was first found under (`--shard` keys on the path relative to it). */
  given: Map<string, string>;
  /** Each file's size in bytes as found (a regular file's; absent for stdin, FIFOs and folders read whole). */
  sizes: Map<string, number>;
}

/**
 * What a directory search picks up; a file named explicitly is read whatever its name. `.traj`
 * is SWE-agent's name for its run files, which are JSON documents.
 */
export function isTranscriptName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.endsWith('.jsonl') || lower.endsWith('.json') || lower.endsWith('.traj');
}

/** Never entered: dependency trees and version-control internals hold no sessions, only bulk. */
const NEVER_ENTERED = new Set(['node_modules', '.git']);

export async function discoverInputs(paths: readonly string[]): Promise<Discovery> {
  const files: string[] = [];
  const errors: DiscoveryError[] = [];
  const unreadable: DiscoveryError[] = [];
  const seen = new Set<string>();
  const given = new Map<string, string>();
  const sizes = new Map<string, number>();
  let current = '';
  const add = (path: string, stat: Stats | null) => {
    // The same file named twice, found both by name and in a directory, or under a second name
    // (a hard link, a symbolic link) is read once: identified by device and inode.
    const key = path === '-' ? '-' : stat !== null ? `${stat.dev}:${stat.ino}` : resolve(path);
    if (seen.has(key)) return;
    seen.add(key);
    files.push(path);
    given.set(path, current);
    if (stat?.isFile()) sizes.set(path, stat.size);
  };
  // A named folder that cannot be read is the user's error; anything under it is only found.
  const problem = (path: string, message: string) => (path === current ? errors : unreadable).push({ path, message });
  const walker = new Walker(add, problem);

  for (const path of paths) {
    current = path;
    const before = [errors.length, unreadable.length] as const;
    await discoverOne(path);
    for (const [list, from] of [[errors, before[0]], [unreadable, before[1]]] as const) {
      for (let i = from; i < list.length; i++) if (!given.has(list[i]!.path)) given.set(list[i]!.path, path);
    }
  }
  files.sort(compareCodePoints);
  errors.sort((a, b) => compareCodePoints(a.path, b.path));
  unreadable.sort((a, b) => compareCodePoints(a.path, b.path));
  return { files, errors, unreadable, given, sizes };

  async function discoverOne(path: string): Promise<void> {
    if (path === '-') {
      add('-', null);
      return;
    }
    let stat;
    try {
      stat = await fs.stat(path);
    } catch (err) {
      errors.push({ path, message: describe(err) });
      return;
    }
    if (stat.isDirectory()) {
      // A directory named explicitly is entered even through a symbolic link (the user chose it);
      // a store root named explicitly (`loopledger ~/.claude`) is read through its store folders.
      const store = STORE_ROOTS[basename(resolve(path))];
      if (store) await walker.storeRoot(path, stat, store.folders);
      else await walker.walk(path, stat);
    } else {
      // Regular files, but also FIFOs such as `<(zcat log.jsonl.gz)`: read as given.
      add(path, stat);
    }
  }
}

/**
 * SPEC "Where sessions are found": hidden entries are skipped except the agents' known stores;
 * `node_modules` and `.git` are never entered; symbolic links to directories are not followed (a
 * link to a file is read); no directory is read twice (identified by device and inode, so a bind
 * mount or a link named explicitly cannot make a loop either).
 */
class Walker {
  private readonly visited = new Set<string>();

  constructor(
    private readonly add: (path: string, stat: Stats | null) => void,
    private readonly problem: (path: string, message: string) => void,
  ) {}

  /** False when this directory was already read. */
  private firstVisit(stat: Stats): boolean {
    const key = `${stat.dev}:${stat.ino}`;
    if (this.visited.has(key)) return false;
    this.visited.add(key);
    return true;
  }

  private async entries(dir: string): Promise<Dirent[] | null> {
    try {
      const entries = await fs.readdir(dir, { withFileTypes: true });
      return entries.sort((a, b) => compareCodePoints(a.name, b.name));
    } catch (err) {
      this.problem(dir, describe(err));
      return null;
    }
  }

  async walk(dir: string, stat: Stats): Promise<void> {
    if (!this.firstVisit(stat)) return;
    const entries = await this.entries(dir);
    if (!entries) return;
    // An OpenHands V1 conversation folder is one transcript, read whole (not file by file).
    if (isConversationDir(entries)) return this.add(dir, stat);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (NEVER_ENTERED.has(entry.name)) continue;
      if (entry.name.startsWith('.')) {
        // Hidden entries (editor state, caches, a corpus's .labels.json) are skipped, except the
        // agents' stores: a home folder given as a path is audited like the stores themselves.
        const store = STORE_ROOTS[entry.name];
        if (store && (entry.isDirectory() || entry.isSymbolicLink())) {
          const target = await statOrNull(path);
          if (target?.isDirectory()) await this.storeRoot(path, target, store.folders);
        }
        continue;
      }
      // Some file systems do not report entry types: ask for the entry's own (not its target's).
      const known = entry.isDirectory() || entry.isFile() || entry.isSymbolicLink() || isSpecial(entry);
      const kind = known ? entry : await this.lstat(path);
      if (!kind) continue;
      if (kind.isDirectory()) {
        const sub = await this.lstat(path);
        if (sub) await this.walk(path, sub);
      } else if (kind.isFile()) {
        if ((isTranscriptName(entry.name) || STORE_DATABASES.has(entry.name)) && !isCompanionFile(dir, entry.name)) {
          const stat = kind === entry ? await this.lstat(path) : (kind as Stats);
          if (stat) this.add(path, stat);
        }
      } else if (kind.isSymbolicLink()) {
        await this.link(path, entry.name);
      } else if (isTranscriptName(entry.name)) {
        // Sockets, FIFOs and devices found in a directory are never read (they could block
        // forever); one named like a transcript is counted, so it is not silently missing.
        this.problem(path, 'not a regular file (a FIFO, socket or device found in a folder is never read)');
      }
    }
  }

  /**
   * A store root (`.claude`, `.codex`, `.gemini`…): only its session folders are read, `*` standing
   * for one level of folders (Gemini CLI keeps one per project under `tmp`, each with its `chats`).
   */
  async storeRoot(root: string, stat: Stats, folders: readonly StoreFolder[]): Promise<void> {
    if (!this.firstVisit(stat)) return;
    for (const folder of folders) await this.storeFolder(root, folder.segments, folder.file, true);
  }

  private async storeFolder(dir: string, segments: readonly string[], file: boolean, first: boolean): Promise<void> {
    const [head, ...rest] = segments;
    if (head === undefined) return;
    if (head === '*') {
      for (const entry of (await this.entries(dir)) ?? []) {
        if (!entry.name.startsWith('.') && entry.isDirectory()) await this.storeFolder(join(dir, entry.name), rest, file, false);
      }
      return;
    }
    const path = join(dir, head);
    // The root's own folders are followed through links, as a user's store may be; deeper ones are not.
    const sub = first ? await statOrNull(path) : await this.lstat(path, true);
    if (rest.length === 0) {
      if (file && sub?.isFile()) this.add(path, sub);
      else if (!file && sub?.isDirectory()) await this.walk(path, sub);
      return;
    }
    if (!sub?.isDirectory()) return;
    if (rest[0] === '*' && !this.firstVisit(sub)) return;
    await this.storeFolder(path, rest, file, false);
  }

  /** A symbolic link: a file behind it is read; a directory behind it is not followed. */
  private async link(path: string, name: string): Promise<void> {
    if (!isTranscriptName(name)) return;
    let target;
    try {
      target = statSync(path);
    } catch (err) {
      // A dangling link is only worth a word when its name promises a transcript.
      this.problem(path, `a symbolic link to nothing readable: ${describe(err)}`);
      return;
    }
    if (target.isFile()) this.add(path, target);
    else if (!target.isDirectory()) this.problem(path, 'a symbolic link to a FIFO, socket or device (never read from a folder)');
  }

  /**
   * Synchronous on purpose: a walk stats every file it finds, and each awaited stat is a round
   * trip through libuv's thread pool (100k files: 1.2 s of stat calls, 25 s of waiting for them).
   */
  private async lstat(path: string, quietWhenMissing = false): Promise<Stats | null> {
    try {
      return lstatSync(path);
    } catch (err) {
      if (!(quietWhenMissing && (err as NodeJS.ErrnoException).code === 'ENOENT')) this.problem(path, describe(err));
      return null;
    }
  }
}

function isSpecial(entry: Dirent): boolean {
  return entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice();
}

async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await fs.stat(path);
  } catch {
    return null;
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
