// A merge's spill: the sessions and inputs it read, one NDJSON line each in a temporary file, and
// what it keeps in memory of them (a few numbers each). The formats read them back from here as
// they iterate them, and sort here what they rank (Spill.sorter), so that a merge of any size holds
// one whole session or input, and one run of a sort, at a time.

import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InputSummary } from '../formats/input.js';
import type { NotTranscriptFile, SessionLedger } from '../ledger/types.js';
import { FORMAT_NAMES } from '../model/transcript.js';
import { compareCodePoints } from '../read/discover.js';
import { ENFORCE_LEVELS, type EnforceLevel, LEVEL_RANK } from '../vocabulary.js';
import type { InputsSeen } from './ledger-check.js';
import { likenessOf, pathKeyOf } from './same-files.js';
import { type ShardStore, sessionIdHash } from './shard-store.js';
import { ThinSessions } from './thin-sessions.js';

export const SPILL_PREFIX = 'loopledger-merge.';
export const SPILL_SUFFIX = '.ndjson';

interface SpillOptions {
  /** Removes the file should a signal end the run; returns what undoes that (commands/output.ts removeOnSignal). */
  removeOnSignal?: (file: string) => () => void;
  /** A sort's runs: how many characters of lines each, interleaved how many at a time. */
  sorting?: { runChars: number; fanIn: number };
}

/**
 * Sessions and inputs as a merge read them, one NDJSON line each in a temporary file of ours
 * (removed at the end, at exit and on SIGINT/SIGTERM/SIGHUP). Memory keeps a few numbers per
 * session and per file (where its line is, a hash, its exit code's level): a merge holds one whole
 * session or input at a time. For the formats with an overview, each session's thin version is a
 * line of its own, copied in the merged order once (thinInOrder), and what they sort is sorted in
 * runs appended to the same file (sort).
 */
export class Spill implements ShardStore {
  private readonly file = join(tmpdir(), `${SPILL_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}${SPILL_SUFFIX}`);
  private fd: number | null = null;
  private size = 0;
  private pending: string[] = [];
  private pendingChars = 0;
  private release: (() => void) | null = null;
  private readonly onExit = () => this.close();

  // Per session: where its line is, a hash of its id, its highest level (GATE_LEVELS' index) and, with an overview, where its thin line is.
  private readonly sessionAt = new NumberList(Float64Array);
  private readonly sessionBytes = new NumberList(Uint32Array);
  private readonly idHashes = new NumberList(Uint32Array);
  private readonly gates = new NumberList(Uint8Array);
  private readonly thinAt = new NumberList(Float64Array);
  private readonly thinBytes = new NumberList(Uint32Array);
  // Per file: where its input line is, its likeness, its path's key, and its sessions (fileSessions from `sessionsFrom`, `sessionCount` of them).
  private readonly inputAt = new NumberList(Float64Array);
  private readonly inputBytes = new NumberList(Uint32Array);
  private readonly likenesses = new NumberList(Float64Array);
  private readonly pathKeys = new NumberList(Float64Array);
  /** The ledgers whose files are not in path order, by their first file. */
  private readonly unordered = new Set<number>();
  private readonly sessionsFrom = new NumberList(Uint32Array);
  private readonly sessionCount = new NumberList(Uint32Array);
  private readonly fileSessions = new NumberList(Uint32Array);
  // Per file that is no transcript: where its line is, its path's key; the ledgers whose are not in path order, by their first.
  private readonly otherAt = new NumberList(Float64Array);
  private readonly otherBytes = new NumberList(Uint32Array);
  private readonly otherKeys = new NumberList(Float64Array);
  private readonly unorderedOthers = new Set<number>();
  /** The thin versions read back (from thinInOrder or a sort): their sessions, for whole(). */
  private readonly numbers = new WeakMap<object, number>();

  /**
   * `overview`: put each session's thin version aside too, with what the reports' overviews read
   * (ThinSessions), for formats that rank and count them. Without, json and ndjson read each
   * session back once, whole, in order. `removeOnSignal` is the command's (commands/output.ts):
   * it arranges the file's removal when a signal ends the run, and returns what undoes that.
   */
  constructor(overview: boolean, options: SpillOptions = {}) {
    this.thinSessions = overview ? new ThinSessions() : null;
    this.sorting = options.sorting ?? { runChars: SORT_RUN_CHARS, fanIn: SORT_FAN_IN };
    this.removeOnSignal = options.removeOnSignal ?? null;
  }

