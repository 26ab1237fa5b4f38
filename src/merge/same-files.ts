// The same file given by more than one shard (a shard pushed twice, a file named by two paths) is
// counted once; the same path with other content is refused. Cheap keys (likeness, path key) find
// the few files that may meet, and only those are fingerprinted.

import { createHash } from 'node:crypto';
import type { InputSummary } from '../formats/input.js';
import type { NotTranscriptFile, SessionLedger } from '../ledger/types.js';
import { compareCodePoints } from '../read/discover.js';
import { MergeError } from './shard-checks.js';
import type { ShardStore } from './shard-store.js';

/** One file as a ledger gave it (its input line; its sessions are the store's). */
interface FileEntry {
  file: number;
  input: InputSummary;
  /** The ledger that gave this file first, and the others that gave it again (by whatever path). */
  from: string;
  again?: string[];
  print?: string;
}

function givenBy(f: FileEntry, ledger: string): boolean {
  return f.from === ledger || (f.again?.includes(ledger) ?? false);
}

function givenAgain(f: FileEntry, ledger: string): void {
  if (!givenBy(f, ledger)) (f.again ??= []).push(ledger);
}

/**
 * What a file gave, path aside: its input's counts and its sessions (ids, entries, money), each
 * without the path (and the project, which a path spelled otherwise may name otherwise).
 */
function fingerprint(f: FileEntry, store: ShardStore): string {
  if (f.print === undefined) {
    const hash = createHash('sha256');
    const { path: _input, ...input } = f.input;
    hash.update(JSON.stringify(input));
    // Only files alike in their likeness are compared: their sessions are read back for it.
    for (const s of Array.from(store.sessionsOf(f.file))) {
      const { path: _path, project: _project, ...rest } = store.load(s);
      hash.update('\n').update(JSON.stringify(rest));
    }
    f.print = hash.digest('hex');
  }
  return f.print;
}

/**
 * Cheap to compute, and equal whenever the fingerprints are: only files alike in it are hashed.
 * Kept as 48 bits of a hash, not the text (a merge keeps one per file): files that only collide
 * are told apart by their fingerprints. `idHashes`: its sessions' sessionIdHash, in order.
 */
export function likenessOf(input: InputSummary, idHashes: Iterable<number>): number {
  const hash = createHash('sha256').update([input.format, input.lines, input.sessions, input.skipped_lines, input.error ?? ''].join('\u0000'));
  for (const h of idHashes) hash.update(`\u0000${h}`);
  return hash.digest().readUIntBE(0, 6);
}

/** 52 bits of two FNV-like hashes of a path: equal paths have equal keys (filesThatMayMeet compares those). */
export function pathKeyOf(path: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff);
}

