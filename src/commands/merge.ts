// `loopledger merge FILE…`: read JSON ledgers (or `sweep --format json` partials) and add them up.
// The files are JSON documents written by loopledger, read in pieces (ledger/json-scan.ts): each
// input and session is checked as it arrives and put aside on disk, so a merge holds a few numbers
// per file and session and one whole session at a time; then merged by ledger/merge.ts (sweeps,
// small, whole by calibrate/merge.ts). The formats read the sessions (thin or whole) and inputs
// back from disk as they iterate them, and sort what they rank on disk (Spill.sort).

import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { type Command, Option, type OptionValues } from 'commander';
import { asSweep, mergeSweeps, SWEEP_SCHEMA } from '../calibrate/merge.js';
import type { SweepResult } from '../calibrate/sweep.js';
import { JsonScanError, JsonScanner } from '../ledger/json-scan.js';
import { checkSessionField, InputsSeen, LedgerFieldError, SessionsSeen } from '../ledger/ledger-check.js';
import { asLedger, LEDGER_SCHEMA, likenessOf, pathKeyOf, type MergedShards, MergeError, mergeShards, type ShardLedger, type ShardStore, sessionIdHash, ThinSessions, wholeInOrder } from '../ledger/merge.js';
import type { InputSummary } from '../formats/input.js';
import type { SessionLedger } from '../ledger/types.js';
import { FORMAT_NAMES } from '../model/transcript.js';
import { compareCodePoints } from '../read/discover.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { mapped, type Sorter } from '../report/lists.js';
import { SESSION_SORTS } from '../report/index.js';
import { ENFORCE_LEVELS, type EnforceLevel, LEVEL_RANK, REPORT_FORMATS, type ReportFormat } from '../vocabulary.js';
import { type EmitOptions, emitLedger } from './analyze.js';
import { colorFor, warn, writePayload } from './common.js';
import { choice, chosen, count, flag, type RegisterCommand, text, wholeNumber } from './flags.js';
import { isStdout, removeOnSignal, sweepStaleTemps } from './output.js';
import { renderSweep } from './sweep.js';