  private readonly sorting: { runChars: number; fanIn: number };
  private readonly removeOnSignal: ((file: string) => () => void) | null;

  private readonly thinSessions: ThinSessions | null;

  get sessionTotal(): number {
    return this.sessionAt.length;
  }

  get fileCount(): number {
    return this.inputAt.length;
  }

  /** The session put aside: its number. */
  add(session: SessionLedger): number {
    const n = this.sessionAt.length;
    const [at, bytes] = this.write(JSON.stringify(session));
    this.sessionAt.push(at);
    this.sessionBytes.push(bytes);
    this.idHashes.push(sessionIdHash(session.id));
    this.gates.push(gateOf(session));
    if (this.thinSessions !== null) {
      // With its number, as the lines a sort writes are: read back, it still finds its whole session.
      const [thinAt, thinBytes] = this.write(JSON.stringify([n, this.thinSessions.of(session)]));
      this.thinAt.push(thinAt);
      this.thinBytes.push(thinBytes);
    }
    return n;
  }
  get notTranscriptCount(): number {
    return this.otherAt.length;
  }

  /** A checked no-transcript put aside: its number. */
  addNotTranscript(file: NotTranscriptFile): number {
    const [at, bytes] = this.write(JSON.stringify(file));
    this.otherAt.push(at);
    this.otherBytes.push(bytes);
    this.otherKeys.push(pathKeyOf(file.path));
    return this.otherAt.length - 1;
  }

  /** A ledger's no-transcripts, `from` up to `to`, are not listed in code point order of their paths. */
  notInPathOrder(others: { from: number; to: number }): void {
    this.unorderedOthers.add(others.from);
  }

  notTranscript(n: number): NotTranscriptFile {
    return this.read(this.otherAt.get(n), this.otherBytes.get(n)) as NotTranscriptFile;
  }

  notTranscriptKey(n: number): number {
    return this.otherKeys.get(n);
  }

  notTranscriptsInPathOrder(others: { from: number; to: number }): boolean {
    return !this.unorderedOthers.has(others.from);
  }

  /** A checked input put aside: its file's number. */
  addInput(input: InputSummary): number {
    const [at, bytes] = this.write(JSON.stringify(input));
    this.inputAt.push(at);
    this.inputBytes.push(bytes);
    this.pathKeys.push(pathKeyOf(input.path));
    return this.inputAt.length - 1;
  }

  /**
   * A checked ledger's files (`files`, whose paths `inputs` holds in order) given their sessions
   * (`firstSession` on, with these paths, in order), grouped by file in their order: its files.
   */
  addFiles(files: { from: number; to: number }, inputs: InputsSeen, firstSession: number, sessionPaths: readonly string[]): { from: number; to: number } {
    const n = files.to - files.from;
    // Grouped by a count per file, then each session placed: their order within a file is kept.
    const counts = new Uint32Array(n);
    for (const path of sessionPaths) {
      const i = inputs.places.get(path);
      if (i !== undefined) counts[i]! += 1;
    }
    const starts = new Uint32Array(n);
    let next = this.fileSessions.length;
    for (let i = 0; i < n; i++) {
      starts[i] = next;
      next += counts[i]!;
    }
    this.fileSessions.resize(next);
    const placed = starts.slice();
    sessionPaths.forEach((path, j) => {
      const i = inputs.places.get(path);
      if (i !== undefined) this.fileSessions.set(placed[i]!++, firstSession + j);
    });
    for (let i = 0; i < n; i++) {
      this.sessionsFrom.push(starts[i]!);
      this.sessionCount.push(counts[i]!);
      if (i > 0 && compareCodePoints(inputs.paths[i - 1]!, inputs.paths[i]!) >= 0) this.unordered.add(files.from);
      const own = this.fileSessions.view(starts[i]!, starts[i]! + counts[i]!);
      this.likenesses.push(likenessOf(this.input(files.from + i), Array.from(own, (s) => this.idHashes.get(s))));
    }
    return files;
  }

