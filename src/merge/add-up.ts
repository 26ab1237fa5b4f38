// `loopledger merge`: shard ledgers in, the ledger one run over everything would have printed out.
// Every file's ledger depends on that file alone, so adding shards up is exact: inputs, sessions
// and files that are no transcripts go back in the order one run gives them (sorted by path, the
// sessions of a file in their own order), the summary is recomputed from them as one run computes
// it (the same sums in the same order, so the same dollars to the last bit), and the judge's
// counters are added. What cannot be added up is refused, naming the difference.

import { UsageError } from '../errors.js';
import { roundUsd } from '../money/account.js';
import { compareCodePoints } from '../read/discover.js';
import { createHash } from 'node:crypto';
import { configHash } from '../ledger/config-hash.js';
import { checkLedgerFields, checkLedgerRest, type InputsSeen, LedgerFieldError, type NotTranscriptsSeen, type SessionsSeen } from './ledger-check.js';
import { assembleReport, noJudgeUsage, summarize, SummaryTally } from '../ledger/summary.js';
import { PeriodTally, periodsOf, type PeriodSpec } from '../ledger/periods.js';
import type { InputSummary } from '../formats/input.js';
import type { JudgeUsage, LedgerEntry, LedgerReport, LedgerSummary, NotTranscriptFile, SessionLedger } from '../ledger/types.js';
import { isRecord } from '../is-record.js';

export const LEDGER_SCHEMA = 'loopledger/1';

/** A parsed ledger and the name errors call it by (its file). */
export interface NamedLedger {
  name: string;
  report: LedgerReport;
}

/**
 * The shards' files and sessions as a merge holds them, each numbered in the order it was read
 * (ledger by ledger, each in its own order). A merge of shards of any size keeps a few numbers per
 * file and per session (commands/merge.ts keeps the rest on disk) and reads an input or a session
 * back whole when it is asked for one.
 */
export interface ShardStore {
  readonly fileCount: number;
  /** The file's path (read back from its input, where the store keeps no path). */
  path(file: number): string;
  /** pathKeyOf its path, computed as it was read. */
  pathKey(file: number): number;
  /** Whether a ledger's files, `from` up to `to`, are listed in code point order of their paths, as a run lists them. */
  inPathOrder(files: { from: number; to: number }): boolean;
  input(file: number): InputSummary;
  /** What tells the file from others cheaply (likenessOf), computed as it was read. */
  likeness(file: number): number;
  /** Its sessions, in their order in its ledger. */
  sessionsOf(file: number): ArrayLike<number>;
  /** What the summary, the exit code and the checks read of a session: its thin version, or the whole session. */
  thin(session: number): SessionLedger;
  load(session: number): SessionLedger;
  /** Files that are no transcripts, numbered as read (ledger by ledger, each in its own order). */
  readonly notTranscriptCount: number;
  notTranscript(n: number): NotTranscriptFile;
  /** pathKeyOf its path, computed as it was read. */
  notTranscriptKey(n: number): number;
  /** Whether a ledger's no-transcripts, `from` up to `to`, are listed in code point order of their paths. */
  notTranscriptsInPathOrder(others: { from: number; to: number }): boolean;
  /** The files' inputs in this order, as a list read as often as it is iterated (default: each read by input()). */
  inputsInOrder?(files: Uint32Array): Iterable<InputSummary>;
  /** The no-transcripts in this order, likewise (default: each read by notTranscript()). */
  notTranscriptsInOrder?(others: Uint32Array): Iterable<NotTranscriptFile>;
  /** The sessions' thin versions in this order, likewise (default: each read by thin()). */
  thinInOrder?(sessions: Uint32Array): Iterable<SessionLedger>;
}

/**
 * 30 bits of FNV-1a over a session's id: a small integer, held in place by V8 (a merge keeps one
 * per session). Ids that collide only cost a fingerprint (FileSet compares those).
 */
export function sessionIdHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}

/** A shard's fields as its file gave them (inputs and sessions aside) and its files in the store. */
export interface ShardLedger {
  name: string;
  report: Omit<LedgerReport, 'sessions' | 'inputs' | 'not_transcripts'>;
  /** Its files are the store's from `from` up to `to`, not included. */
  files: { from: number; to: number };
  /** Its files that are no transcripts, likewise. */
  others: { from: number; to: number };
}