export const registerMergeCommand: RegisterCommand = (program, io, setExit) => {
  const command: Command = program
    .command('merge')
    .description(
      'add up shard ledgers (analyze --shard K/N --format json) or sweep --format json partials: exactly what one run over everything prints',
    )
    .argument('<files...>', 'JSON ledgers, or sweep partials (- reads one from stdin)')
    .addOption(new Option('--format <format>', 'output format (a sweep: table, json or html)').choices(REPORT_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .option('-o, --output-file <path>', 'write the payload to a file (atomically; - is stdout; never over an input)')
    .addOption(new Option('--fail-on <level>', 'exit 1 when a session reaches this level under enforce').choices(ENFORCE_LEVELS).default('none'))
    .option('--strict', 'exit 2 when the shards skipped malformed lines or met inputs that are no transcript')
    .option('--excerpts', 'show the excerpts the shards recorded (analyze --excerpts)')
    .option('--explain', 'show the statistics the shards recorded (analyze --explain)')
    .option('--top <n>', 'with more sessions than N: an overview first, then only the top N in full; 0 prints every session (default 10)', wholeNumber)
    .addOption(new Option('--sort <order>', 'order of the overview').choices(SESSION_SORTS).default('level'))
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .option('--quiet', 'only sessions with entries; fewer diagnostics')
    .option('--verbose', "every round's verdict the shards recorded (analyze --verbose)");
  command.action(async (files: string[], raw: OptionValues) => {
    const opts = mergeOptions(raw);
    // A merge killed outright (SIGKILL, out of memory) could not remove its spill: the next one does.
    await sweepStaleTemps(tmpdir(), SPILL_PREFIX, SPILL_SUFFIX);
    const spill = new Spill(!streamsSessions(opts.format));
    try {
      await mergeAndEmit(files, opts, spill);
    } finally {
      spill.close();
    }
  });

  async function mergeAndEmit(files: string[], opts: EmitOptions, spill: Spill): Promise<void> {
    const merged = await mergeFiles(files, spill, { onNote: (m) => warn(io, m), timelines: opts.format === 'html', summaryAsRead: streamsSessions(opts.format) });
    if (merged.kind === 'sweep') {
      const format = opts.format;
      if (format !== 'table' && format !== 'json' && format !== 'html') throw new UsageError(`merge: a sweep prints as table, json or html, not ${format}`);
      await writePayload(io, renderSweep(merged.result, { format, color: colorFor(opts, io, isStdout(opts.outputFile)) }), opts.outputFile, files);
      setExit(EXIT_OK);
      return;
    }
    const { report: thin, sessions } = merged.merged;
    // The exit code is decided on one shared stand-in per session (its highest level), not on the sessions.
    const gates = mapped(sessions, (s) => spill.gate(s));
    // JSON, NDJSON and OTLP write the sessions in order, each read back from the spill as it is
    // written (and added to the summary, which json writes after them).
    // The other formats look at every session more than once (overviews, widths, rule lists): they
    // are given the thin ones, read back in order as often as they iterate them, and read a session
    // back whole where they write it in full.
    // Shards carry each session's timeline for the page: readDocument dropped them as read for every other output.
    if (streamsSessions(opts.format)) {
      setExit(await emitLedger({ ...thin, sessions: wholeInOrder(merged.merged) as SessionLedger[] }, opts, io, setExit, NOTHING, files, gates));
      return;
    }
    const lazy = { wholeSession: (s: SessionLedger) => spill.whole(s), sorter: spill.sorter };
    setExit(await emitLedger({ ...thin, sessions: spill.thinInOrder(sessions) as SessionLedger[] }, opts, io, setExit, NOTHING, files, gates, lazy));
  }
};

/** The ledger's flags as analyze names them (`--json` folded into the format), without the ones a merge has no use for. */
function mergeOptions(raw: OptionValues): EmitOptions {
  const format: ReportFormat = flag(raw, 'json') ? 'json' : chosen(raw, 'format', REPORT_FORMATS);
  return {
    format,
    outputFile: text(raw, 'outputFile'),
    failOn: chosen(raw, 'failOn', ENFORCE_LEVELS),
    strict: flag(raw, 'strict'),
    excerpts: flag(raw, 'excerpts'),
    explain: flag(raw, 'explain'),
    top: count(raw, 'top'),
    sort: choice(raw, 'sort', SESSION_SORTS),
    color: flag(raw, 'color'),
    quiet: flag(raw, 'quiet'),
    verbose: flag(raw, 'verbose'),
    set: [],
  };
}

const NOTHING = 'the merged ledgers hold no session';

/** json, ndjson and otlp write each session whole, in order: they read nothing of a session but that (otlp no summary either). */
const streamsSessions = (format: ReportFormat) => format === 'json' || format === 'ndjson' || format === 'otlp';

type Merged = { kind: 'ledger'; merged: MergedShards } | { kind: 'sweep'; result: SweepResult };

const SPILL_PREFIX = 'loopledger-merge.';
const SPILL_SUFFIX = '.ndjson';

/**
 * Sessions and inputs as a merge read them, one NDJSON line each in a temporary file of ours
 * (removed at the end, at exit and on SIGINT/SIGTERM/SIGHUP). Memory keeps a few numbers per
 * session and per file (where its line is, a hash, its exit code's level): a merge holds one whole
 * session or input at a time. For the formats with an overview, each session's thin version is a
 * line of its own, copied in the merged order once (thinInOrder), and what they sort is sorted in
 * runs appended to the same file (sort).
 */
class Spill implements ShardStore {
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
  /** The thin versions read back (from thinInOrder or a sort): their sessions, for whole(). */
  private readonly numbers = new WeakMap<object, number>();

  /**
   * `overview`: put each session's thin version aside too, with what the reports' overviews read
   * (ThinSessions), for formats that rank and count them. Without, json and ndjson read each
   * session back once, whole, in order.
   */
  constructor(overview: boolean) {
    this.thinSessions = overview ? new ThinSessions() : null;
  }

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
    return this.decoded<SessionLedger>(this.append(this.thinLines(sessions)));
  }

  private *thinLines(sessions: Uint32Array): Generator<string> {
    for (const s of sessions) yield this.rawLine(this.thinAt.get(s), this.thinBytes.get(s));
  }

  /**
   * ReportOptions.sorter: `items` sorted stably by `compare`, in runs of about SORT_RUN_CHARS
   * characters each sorted in memory and appended here, then merged (at most SORT_FAN_IN at a time;
   * ties go to the earlier run, so the order is Array.prototype.sort's). A list that fits one run
   * is kept in memory.
   */
  readonly sorter: Sorter = <T>(items: Iterable<T>, compare: (a: T, b: T) => number): Iterable<T> => {
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
      if (chars >= SORT_RUN_CHARS) flush();
    }
    if (runs.length === 0) return batch.sort(byItem).map((b) => b.item);
    if (batch.length > 0) flush();
    while (runs.length > 1) {
      const next: Region[] = [];
      for (let i = 0; i < runs.length; i += SORT_FAN_IN) next.push(this.append(this.merged(runs.slice(i, i + SORT_FAN_IN), compare)));
      runs = next;
    }
    return this.decoded<T>(runs[0]!);
  };

  /** The runs' lines merged in order of their items (the earlier run first among equals). */
  private *merged<T>(runs: readonly Region[], compare: (a: T, b: T) => number): Generator<string> {
    type Head = { item: T; line: string; run: number; rest: Iterator<string> };
    const heads: Head[] = [];
    const less = (a: Head, b: Head) => {
      const c = compare(a.item, b.item);
      return c < 0 || (c === 0 && a.run < b.run);
    };
    const place = (h: Head) => {
      // Sorted insertion: a merge has at most SORT_FAN_IN heads.
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
      this.release = removeOnSignal(this.file);
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
/** Runs merged at most this many at a time. */
const SORT_FAN_IN = 32;

/** Lines of the spill, from byte `from` up to `to`. */
interface Region {
  from: number;
  to: number;
}

/** A document as read: its members but `sessions`, which went to the spill (a ledger) or are kept (anything else). */
interface ReadDocument {
  name: string;
  value: unknown;
  /** A ledger checked as it ended: its files in the spill (its `inputs` member let go), or why it was refused. */
  files?: { from: number; to: number };
  refusal?: MergeError;
}

function schemaOf(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>)['schema'] : undefined;
}

/**
 * One file read in pieces (json-scan.ts): each session checked as it arrives and put in the spill,
 * every other member kept. A document that says it is no ledger keeps its sessions (if any) in place.
 */
async function readDocument(name: string, spill: Spill, timelines: boolean): Promise<ReadDocument> {
  const head: Record<string, unknown> = {};
  let whole: { value: unknown } | null = null;
  const firstSession = spill.sessionTotal;
  const sessionPaths: string[] = [];
  const seen = new SessionsSeen();
  // The inputs as they came (the last `inputs` list, were there two) and where their files begin in the spill.
  let inputs: InputsSeen | null = null;
  let firstFile = spill.fileCount;
  let kept: unknown[] | null = null;
  let keptInputs: unknown[] | null = null;
  let firstLine = '';
  const refused = (e: unknown): never => {
    if (e instanceof LedgerFieldError) throw new MergeError(`${name}: ${e.message}: not a ledger loopledger wrote (edited by hand?)`);
    throw e;
  };
  const member = (key: string, value: unknown) => {
    // An own property whatever the name, as JSON.parse makes it (`"__proto__"` included).
    Object.defineProperty(head, key, { value, writable: true, enumerable: true, configurable: true });
  };
  const scanner = new JsonScanner(['inputs', 'sessions'], {
    member: (key, value) => {
      if (key === 'inputs') inputs = null;
      member(key, value);
    },
    elementsStart: (key) => {
      if (key !== 'inputs') return;
      inputs = new InputsSeen();
      firstFile = spill.fileCount;
      keptInputs = head['schema'] !== undefined && head['schema'] !== LEDGER_SCHEMA ? [] : null;
    },
    // The inputs and sessions were gathered into `inputs` and `seen` for the checks of the rest (asLedger) as they came.
    elementsEnd: (key) => {
      member(key, (key === 'inputs' ? keptInputs : kept) ?? []);
    },
    element: (value, index, key) => {
      if (key === 'inputs') {
        if (keptInputs !== null) keptInputs.push(value);
        // Each input checked as it comes and put in the spill; a refusal is said when the ledger ends.
        else if (inputs!.add(value, index)) spill.addInput(value as InputSummary);
        return;
      }
      if (index === 0 && head['schema'] !== undefined && head['schema'] !== LEDGER_SCHEMA) kept = [];
      if (kept !== null) {
        kept.push(value);
        return;
      }
      // Dropped as each session is read: a shard's timelines are a fifth of it and only the page draws them.
      if (!timelines && typeof value === 'object' && value !== null) delete (value as Record<string, unknown>)['timeline'];
      try {
        checkSessionField(value, index);
      } catch (e) {
        refused(e);
      }
      const session = value as SessionLedger;
      // The session's path as its input's string: one copy of each path held, not two.
      const at = inputs !== null && typeof session.path === 'string' ? (inputs as InputsSeen).places.get(session.path) : undefined;
      if (at !== undefined) session.path = (inputs as InputsSeen).paths[at]!;
      // The whole session, while it is in memory: the checks read what its thin version holds.
      seen.add(session);
      sessionPaths.push(session.path);
      spill.add(session);
    },
    other: (value) => {
      whole = { value };
    },
  });
  const decoder = new StringDecoder('utf8');
  try {
    const source = name === '-' ? process.stdin : createReadStream(name, { highWaterMark: READ_CHUNK_BYTES });
    for await (const chunk of source as AsyncIterable<Buffer>) {
      const text = decoder.write(chunk);
      if (firstLine.length < FIRST_LINE_CHARS && !firstLine.includes('\n')) firstLine += text.slice(0, FIRST_LINE_CHARS);
      scanner.feed(text);
    }
    scanner.feed(decoder.end());
    scanner.end();
  } catch (e) {
    if (e instanceof JsonScanError) {
      const first = firstLine.slice(0, firstLine.indexOf('\n') >>> 0);
      // Lines of objects, one after another: what --format ndjson writes, entries only.
      if (e.trailing && e.line > 1 && /^\s*\{.*\}\s*$/.test(first)) {
        throw new MergeError(`${name}: ndjson holds entries only (no calm sessions, inputs or totals): merge the --format json ledgers`);
      }
      throw new MergeError(`${name}: not JSON at line ${e.line} (byte ${e.byte}): ${e.message}`);
    }
    const err = e as NodeJS.ErrnoException;
    if (typeof err.code === 'string' && err.syscall !== undefined) {
      const why = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'a directory (name the ledger files)' : err.message;
      throw new MergeError(`${name}: cannot read: ${why}`);
    }
    throw e;
  }
  if (whole !== null) return { name, value: (whole as { value: unknown }).value };
  if (head['schema'] !== LEDGER_SCHEMA) return { name, value: head };
  // Checked now, so its inputs go to the spill and no ledger's list of them is held past its own
  // end; a refusal waits for the others to be read (a sweep among them, or another schema, is said first).
  try {
    const read = inputs as InputsSeen | null;
    asLedger(head, name, read === null ? undefined : { sessions: seen, inputs: read });
    // Not reached without a list of inputs (asLedger refuses), so `read` holds them.
    const files = spill.addFiles({ from: firstFile, to: spill.fileCount }, read!, firstSession, sessionPaths);
    delete head['inputs'];
    return { name, value: head, files };
  } catch (e) {
    if (e instanceof MergeError) return { name, value: head, refusal: e };
    throw e;
  }
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

/** Pieces of this many bytes are read at a time. */
const READ_CHUNK_BYTES = 1 << 20;
/** As much of a file's start as tells ndjson from a ledger. */
const FIRST_LINE_CHARS = 1 << 16;

/** Ledgers merge with ledgers, sweeps with sweeps; anything else is refused naming the file. */
interface MergeFileOptions {
  /** Notes on stderr (a file given twice, counted once). */
  onNote?: (message: string) => void;
  /** Keep each session's timeline (only the page draws them); without, they are dropped as each shard is read. */
  timelines?: boolean;
  /** The summary is added up as the sessions are read back in order (mergeShards). */
  summaryAsRead?: boolean;
}

async function mergeFiles(files: readonly string[], spill: Spill, options: MergeFileOptions = {}): Promise<Merged> {
  if (files.length === 0) throw new MergeError('merge: name the JSON ledgers to merge (loopledger analyze … --shard K/N --format json)');
  const docs: ReadDocument[] = [];
  for (const name of files) docs.push(await readDocument(name, spill, options.timelines === true));
  const sweeps = docs.filter((d) => schemaOf(d.value) === SWEEP_SCHEMA);
  if (sweeps.length > 0 && sweeps.length < docs.length) {
    const other = docs.find((d) => schemaOf(d.value) !== SWEEP_SCHEMA)!;
    throw new MergeError(`${sweeps[0]!.name} is a sweep (${SWEEP_SCHEMA}) but ${other.name} is not: merge ledgers with ledgers, sweeps with sweeps`);
  }
  if (sweeps.length > 0) return { kind: 'sweep', result: mergeSweeps(docs.map((d) => ({ name: d.name, result: asSweep(d.value, d.name) }))) };
  // Different schema versions are refused by name before anything else.
  const schemas = docs.map((d) => ({ name: d.name, schema: schemaOf(d.value) }));
  const odd = schemas.find((s) => typeof s.schema === 'string' && s.schema !== schemas[0]!.schema);
  if (odd && typeof schemas[0]!.schema === 'string') {
    throw new MergeError(`${schemas[0]!.name} has schema ${String(schemas[0]!.schema)} but ${odd.name} has ${String(odd.schema)}: ledgers of different schema versions cannot be merged`);
  }
  const shards = docs.map((d) => {
    if (d.refusal !== undefined) throw d.refusal;
    // Not a ledger: asLedger says why.
    if (d.files === undefined) return { name: d.name, report: asLedger(d.value, d.name), files: { from: 0, to: 0 } };
    return { name: d.name, report: d.value as ShardLedger['report'], files: d.files };
  });
  const asRead = options.summaryAsRead === true;
  // The inputs are read back from the spill as each format iterates them, never gathered in a list.
  return { kind: 'ledger', merged: mergeShards(shards, spill, { ...(options.onNote ? { onNote: options.onNote } : {}), summaryAsRead: asRead, inputsAsRead: true }) };
}