  /** Read back: a merge keeps no path per file (keptInPathOrder reads each once). */
  path(file: number): string {
    return this.input(file).path;
  }

  pathKey(file: number): number {
    return this.pathKeys.get(file);
  }

  inPathOrder(files: { from: number; to: number }): boolean {
    return !this.unordered.has(files.from);
  }

  /** A file's input line, read back (its format's name and an empty skipped list shared, as read). */
  input(file: number): InputSummary {
    const input = this.read(this.inputAt.get(file), this.inputBytes.get(file)) as InputSummary;
    shareInputStrings([input]);
    return input;
  }

  likeness(file: number): number {
    return this.likenesses.get(file);
  }

  sessionsOf(file: number): ArrayLike<number> {
    const from = this.sessionsFrom.get(file);
    return this.fileSessions.view(from, from + this.sessionCount.get(file));
  }

  /** Its thin version read back; without (json, ndjson), the whole session, which holds all it does. */
  thin(session: number): SessionLedger {
    if (this.thinSessions === null) return this.load(session);
    return (this.read(this.thinAt.get(session), this.thinBytes.get(session)) as [number, SessionLedger])[1];
  }

  load(session: number): SessionLedger {
    return this.read(this.sessionAt.get(session), this.sessionBytes.get(session)) as SessionLedger;
  }

  /** What the exit code reads of a session (reachedFailOn): one shared object per highest level. */
  gate(session: number): SessionLedger {
    return GATES[this.gates.get(session)]!;
  }

  /** A thin version read back from thinInOrder or a sort whole; anything else as it is. */
  whole(s: SessionLedger): SessionLedger {
    const n = this.numbers.get(s);
    return n === undefined ? s : this.load(n);
  }

  /**
   * The sessions' thin versions in this order, as a list read back as often as it is iterated:
   * their lines are copied once, in this order, so that each pass reads the file straight through.
   */
  thinInOrder(sessions: Uint32Array): Iterable<SessionLedger> {
    return this.decoded<SessionLedger>(this.append(this.copied(sessions, this.thinAt, this.thinBytes)));
  }

  /** The files' inputs in this order, likewise (as input() reads them). */
  inputsInOrder(files: Uint32Array): Iterable<InputSummary> {
    const lines = this.lines(this.append(this.copied(files, this.inputAt, this.inputBytes)));
    return {
      *[Symbol.iterator]() {
        for (const line of lines) {
          const input = JSON.parse(line) as InputSummary;
          shareInputStrings([input]);
          yield input;
        }
      },
    };
  }

  /** The no-transcripts in this order, likewise. */
  notTranscriptsInOrder(others: Uint32Array): Iterable<NotTranscriptFile> {
    const lines = this.lines(this.append(this.copied(others, this.otherAt, this.otherBytes)));
    return {
      *[Symbol.iterator]() {
        for (const line of lines) yield JSON.parse(line) as NotTranscriptFile;
      },
    };
  }

  /** The lines of these numbers, as written. */
  private *copied(numbers: Uint32Array, at: NumberList, bytes: NumberList): Generator<string> {
    for (const n of numbers) yield this.rawLine(at.get(n), bytes.get(n));
  }

  /**
   * ReportOptions.sorter: `items` sorted stably by `compare`, in runs of about SORT_RUN_CHARS
   * characters each sorted in memory and appended here, then interleaved (SORT_FAN_IN at a time;
   * ties go to the earlier run, so the order is Array.prototype.sort's). A list that fits one run
   * is kept in memory.
   */
  readonly sorter = <T>(items: Iterable<T>, compare: (a: T, b: T) => number): Iterable<T> => {
    let runs: Region[] = [];
    let batch: { item: T; line: string }[] = [];
    let chars = 0;
    const byItem = (a: { item: T }, b: { item: T }) => compare(a.item, b.item);
    const flush = () => {
      batch.sort(byItem);
      runs.push(this.append(batch.map((b) => b.line)));
      batch = [];
      chars = 0;
    };
    for (const item of items) {
      const line = JSON.stringify([this.numbers.get(item as object) ?? -1, item]);
      batch.push({ item, line });
      chars += line.length;
      if (chars >= this.sorting.runChars) flush();
    }
    if (runs.length === 0) return batch.sort(byItem).map((b) => b.item);
    if (batch.length > 0) flush();
    while (runs.length > 1) {
      const next: Region[] = [];
      const fanIn = this.sorting.fanIn;
      for (let i = 0; i < runs.length; i += fanIn) next.push(this.append(this.interleaved(runs.slice(i, i + fanIn), compare)));
      runs = next;
    }
    return this.decoded<T>(runs[0]!);
  };