/** The merged ledger: its summary and fields, and its files and sessions in the order one run gives them. */
export interface MergedShards {
  /**
   * Its `sessions` is empty: the caller puts the sessions (thin or whole) in its place. Its
   * `inputs` are read from the store as they are iterated (`inputsAsRead`) or held. Its `summary`
   * is added up from the thin versions, or, with `summaryAsRead`, as wholeInOrder reads the
   * sessions back.
   */
  report: LedgerReport;
  store: ShardStore;
  /** The store's sessions, in order. */
  sessions: Uint32Array;
  /** Without `summaryAsRead`: their thin versions in that order, the list the summary was added up from. */
  thin?: Iterable<SessionLedger>;
}

/**
 * Thin versions of the sessions of one merge: what of a session the summary (summary.ts,
 * loop-shapes.ts), the exit code (fail-on.ts), the checks and the reports' overviews read (its
 * fields but the heavy ones, and of each entry what says which loop it is and how far enforce
 * goes). A merge puts this of every session aside beside the whole session (commands/merge-spill.ts)
 * and the formats read it back as they rank and count (ReportOptions.wholeSession reads the rest).
 */
export class ThinSessions {
  of(s: SessionLedger): SessionLedger {
    // A copy made whole by the rest pattern holds its fields in fewer words than one built key by key.
    const { entries, interrupts: _interrupts, verdicts: _verdicts, timeline: _timeline, ...rest } = s;
    const thin = rest as Record<string, unknown>;
    thin['entries'] = entries.map((e) => this.entry(e));
    return thin as unknown as SessionLedger;
  }

  private entry(e: LedgerEntry): LedgerEntry {
    const thin = this.thinEntry(e);
    // A run's rounds are what the summary counts (summary.entries, loop shapes): kept whole, it is small.
    if (e.run !== undefined) thin.run = e.run;
    return thin;
  }

  private thinEntry(e: LedgerEntry): LedgerEntry {
    const intervention = { enforce: e.intervention.enforce } as LedgerEntry['intervention'];
    const round = e.round;
    const detector = e.detector;
    const kind = e.kind;
    // One literal per case, in the order the entry has them: an object built whole keeps its fields in place.
    if (e.shape !== undefined) {
      const shape = e.shape;
      return (e.round_usage !== undefined ? { round, detector, kind, shape, round_usage: e.round_usage, intervention } : { round, detector, kind, shape, intervention }) as LedgerEntry;
    }
    const evidence = { tools: (e.evidence as LedgerEntry['evidence'] | undefined)?.['tools'] } as LedgerEntry['evidence'];
    return (e.round_usage !== undefined ? { round, detector, kind, evidence, round_usage: e.round_usage, intervention } : { round, detector, kind, evidence, intervention }) as LedgerEntry;
  }
}

/** Refused: exit 2, the message names the files and what differs. */
export class MergeError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

/**
 * `value` as a ledger, or a refusal naming the file and the field. `read`: its sessions were
 * checked one by one as they were read (checkSessionField) and its inputs too, gathered there
 * (and its no-transcripts, with `others`), and `value.sessions` and `value.inputs` (and
 * `value.not_transcripts`) hold none of them; the rest is checked here.
 */
export function asLedger(value: unknown, name: string, read?: { sessions: SessionsSeen; inputs: InputsSeen; others?: NotTranscriptsSeen }): LedgerReport {
  if (!isRecord(value)) throw new MergeError(`${name}: not a loopledger JSON ledger (a JSON object is expected; make it with --format json)`);
  if (value['schema'] !== LEDGER_SCHEMA) {
    const schema = typeof value['schema'] === 'string' ? value['schema'] : null;
    throw new MergeError(
      schema === null
        ? `${name}: not a loopledger JSON ledger (no "schema"; make it with --format json)`
        : `${name}: schema ${schema} cannot be merged by this loopledger, which writes ${LEDGER_SCHEMA}`,
    );
  }
  for (const key of ['inputs', 'sessions'] as const) {
    if (!Array.isArray(value[key])) throw new MergeError(`${name}: "${key}" is not a list: not a complete loopledger ledger`);
  }
  if (!isRecord(value['config'])) throw new MergeError(`${name}: "config" is missing: not a complete loopledger ledger`);
  if (!isRecord(value['tool']) || typeof value['tool']['version'] !== 'string') throw new MergeError(`${name}: "tool.version" is missing: not a complete loopledger ledger`);
  try {
    if (read !== undefined) checkLedgerRest(value, read.sessions, read.inputs, read.others);
    else checkLedgerFields(value);
  } catch (e) {
    if (e instanceof LedgerFieldError) throw new MergeError(`${name}: ${e.message}: not a ledger loopledger wrote (edited by hand?)`);
    throw e;
  }
  return value as unknown as LedgerReport;
}