/** Which of the keys occur more than once, as marks on the first `marked.length` of them. */
function markRepeated(keys: Float64Array, marked: Uint8Array): void {
  const order = new Uint32Array(keys.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((a, b) => keys[a]! - keys[b]!);
  for (let i = 1; i < order.length; i++) {
    const a = order[i - 1]!;
    const b = order[i]!;
    if (keys[a] !== keys[b]) continue;
    if (a < marked.length) marked[a] = 1;
    if (b < marked.length) marked[b] = 1;
  }
}

/**
 * The files that may meet another: those whose path key or likeness is another file's (or whose
 * path key is a no-transcript's), and the no-transcripts whose path key is a file's or another's.
 * Every other one is alone, in FileSet as out of it: it is kept as it is, and FileSet holds only
 * these (none, in a merge of disjoint shards).
 */
export function filesThatMayMeet(store: ShardStore): { files: Uint8Array; others: Uint8Array } {
  const n = store.fileCount;
  const m = store.notTranscriptCount;
  const marked = new Uint8Array(n + m);
  const likenesses = new Float64Array(n);
  for (let f = 0; f < n; f++) likenesses[f] = store.likeness(f);
  markRepeated(likenesses, marked.subarray(0, n));
  const paths = new Float64Array(n + m);
  for (let f = 0; f < n; f++) paths[f] = store.pathKey(f);
  for (let o = 0; o < m; o++) paths[n + o] = store.notTranscriptKey(o);
  markRepeated(paths, marked);
  return { files: marked.subarray(0, n), others: marked.subarray(n) };
}

/**
 * The files of every ledger that may meet another (filesThatMayMeet), each counted once. A file is
 * known by what it gave, not by how its path was spelled: the same file given again (pushed twice,
 * or named by an absolute path in one run and a relative one in another) is the same content, and
 * is kept once, under the shorter path (then the one that sorts first). The same path with other
 * content is two runs that disagree: refused, naming both. Two files alike within one ledger are
 * two copies one run counted: both stay.
 */
export class FileSet {
  private readonly byPath = new Map<string, FileEntry>();
  private readonly byLikeness = new Map<number, FileEntry[]>();
  private readonly notTranscripts = new Map<string, { file: NotTranscriptFile; from: string; number: number }>();

  constructor(private readonly store: ShardStore) {}

  /** Files given again: how many, and the first, named in the one note. */
  private repeated = 0;
  private firstRepeat = '';

  private again(what: string): void {
    if (this.repeated++ === 0) this.firstRepeat = what;
  }

  /** One line, not one per file: merging a ledger with itself would otherwise print every path. */
  note(onNote: (message: string) => void): void {
    if (this.repeated === 0) return;
    const more = this.repeated > 1 ? ` (and ${this.repeated - 1} more)` : '';
    onNote(`${this.firstRepeat}${more}: the same content, counted once`);
  }

  addInput(file: number, from: string): void {
    const store = this.store;
    const input = store.input(file);
    const entry: FileEntry = { file, input, from };
    const same = this.byPath.get(input.path);
    if (same !== undefined) {
      if (fingerprint(same, store) !== fingerprint(entry, store)) {
        throw new MergeError(
          `${input.path} is in both ${same.from} and ${from}, and they disagree about it (${disagreement(same, entry, store)}): runs over a file that changed between them, or edited by hand`,
        );
      }
      givenAgain(same, from);
      this.again(`${input.path} is in both ${same.from} and ${from}`);
      return;
    }
    const key = store.likeness(file);
    const alike = this.byLikeness.get(key) ?? [];
    const twin = alike.find((f) => !givenBy(f, from) && fingerprint(f, store) === fingerprint(entry, store));
    if (twin !== undefined) {
      const first = twin.from;
      givenAgain(twin, from);
      this.again(`${input.path} in ${from} is ${twin.input.path} in ${twin.from}, by another name`);
      // Kept under the shorter path (a relative one, as one run names it), then the one that sorts
      // first: the order the ledgers are given in does not matter.
      if (input.path.length < twin.input.path.length || (input.path.length === twin.input.path.length && compareCodePoints(input.path, twin.input.path) < 0)) {
        this.byPath.delete(twin.input.path);
        Object.assign(twin, { file, input, from, print: entry.print });
        if (first !== from) givenAgain(twin, first);
        this.byPath.set(input.path, twin);
      }
      return;
    }
    alike.push(entry);
    this.byLikeness.set(key, alike);
    this.byPath.set(input.path, entry);
  }

  /** The store's no-transcript `number`, `file`. */
  addNotTranscript(number: number, file: NotTranscriptFile, from: string): void {
    const same = this.notTranscripts.get(file.path);
    if (same === undefined) this.notTranscripts.set(file.path, { file, from, number });
    else if (same.file.reason !== file.reason) {
      throw new MergeError(`${file.path} is in both ${same.from} and ${from}, and they disagree about it (${same.file.reason} vs ${file.reason})`);
    }
    if (this.byPath.has(file.path)) throw new MergeError(`${file.path} is a transcript in ${this.byPath.get(file.path)!.from} but no transcript in ${from}`);
  }

  contents(): { files: number[]; notTranscripts: number[] } {
    const files: number[] = [];
    for (const f of this.byPath.values()) {
      files.push(f.file);
      if (this.notTranscripts.has(f.input.path)) {
        throw new MergeError(`${f.input.path} is a transcript in ${f.from} but no transcript in ${this.notTranscripts.get(f.input.path)!.from}`);
      }
    }
    return { files, notTranscripts: Array.from(this.notTranscripts.values(), (n) => n.number) };
  }
}

/** Where two versions of one file first differ, in a few words. */
function disagreement(a: FileEntry, b: FileEntry, store: ShardStore): string {
  const ours = store.sessionsOf(a.file);
  const theirs = store.sessionsOf(b.file);
  if (ours.length !== theirs.length) return `${ours.length} vs ${theirs.length} sessions`;
  for (let i = 0; i < ours.length; i++) {
    const s = store.load(ours[i]!);
    const t = store.load(theirs[i]!);
    if (s.id !== t.id) return `session ${s.id} vs ${t.id}`;
    for (const key of new Set([...Object.keys(s), ...Object.keys(t)])) {
      if (key === 'path' || key === 'project') continue;
      if (JSON.stringify(s[key as keyof SessionLedger]) !== JSON.stringify(t[key as keyof SessionLedger])) return `session ${s.id}: ${key}`;
    }
  }
  return 'its input counts';
}