  /** The runs' lines interleaved in order of their items (the earlier run first among equals). */
  private *interleaved<T>(runs: readonly Region[], compare: (a: T, b: T) => number): Generator<string> {
    type Head = { item: T; line: string; run: number; rest: Iterator<string> };
    const heads: Head[] = [];
    const less = (a: Head, b: Head) => {
      const c = compare(a.item, b.item);
      return c < 0 || (c === 0 && a.run < b.run);
    };
    const place = (h: Head) => {
      // Sorted insertion: at most `fanIn` runs are interleaved at once.
      let i = heads.length;
      while (i > 0 && less(h, heads[i - 1]!)) i -= 1;
      heads.splice(i, 0, h);
    };
    const advance = (run: number, rest: Iterator<string>) => {
      const next = rest.next();
      if (next.done === true) return;
      place({ item: (JSON.parse(next.value) as [number, T])[1], line: next.value, run, rest });
    };
    runs.forEach((r, i) => advance(i, this.lines(r)[Symbol.iterator]()));
    while (heads.length > 0) {
      const top = heads.shift()!;
      yield top.line;
      advance(top.run, top.rest);
    }
  }

  /** A region's items as a list read as often as it is iterated; each thin version found again by whole(). */
  private decoded<T>(region: Region): Iterable<T> {
    const lines = this.lines(region);
    const numbers = this.numbers;
    return {
      *[Symbol.iterator]() {
        for (const line of lines) {
          const [n, item] = JSON.parse(line) as [number, T];
          if (n >= 0) numbers.set(item as object, n);
          yield item;
        }
      },
    };
  }

  /** Lines appended one after another: where they are. */
  private append(lines: Iterable<string>): Region {
    this.flush();
    const from = this.size;
    for (const line of lines) this.write(line);
    this.flush();
    return { from, to: this.size };
  }

  /** A region's lines, read straight through in pieces of READ_BACK_BYTES, as often as iterated. */
  private lines(region: Region): Iterable<string> {
    return { [Symbol.iterator]: () => this.readLines(region) };
  }

  private *readLines(region: Region): Generator<string> {
    this.flush();
    const buffer = Buffer.allocUnsafe(READ_BACK_BYTES);
    let carry: Buffer | null = null;
    for (let at = region.from; at < region.to; ) {
      const n = readSync(this.fd!, buffer, 0, Math.min(READ_BACK_BYTES, region.to - at), at);
      if (n === 0) throw new Error(`${this.file}: cut short at ${at}`);
      at += n;
      let data = buffer.subarray(0, n);
      if (carry !== null) {
        data = Buffer.concat([carry, data]);
        carry = null;
      }
      let start = 0;
      for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
        yield data.toString('utf8', start, nl);
        start = nl + 1;
      }
      // A line cut by the piece's end waits for the rest (copied: the buffer is read into again).
      if (start < data.length) carry = Buffer.from(data.subarray(start));
    }
  }

  /** A line as written, not parsed. */
  private rawLine(at: number, bytes: number): string {
    return this.bytes(at, bytes).toString('utf8');
  }

  /** One line appended: where it starts and its length in bytes. */
  private write(line: string): [number, number] {
    if (this.fd === null) {
      this.release = this.removeOnSignal?.(this.file) ?? null;
      process.on('exit', this.onExit);
      this.fd = openSync(this.file, 'wx+', 0o600);
    }
    const bytes = Buffer.byteLength(line);
    const at = this.size;
    this.size += bytes + 1;
    this.pending.push(line, '\n');
    this.pendingChars += line.length;
    if (this.pendingChars >= SPILL_WRITE_CHARS) this.flush();
    return [at, bytes];
  }

  private flush(): void {
    if (this.pending.length === 0 || this.fd === null) return;
    const data = Buffer.from(this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
    for (let off = 0; off < data.length; ) off += writeSync(this.fd, data, off, data.length - off);
  }

  private bytes(at: number, bytes: number): Buffer {
    this.flush();
    const data = Buffer.allocUnsafe(bytes);
    for (let off = 0; off < bytes; ) {
      const n = readSync(this.fd!, data, off, bytes - off, at + off);
      if (n === 0) throw new Error(`${this.file}: cut short at ${at + off}`);
      off += n;
    }
    return data;
  }

  private read(at: number, bytes: number): unknown {
    return JSON.parse(this.bytes(at, bytes).toString('utf8'));
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    rmSync(this.file, { force: true });
    this.release?.();
    process.off('exit', this.onExit);
  }
}