/** `key a vs b` for the first few keys whose values differ. */
export function describeConfigDifference(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): string {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const differ = keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  const shown = differ.slice(0, 5).map((k) => `${k} ${show(a[k])} vs ${show(b[k])}`);
  const more = differ.length > shown.length ? `, and ${differ.length - shown.length} more` : '';
  return shown.length > 0 ? `${shown.join(', ')}${more}` : 'the same values, in another hash';
}

function show(v: unknown): string {
  return v === undefined ? '(absent)' : JSON.stringify(v);
}

/** The hash a ledger's config has; a recorded hash that does not match its config is refused. */
export function checkedConfigHash(config: Readonly<Record<string, unknown>>, recorded: unknown, name: string): string {
  const hash = configHash(config);
  if (recorded !== undefined && recorded !== hash) {
    throw new MergeError(`${name}: config_hash ${String(recorded)} does not match its config (${hash}): edited by hand, or written by another loopledger`);
  }
  return hash;
}

export interface ShardHeader {
  name: string;
  shard?: { index: number; count: number } | undefined;
}

/**
 * Shards must be all or none, of one count, each once and none missing: a merge that lacks a shard
 * is not what one run prints, and one given twice would count its sessions twice.
 */
export function checkShards(headers: readonly ShardHeader[]): void {
  const sharded = headers.filter((h) => h.shard !== undefined);
  if (sharded.length === 0) return;
  if (sharded.length < headers.length) {
    const plain = headers.find((h) => h.shard === undefined)!;
    throw new MergeError(`${plain.name} holds no shard while ${sharded[0]!.name} holds shard ${fmt(sharded[0]!.shard!)}: merge the shards of one run`);
  }
  const count = sharded[0]!.shard!.count;
  const byIndex = new Map<number, string>();
  for (const h of sharded) {
    const s = h.shard!;
    if (!Number.isSafeInteger(s.count) || !Number.isSafeInteger(s.index) || s.index < 1 || s.index > s.count) {
      throw new MergeError(`${h.name}: shard ${String(s.index)}/${String(s.count)} is not a shard`);
    }
    if (s.count !== count) throw new MergeError(`${sharded[0]!.name} holds shard ${fmt(sharded[0]!.shard!)} but ${h.name} shard ${fmt(s)}: shards of different counts`);
    const other = byIndex.get(s.index);
    if (other !== undefined) throw new MergeError(`shard ${fmt(s)} is given twice: ${other} and ${h.name}`);
    byIndex.set(s.index, h.name);
  }
  const missing: number[] = [];
  for (let k = 1; k <= count && missing.length < 10; k++) if (!byIndex.has(k)) missing.push(k);
  if (missing.length > 0) {
    const absent = count - byIndex.size;
    const list = missing.map((k) => `${k}/${count}`).join(', ');
    throw new MergeError(`shard${absent === 1 ? '' : 's'} ${list}${absent > missing.length ? ` and ${absent - missing.length} more` : ''} missing: a merge without ${absent === 1 ? 'it' : 'them'} is not the whole run`);
  }
}

function fmt(s: { index: number; count: number }): string {
  return `${s.index}/${s.count}`;
}

/** The same value in every ledger, or a refusal naming the two that differ. */
function sameEverywhere(ledgers: readonly ShardLedger[], what: string, get: (r: ShardLedger['report']) => unknown): void {
  const first = ledgers[0]!;
  const want = JSON.stringify(get(first.report));
  for (const l of ledgers.slice(1)) {
    const got = JSON.stringify(get(l.report));
    if (got !== want) throw new MergeError(`${first.name} and ${l.name} differ in ${what}: ${want ?? '(absent)'} vs ${got ?? '(absent)'}`);
  }
}

const JUDGE_COUNTERS = ['requests', 'input_tokens', 'output_tokens', 'cached', 'failed'] as const;