type NumberArray = Float64Array | Uint32Array | Uint8Array;

/** A growing list of numbers in a typed array: a merge keeps a few per session and per file, not an object each. */
class NumberList {
  private data: NumberArray;
  length = 0;

  constructor(private readonly kind: new (length: number) => NumberArray) {
    this.data = new kind(1024);
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Made this long (new places hold 0). */
  resize(length: number): void {
    if (length > this.data.length) this.grow(length);
    this.length = length;
  }

  private grow(atLeast: number): void {
    const next = new this.kind(Math.max(atLeast, this.data.length * 2));
    next.set(this.data);
    this.data = next;
  }

  get(i: number): number {
    return this.data[i]!;
  }

  set(i: number, value: number): void {
    this.data[i] = value;
  }

  /** Places `from` to `to`, not copied (valid until the list grows). */
  view(from: number, to: number): NumberArray {
    return this.data.subarray(from, to);
  }
}

/** No entry, then each enforce level: a session's highest, as GATES' index. */
const GATE_LEVELS: readonly (EnforceLevel | null)[] = [null, ...ENFORCE_LEVELS];

/** A session's highest enforce level as a session holding one entry of it (none: no entry); shared. */
const GATES: readonly SessionLedger[] = GATE_LEVELS.map(
  (level) => Object.freeze({ entries: level === null ? [] : [{ intervention: { enforce: level } }] }) as unknown as SessionLedger,
);

function gateOf(s: SessionLedger): number {
  let top: EnforceLevel | null = null;
  for (const e of s.entries) if (top === null || LEVEL_RANK[e.intervention.enforce] > LEVEL_RANK[top]) top = e.intervention.enforce;
  return GATE_LEVELS.indexOf(top);
}

/** Writes to the spill gathered to about this many characters. */
const SPILL_WRITE_CHARS = 1 << 20;
/** Lines read back straight through in pieces of this many bytes. */
const READ_BACK_BYTES = 1 << 16;
/** A sort's runs: about this many characters of lines each, sorted in memory. */
const SORT_RUN_CHARS = 2 << 20;
/** Runs interleaved at most this many at a time. */
const SORT_FAN_IN = 32;

/** Lines of the spill, from byte `from` up to `to`. */
interface Region {
  from: number;
  to: number;
}

/**
 * A ledger's inputs, as a merge keeps them (one per file, often one per session): each format's
 * name one string for all and an empty `skipped` one shared list, not a copy per input. Returns
 * each path by itself, for the sessions to share.
 */
function shareInputStrings(inputs: unknown[]): ReadonlyMap<string, string> {
  const paths = new Map<string, string>();
  for (const input of inputs) {
    if (typeof input !== 'object' || input === null) continue;
    const i = input as Record<string, unknown>;
    if (typeof i['path'] === 'string') paths.set(i['path'], i['path']);
    if (typeof i['format'] === 'string') i['format'] = FORMAT_STRINGS.get(i['format']) ?? i['format'];
    if (Array.isArray(i['skipped']) && i['skipped'].length === 0) i['skipped'] = NO_SKIPPED;
  }
  return paths;
}

const FORMAT_STRINGS: ReadonlyMap<string, string> = new Map(FORMAT_NAMES.map((f) => [f, f]));
const NO_SKIPPED: readonly unknown[] = Object.freeze([]);