/** Counters add up; dollars add up until one shard could not price its judge (null, with its reason). */
function addJudge(total: JudgeUsage, j: JudgeUsage | undefined): void {
  if (!j) return;
  for (const k of JUDGE_COUNTERS) total[k] += typeof j[k] === 'number' ? j[k] : 0;
  if (j.usd === undefined || total.usd === null) return;
  if (j.usd === null) {
    total.usd = null;
    if (j.usd_reason !== undefined) total.usd_reason = j.usd_reason;
    return;
  }
  total.usd = roundUsd((total.usd ?? 0) + j.usd);
}

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
function filesThatMayMeet(store: ShardStore): { files: Uint8Array; others: Uint8Array } {
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
class FileSet {
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

/**
 * What only the shards' summaries know, added up; everything else in the summary is recomputed
 * from the merged sessions by assembleReport. A file given twice still counts its judge requests
 * twice: each run did send them.
 */
function addSummaries(ledgers: readonly ShardLedger[]): { judge: JudgeUsage } {
  const judge = noJudgeUsage();
  for (const { report } of ledgers) addJudge(judge, report.summary?.judge);
  return { judge };
}

/** Ledgers held whole in memory, as a store (mergeLedgers). */
class LedgersInMemory implements ShardStore {
  private readonly inputs: InputSummary[] = [];
  private readonly likenesses: number[] = [];
  private readonly pathKeys: number[] = [];
  private readonly sessions: SessionLedger[] = [];
  private readonly fileSessions: number[][] = [];
  private readonly others: NotTranscriptFile[] = [];

  get fileCount(): number {
    return this.inputs.length;
  }

  get notTranscriptCount(): number {
    return this.others.length;
  }

  /** A ledger's files, sessions and no-transcripts added: where its files and no-transcripts are. */
  add(report: LedgerReport): Pick<ShardLedger, 'files' | 'others'> {
    const others = { from: this.others.length, to: this.others.length + (report.not_transcripts ?? []).length };
    this.others.push(...(report.not_transcripts ?? []));
    const from = this.inputs.length;
    const byPath = new Map<string, number[]>();
    for (const s of report.sessions) {
      const own = byPath.get(s.path);
      if (own === undefined) byPath.set(s.path, [this.sessions.length]);
      else own.push(this.sessions.length);
      this.sessions.push(s);
    }
    for (const input of report.inputs) {
      const own = byPath.get(input.path) ?? [];
      this.inputs.push(input);
      this.pathKeys.push(pathKeyOf(input.path));
      this.fileSessions.push(own);
      this.likenesses.push(likenessOf(input, own.map((s) => sessionIdHash(this.sessions[s]!.id))));
    }
    return { files: { from, to: this.inputs.length }, others };
  }

  notTranscript(n: number): NotTranscriptFile {
    return this.others[n]!;
  }
  notTranscriptKey(n: number): number {
    return pathKeyOf(this.others[n]!.path);
  }
  notTranscriptsInPathOrder(): boolean {
    return false;
  }

  path(file: number): string {
    return this.inputs[file]!.path;
  }
  pathKey(file: number): number {
    return this.pathKeys[file]!;
  }
  /** Sorted as they are: the paths are at hand. */
  inPathOrder(): boolean {
    return false;
  }
  input(file: number): InputSummary {
    return this.inputs[file]!;
  }
  likeness(file: number): number {
    return this.likenesses[file]!;
  }
  sessionsOf(file: number): readonly number[] {
    return this.fileSessions[file]!;
  }
  thin(session: number): SessionLedger {
    return this.sessions[session]!;
  }
  load(session: number): SessionLedger {
    return this.sessions[session]!;
  }
}

/** The one ledger the shards add up to (the `shard` field is gone: it is the whole run). */
export function mergeLedgers(ledgers: readonly NamedLedger[], onNote: (message: string) => void = () => {}): LedgerReport {
  const store = new LedgersInMemory();
  const shards = ledgers.map(({ name, report }) => ({ name, report, ...store.add(report) }));
  const merged = mergeShards(shards, store, { onNote });
  return { ...merged.report, not_transcripts: Array.from(merged.report.not_transcripts ?? []), sessions: Array.from(merged.sessions, (s) => store.load(s)) };
}

/**
 * The ones marked 2 of the ranges (the ledgers' files, or their no-transcripts), in code point
 * order of their paths. A ledger loopledger wrote lists them in that order already: then the
 * ledgers' lists are merged, reading each path once and holding one per ledger. Otherwise the kept
 * ones' paths are read and sorted.
 */
function keptInPathOrder(
  ranges: readonly { from: number; to: number }[],
  marks: Uint8Array,
  count: number,
  pathOf: (i: number) => string,
  inPathOrder: (range: { from: number; to: number }) => boolean,
): Uint32Array {
  const ordered = new Uint32Array(count);
  if (!ranges.every(inPathOrder)) {
    let at = 0;
    for (let f = 0; f < marks.length; f++) if (marks[f] === 2) ordered[at++] = f;
    const paths = Array.from(ordered, pathOf);
    const order = Array.from(ordered.keys()).sort((a, b) => compareCodePoints(paths[a]!, paths[b]!));
    return Uint32Array.from(order, (i) => ordered[i]!);
  }
  // Each ledger's next kept one and its path; a binary heap of them, the least path on top.
  const heads = ranges.map((r) => ({ next: r.from - 1, to: r.to, path: '' }));
  const advance = (h: (typeof heads)[number]): boolean => {
    do h.next += 1;
    while (h.next < h.to && marks[h.next] !== 2);
    if (h.next >= h.to) return false;
    h.path = pathOf(h.next);
    return true;
  };
  const heap = heads.filter(advance);
  const less = (i: number, j: number) => compareCodePoints(heap[i]!.path, heap[j]!.path) < 0;
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j]!, heap[i]!]);
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const m = l + 1 < heap.length && less(l + 1, l) ? l + 1 : l;
      if (l >= heap.length || !less(m, i)) return;
      swap(i, m);
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  for (let at = 0; heap.length > 0; at++) {
    const top = heap[0]!;
    ordered[at] = top.next;
    if (!advance(top)) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    down(0);
  }
  return ordered;
}

/** Each session's thin version as it is iterated, as often: read from the store, none held. */
function thinOnes(store: ShardStore, sessions: Uint32Array): Iterable<SessionLedger> {
  return {
    *[Symbol.iterator]() {
      for (const s of sessions) yield store.thin(s);
    },
  };
}

/** Each no-transcript as it is iterated, as often: read from the store, none held. */
function notTranscriptsRead(store: ShardStore, others: Uint32Array): Iterable<NotTranscriptFile> {
  return {
    *[Symbol.iterator]() {
      for (const o of others) yield store.notTranscript(o);
    },
  };
}

/** Each file's input as it is iterated, as often: read from the store, none held. */
function inputsRead(store: ShardStore, files: Uint32Array): Iterable<InputSummary> {
  return {
    *[Symbol.iterator]() {
      for (const f of files) yield store.input(f);
    },
  };
}

export interface MergeShardsOptions {
  /** Notes on stderr (a file given twice, counted once). */
  onNote?: (message: string) => void;
  /**
   * The summary is added up as wholeInOrder reads the sessions back (for a writer that reads
   * every session once, in order, before the summary), not from their thin versions: a merge that
   * keeps them on disk reads each session back once, not twice.
   */
  summaryAsRead?: boolean;
  /** The report's inputs are read from the store each time they are iterated (json, ndjson), not held in a list. */
  inputsAsRead?: boolean;
}

/**
 * The shards added up, their files and sessions as the store's numbers: the summary is computed
 * from the thin sessions (exactly what it reads), or as the caller reads the whole sessions back in order.
 */
export function mergeShards(ledgers: readonly ShardLedger[], store: ShardStore, options: MergeShardsOptions = {}): MergedShards {
  const onNote = options.onNote ?? (() => {});
  if (ledgers.length === 0) throw new MergeError('merge: name at least one JSON ledger');
  const first = ledgers[0]!;
  sameEverywhere(ledgers, 'tool version', (r) => r.tool.version);
  const hashes = ledgers.map((l) => checkedConfigHash(l.report.config, l.report.config_hash, l.name));
  for (const [i, l] of ledgers.entries()) {
    if (hashes[i] !== hashes[0]) {
      throw new MergeError(
        `${first.name} and ${l.name} were made under different configurations (config_hash ${hashes[0]} vs ${hashes[i]}): ${describeConfigDifference(first.report.config, l.report.config)}`,
      );
    }
  }
  sameEverywhere(ledgers, 'pricing', (r) => r.pricing);
  // `--by`: each shard's periods are recounted from the sessions, so a period cut by a shard adds up exactly.
  sameEverywhere(ledgers, '--by and --timezone', (r) => (r.periods_by === undefined ? undefined : [r.periods_by, r.timezone]));
  const periods: PeriodSpec | undefined = first.report.periods_by ? { by: first.report.periods_by, timezone: first.report.timezone ?? 'UTC' } : undefined;
  checkShards(ledgers.map((l) => ({ name: l.name, shard: l.report.shard })));

  // Marked 1: files and no-transcripts that may meet another (FileSet decides), then 2: those kept.
  const { files: marks, others: otherMarks } = filesThatMayMeet(store);
  const files = new FileSet(store);
  let count = 0;
  let otherCount = 0;
  for (const { name, files: range, others } of ledgers) {
    for (let f = range.from; f < range.to; f++) {
      if (marks[f] === 1) files.addInput(f, name);
      else {
        marks[f] = 2;
        count += 1;
      }
    }
    for (let o = others.from; o < others.to; o++) {
      if (otherMarks[o] === 1) files.addNotTranscript(o, store.notTranscript(o), name);
      else {
        otherMarks[o] = 2;
        otherCount += 1;
      }
    }
  }
  const { files: met, notTranscripts: metOthers } = files.contents();
  for (const f of met) marks[f] = 2;
  count += met.length;
  for (const o of metOthers) otherMarks[o] = 2;
  otherCount += metOthers.length;
  files.note(onNote);
  const { judge } = addSummaries(ledgers);
  // One run reads files in code point order of their paths and keeps each file's sessions in its
  // own order: files in path order (no two share one), each with its sessions, is exactly that order.
  const ordered = keptInPathOrder(
    ledgers.map((l) => l.files),
    marks,
    count,
    (f) => store.path(f),
    (r) => store.inPathOrder(r),
  );
  const others = keptInPathOrder(
    ledgers.map((l) => l.others),
    otherMarks,
    otherCount,
    (o) => store.notTranscript(o).path,
    (r) => store.notTranscriptsInPathOrder(r),
  );
  let sessionCount = 0;
  for (const f of ordered) sessionCount += store.sessionsOf(f).length;
  const sessions = new Uint32Array(sessionCount);
  let at = 0;
  for (const f of ordered) {
    const own = store.sessionsOf(f);
    for (let i = 0; i < own.length; i++) sessions[at++] = own[i]!;
  }
  const inputs = options.inputsAsRead === true ? ((store.inputsInOrder?.(ordered) ?? inputsRead(store, ordered)) as InputSummary[]) : Array.from(ordered, (f) => store.input(f));
  // Added up one session at a time in their order, each thin version let go once counted; as read,
  // a summary of no session until a pass of wholeInOrder completes it (its inputs' counts are final).
  const thin = options.summaryAsRead === true ? undefined : (store.thinInOrder?.(sessions) ?? thinOnes(store, sessions));
  const summary = summarize(inputs, thin ?? [], judge);
  const report = assembleReport({
    version: first.report.tool.version,
    config: first.report.config as never,
    inputs: [],
    notTranscripts: [],
    sessions: [],
    judge,
    summary,
    ...(first.report.pricing ? { pricing: first.report.pricing as never } : {}),
    // Added up from the thin versions now, or (as read) by wholeInOrder's pass, as the summary is.
    ...(periods ? { periods } : {}),
  });
  if (periods) Object.assign(report, periodsOf(thin ?? [], periods));
  // In place of assembleReport's copy (which would hold every input): the key keeps its place.
  report.inputs = inputs;
  // Likewise the no-transcripts, read from the store as they are iterated (one per file of a store, at most).
  report.not_transcripts = (store.notTranscriptsInOrder?.(others) ?? notTranscriptsRead(store, others)) as NotTranscriptFile[];
  return { report, store, sessions, ...(thin === undefined ? {} : { thin }) };
}

/**
 * The merged sessions whole, in order, read back one at a time as often as they are iterated.
 * Each complete pass adds up the summary in that order (one run's, so the same dollars to the
 * last bit) and puts it in `merged.report.summary` when it ends: with `summaryAsRead` that is
 * where it is computed (json writes the summary after the sessions, ndjson writes none).
 */
export function wholeInOrder(merged: MergedShards): Iterable<SessionLedger> {
  const { report, store, sessions } = merged;
  return {
    *[Symbol.iterator]() {
      const tally = new SummaryTally();
      const periods = report.periods_by ? new PeriodTally({ by: report.periods_by, timezone: report.timezone ?? 'UTC' }) : null;
      for (const s of sessions) {
        const whole = store.load(s);
        tally.add(whole);
        periods?.add(whole);
        yield whole;
      }
      // In place, as the summary: a copy of the report made before the pass sees the same array.
      if (periods && report.periods) report.periods.splice(0, report.periods.length, ...periods.report().periods);
      // Assigned into the same object, so its keys keep their order and a copy of the report sees it.
      Object.assign(report.summary, tally.summary(report.inputs, report.summary.judge) satisfies LedgerSummary);
    },
  };
}
