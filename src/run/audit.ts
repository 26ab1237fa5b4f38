// The library's front door: paths in, one ledger out. One input line travels
// read → format adapter → transcript model → detectors → ladder → ledger, file by file.

import { createReadStream, readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { defaultConfigValues } from '../config/registry.js';
import { resolveConfig, type ResolvedConfig } from '../config/resolved.js';
import { InputError, UsageError } from '../errors.js';
import { ingestFile } from '../formats/ingest.js';
import { mayBeDatabase } from '../formats/ingest/database.js';
import type { InputSummary } from '../formats/input.js';
import { runWithJudge } from '../judge/run.js';
import { readJudgeConnection } from '../judge/settings.js';
import { spoolStdin } from '../judge/stdin.js';
import { VerdictBook } from '../ladder/verdicts.js';
import { LedgerBuilder } from '../ledger/build.js';
import { ArrayPool } from '../detect/text/pool.js';
import { createDetectorFactories } from '../ledger/detectors.js';
import { assembleReport } from '../ledger/summary.js';
import type { JudgeUsage, LedgerReport, NotTranscriptFile } from '../ledger/types.js';
import { fileMayHold, inWindow, type SessionWindow } from '../ledger/window.js';
import type { Pricer } from '../money/account.js';
import { priceBookFor, pricingInfo, type PricingOptions, type Quote } from '../money/prices.js';
import { compareCodePoints, discoverInputs } from '../read/discover.js';
import { formatShard, inShard, type Shard } from '../read/shard.js';
import type { SkippedLine } from '../read/skipped.js';
import { auditInWorkers } from './file-pool.js';
import { boundedJobs, chooseJobs, currentMachine, defaultJobs, type Machine } from './lanes.js';
import { auditInStream } from './file-stream.js';
import type { AuditOptions, FileLedger } from './options.js';
import { ingestInWorker, PIPELINE_DEFAULT_MIN_BYTES, PIPELINE_MIN_BYTES, worthPipelining } from './reader-thread.js';
import { VERSION } from '../version.js';

export interface ResolvedInputs {
  files: string[];
  /** Paths named that could not be read: reported as inputs with `unreadable`, and the run exits 2. */
  unreadable: InputSummary[];
  /** Entries found while walking that could not be read: files that are no transcript (reason `unreadable`). */
  walkedUnreadable: NotTranscriptFile[];
}

/**
 * Every file the paths name, sorted. Paths that cannot be read are returned apart so the rest is
 * still analyzed; no paths at all, or nothing readable found, is an input error (exit 2).
 */
export async function resolveInputs(paths: readonly string[], shard?: Shard): Promise<ResolvedInputs> {
  if (paths.length === 0) throw new InputError('no input: name at least one file or directory (or - for stdin)');
  if (shard && paths.includes('-')) {
    // Standard input is one stream that no other shard can see: split it upstream instead.
    throw new UsageError(`--shard ${formatShard(shard)} splits files, and - (standard input) is one stream: split it before loopledger (each of Spark's pipe partitions, for one, is its own stdin) and drop --shard`);
  }
  const discovery = await discoverInputs(paths);
  if (discovery.files.length === 0) {
    const why = [...discovery.errors, ...discovery.unreadable].map((e) => `${e.path}: ${e.message}`);
    throw new InputError(why.length > 0 ? why.join('\n') : `no input found: no .jsonl, .json or .traj files under ${paths.join(', ')}`);
  }
  // Sharded after the search: a tree with nothing in it fails on every shard, while an empty
  // shard of a tree that has files is a valid, empty ledger.
  const files = shard ? discovery.files.filter((f) => inShard(f, discovery.given.get(f) ?? f, shard)) : discovery.files;
  const errors = shard ? discovery.errors.filter((e) => inShard(e.path, discovery.given.get(e.path) ?? e.path, shard)) : discovery.errors;
  const unreadable = errors.map(
    (e): InputSummary => ({ path: e.path, format: null, sessions: 0, lines: 0, skipped: [], skipped_lines: 0, error: e.message, unreadable: true }),
  );
  const walked = shard ? discovery.unreadable.filter((e) => inShard(e.path, discovery.given.get(e.path) ?? e.path, shard)) : discovery.unreadable;
  const walkedUnreadable = walked.map((e): NotTranscriptFile => ({ path: e.path, reason: 'unreadable', error: e.message }));
  return { files, unreadable, walkedUnreadable };
}

/** One file through the whole pipeline. Never throws for bad content: that is in `input`. */
export async function auditFile(file: string, options: AuditOptions = {}): Promise<FileLedger> {
  // `--jobs 1` means one thread; so does a machine with one core. The machine is read last (it
  // reads /proc), only for a file large enough to pipeline.
  if ((options.jobs === undefined || options.jobs > 1) && (await worthPipelining(file, pipelineFloor(options))) && (options.jobs ?? defaultJobs()) > 1) {
    return auditFileReadElsewhere(file, options, (sink, onSkip) => ingestInWorker(file, sink, { inputFormat: options.inputFormat ?? 'auto', onSkip }));
  }
  return auditFileHere(file, await priceBookFor(options.pricing), options);
}

/** The size from which a file alone gets a reading thread: lower when threads were asked for. */
function pipelineFloor(options: AuditOptions): number {
  return options.jobs === undefined ? PIPELINE_DEFAULT_MIN_BYTES : PIPELINE_MIN_BYTES;
}

/** Reads a file into `sink` in another thread: its summary, or null when that failed. */
export type ReadElsewhere = (sink: LedgerBuilder, onSkip: (skipped: SkippedLine) => void) => Promise<InputSummary | null>;

/**
 * `file` read by another thread (`read`) and analyzed here; where the reading fails, the file is
 * analyzed again on this thread alone, which gives the same ledger and diagnostics.
 */
export async function auditFileReadElsewhere(file: string, options: AuditOptions, read: ReadElsewhere): Promise<FileLedger> {
  const pricer = await priceBookFor(options.pricing);
  let skips = 0;
  let warnings = 0;
  const counted: AuditOptions = {
    ...options,
    onSkip: (path, skipped) => {
      skips += 1;
      options.onSkip?.(path, skipped);
    },
    onWarning: (message) => {
      warnings += 1;
      options.onWarning?.(message);
    },
  };
  const { ledger, book } = ledgerFor(counted, pricer);
  const input = await read(ledger, (s) => counted.onSkip!(file, s));
  if (input !== null) return fileLedger(input, ledger, book);
  // The worker failed: start over here. The one-thread run says the same things in the same
  // order, so what was already said is withheld rather than said twice.
  return auditFileHere(file, pricer, {
    ...options,
    onSkip: (path, skipped) => {
      if (skips > 0) skips -= 1;
      else options.onSkip?.(path, skipped);
    },
    onWarning: (message) => {
      if (warnings > 0) warnings -= 1;
      else options.onWarning?.(message);
    },
  });
}

/**
 * The text detectors' arrays, shared by every file analyzed on this thread: a lane analyzes
 * hundreds of small files of a turn or two, so with a pool per file nearly every turn allocated.
 */
const threadPool = new ArrayPool();

function ledgerFor(options: AuditOptions, pricer: Pricer | null): { ledger: LedgerBuilder; book: VerdictBook | null } {
  const book = options.judgePlan ? new VerdictBook(options.judgePlan) : null;
  const ledger = new LedgerBuilder({
    pricer,
    config: options.config ?? defaultConfigValues(),
    factories: createDetectorFactories(threadPool),
    excerpts: options.excerpts ?? false,
    explain: options.explain ?? false,
    verbose: options.verbose ?? false,
    timeline: options.timeline ?? false,
    onWarning: options.onWarning,
    ...(book ? { judge: book } : {}),
  });
  return { ledger, book };
}

function fileLedger(input: InputSummary, ledger: LedgerBuilder, book: VerdictBook | null): FileLedger {
  const out: FileLedger = { input, sessions: ledger.sessions() };
  if (book) out.judge = { pending: book.pending(), answered: book.answered() };
  return out;
}

/** auditFile on this thread alone. */
async function auditFileHere(file: string, pricer: Pricer | null, options: AuditOptions = {}): Promise<FileLedger> {
  const { ledger, book } = ledgerFor(options, pricer);
  const input = await ingestFile(file, ledger, {
    inputFormat: options.inputFormat ?? 'auto',
    onSkip: options.onSkip ? (s: SkippedLine) => options.onSkip!(file, s) : undefined,
    ...(options.stdin ? { stdin: options.stdin } : {}),
  });
  return fileLedger(input, ledger, book);
}

export async function audit(paths: readonly string[], options: AuditOptions = {}): Promise<LedgerReport> {
  const resolved = await resolveInputs(paths, options.shard);
  const { unreadable, walkedUnreadable } = resolved;
  const window = options.window;
  const files = window ? await filesInWindow(resolved.files, window) : resolved.files;
  // Parsed once for the run (unless the caller's loader has): every file, lane and tier reads this.
  const config = resolveConfig(options.config ?? defaultConfigValues(), options.onWarning);
  const { results, judge } = await auditJudged(files, { ...options, config }, config);
  const emptied = window ? keepInWindow(results, window, resolved.files.length - files.length, options.onWindow) : new Set<InputSummary>();
  // A file found by searching a directory that is no transcript (settings.json, a todo list, our
  // own report) is set apart; a path named explicitly stays an input, with its error.
  const named = new Set(paths.map((p) => (p === '-' ? '-' : resolve(p))));
  const inputs: InputSummary[] = [...unreadable];
  const notTranscripts: NotTranscriptFile[] = [...walkedUnreadable];
  for (const { input } of results) {
    if (emptied.has(input)) continue;
    const found = !named.has(input.path === '-' ? '-' : resolve(input.path));
    if (found && input.not_transcript !== undefined) {
      notTranscripts.push({ path: input.path, reason: input.not_transcript, error: input.error ?? '' });
    } else if (found && input.unreadable === true) {
      // Found while walking and then refused at open (permission denied): counted, not an error.
      notTranscripts.push({ path: input.path, reason: 'unreadable', error: input.error ?? '' });
    } else {
      inputs.push(input);
    }
  }
  return assembleReport({
    version: VERSION,
    config: config.values,
    inputs: inputs.sort((a, b) => compareCodePoints(a.path, b.path)),
    notTranscripts: notTranscripts.sort((a, b) => compareCodePoints(a.path, b.path)),
    sessions: results.flatMap((r) => r.sessions),
    judge,
    ...(options.periods ? { periods: options.periods } : {}),
    ...(options.pricing === false ? {} : { pricing: pricingInfo(options.pricing?.overrides) }),
    ...(options.shard ? { shard: options.shard } : {}),
  });
}

/** The files that may hold a session of the window, judged by their last change (stdin always may). */
async function filesInWindow(files: readonly string[], window: SessionWindow): Promise<string[]> {
  const kept: string[] = [];
  for (const f of files) {
    const info = f === '-' ? null : await stat(f).catch(() => null);
    if (info === null || fileMayHold(info.mtimeMs, window)) kept.push(f);
  }
  return kept;
}

/**
 * The sessions that ran within the window, each decided on its own times; each file's ledger keeps
 * only those. Returns the inputs all of whose sessions were left out: like files not read, they are
 * not the ledger's inputs (a merge of shards then lists exactly what one run lists).
 */
function keepInWindow(results: FileLedger[], window: SessionWindow, filesLeft: number, onWindow: AuditOptions['onWindow']): Set<InputSummary> {
  const emptied = new Set<InputSummary>();
  let left = 0;
  let undated = 0;
  for (const r of results) {
    const kept = r.sessions.filter((s) => inWindow(s, window));
    for (const s of r.sessions) {
      if (kept.includes(s)) continue;
      if (s.started_at === null || s.started_at === undefined) undated += 1;
      else left += 1;
    }
    if (r.sessions.length > 0 && kept.length === 0) emptied.add(r.input);
    r.sessions = kept;
    r.input.sessions = kept.length;
  }
  onWindow?.({ files: filesLeft, sessions: left, undated });
  return emptied;
}

/**
 * The files' ledgers, asking the judge when one is configured (judge/run.ts: analyze, ask,
 * look again). Without one, exactly auditFiles.
 */
async function auditJudged(
  files: readonly string[],
  options: AuditOptions,
  config: ResolvedConfig,
): Promise<{ results: FileLedger[]; judge?: JudgeUsage }> {
  const connection = readJudgeConnection(config.config.ladder, options.env ?? process.env, options.onWarning);
  if (!connection) return { results: await auditFiles(files, options) };
  // A second look reads stdin again: keep what it gave in a temporary file for the run.
  const spool = files.includes('-') ? await spoolStdin(options.stdin ?? process.stdin) : null;
  try {
    const { results, usage } = await runWithJudge(
      files,
      connection,
      (some, plan, secondLook) =>
        auditFiles(some, {
          ...options,
          judgePlan: plan,
          ...(spool && some.includes('-') ? { stdin: createReadStream(spool.path) } : {}),
          // A second look's skipped lines and warnings were given by the first pass.
          ...(secondLook ? { onSkip: undefined, onWarning: undefined } : {}),
        }),
      { onWarning: options.onWarning, ...(await judgePricer(connection.model, options.pricing)) },
    );
    return { results: results.map(({ judge: _work, ...r }) => r), judge: usage };
  } finally {
    await spool?.remove();
  }
}

/** The judge's requests priced at its model's list price, as the sessions' requests are (nothing when prices are off). */
async function judgePricer(model: string, pricing: PricingOptions | undefined): Promise<{ price?: (input: number, output: number) => Quote }> {
  const book = await priceBookFor(pricing);
  if (book === null) return {};
  return {
    price: (input, output) => book.price(model, { input, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, output, reasoning: 0 }, null),
  };
}

/**
 * Under this many bytes in all, the default (no --jobs) runs on this thread: each lane is its own
 * heap with its own price data, ~0.3 s of CPU to start, more than lanes can save on inputs this
 * small (fixtures/, 1.1 MB: 1.0-1.2 s of CPU with the default lanes against 0.7-0.8 s on one
 * thread, wall no better). An explicit --jobs is obeyed whatever the size.
 */
const SMALL_INPUT_BYTES = 8 * 1024 * 1024;

/** Whether the inputs hold fewer than `limit` bytes (stdin counts as large: its size is unknown). */
function smallerThan(files: readonly string[], limit: number): boolean {
  let total = 0;
  // A folder input (an OpenHands conversation) is its events' files, one level down.
  const sizeOf = (path: string, depth: number): number => {
    const st = statSync(path);
    if (st.isFile()) return st.size;
    if (!st.isDirectory() || depth > 1) return Infinity;
    let sum = 0;
    for (const name of readdirSync(path)) {
      sum += sizeOf(join(path, name), depth + 1);
      if (sum >= limit) break;
    }
    return sum;
  };
  for (const file of files) {
    if (file === '-') return false;
    try {
      total += sizeOf(file, 0);
    } catch {
      return false;
    }
    if (total >= limit) return false;
  }
  return true;
}

/**
 * Where the default's two threads (one lane and its reading thread) start to pay for a store, as
 * for a file alone (PIPELINE_DEFAULT_MIN_BYTES): on two cores, real-shaped stores of 10, 16 and
 * 24 MB ran 3-8% faster on one thread, 32 MB tied, 48 MB was 4% faster on two (the CLI, four
 * alternated runs each; docs/performance.md). Three lanes on idle cores keep SMALL_INPUT_BYTES.
 */
const TWO_THREAD_MIN_BYTES = PIPELINE_DEFAULT_MIN_BYTES;

/**
 * The lanes a run takes without --jobs: one thread for a small input, else the idle cores within
 * the memory budget (run/lanes.ts chooseJobs), with why when lanes were weighed (for --verbose).
 * `machine` is this one unless given.
 */
function defaultLanesWhy(files: readonly string[], machine: Machine = currentMachine()): { jobs: number; why: string | null } {
  const chosen = chooseJobs(machine);
  return smallerThan(files, chosen.jobs === 2 ? TWO_THREAD_MIN_BYTES : SMALL_INPUT_BYTES) ? { jobs: 1, why: null } : chosen;
}

/** The lanes a run takes without --jobs (defaultLanesWhy without the reasons). */
export function defaultLanes(files: readonly string[], machine: Machine = currentMachine()): number {
  return defaultLanesWhy(files, machine).jobs;
}

/**
 * What ingestFile reports for an empty regular file, made without opening it or sending it to a
 * lane: 100k empty files cost 78 s when each went through a worker and an open, and cost a stat
 * this way. test/robustness/empty-files.test.ts keeps the two the same.
 */
export function emptyFileLedger(path: string, options: Pick<AuditOptions, 'judgePlan'> = {}): FileLedger {
  const input: InputSummary = { path, format: null, sessions: 0, lines: 0, skipped: [], skipped_lines: 0, not_transcript: 'empty', error: 'empty file' };
  return options.judgePlan ? { input, sessions: [], judge: { pending: [], answered: [] } } : { input, sessions: [] };
}

/**
 * A regular file of 0 bytes (a FIFO also says 0, and is read: `<(zcat log.gz)`), unless it is an
 * agent's database created in WAL mode, empty until its first checkpoint: its `-wal` holds it.
 */
function isEmptyFile(file: string): boolean {
  if (file === '-') return false;
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st !== undefined && st.isFile() && st.size === 0 && !(mayBeDatabase(file) && statSync(`${file}-wal`, { throwIfNoEntry: false }) !== undefined);
  } catch {
    return false;
  }
}

/** Files in order; with jobs > 1 they are analyzed concurrently but reported in the same order. */
async function auditFiles(files: readonly string[], options: AuditOptions): Promise<FileLedger[]> {
  // A forced format reads even an empty file through its adapter: only auto detection is short-cut.
  const empty = (options.inputFormat ?? 'auto') === 'auto' ? files.map(isEmptyFile) : files.map(() => false);
  const emptyCount = empty.filter(Boolean).length;
  if (emptyCount === 0) return auditNonEmpty(files, options);
  const rest = files.filter((_, i) => !empty[i]);
  const onProgress = options.onProgress;
  const analyzed = await auditNonEmpty(rest, { ...options, ...(onProgress ? { onProgress: (done: number, _total: number, current?: string) => onProgress(done + emptyCount, files.length, current) } : {}) });
  let next = 0;
  return files.map((file, i) => (empty[i] ? emptyFileLedger(file, options) : analyzed[next++]!));
}

async function auditNonEmpty(files: readonly string[], given: AuditOptions): Promise<FileLedger[]> {
  const chosen = given.jobs !== undefined ? boundedJobs(given.jobs) : defaultLanesWhy(files);
  if (chosen.why && given.verbose) given.onWarning?.(chosen.why);
  const allowed = chosen.jobs;
  const jobs = Math.min(allowed, files.length);
  // Files one after another (one lane or the reading thread's stream): the one after those done is the one being read.
  const told = given.onProgress;
  const options: AuditOptions = told && jobs <= 2 ? { ...given, onProgress: (done, total) => told(done, total, files[done]) } : given;
  options.onProgress?.(0, files.length);
  // Two threads for many files: one lane of detectors reading in a thread of its own, which costs
  // less CPU than two lanes each compiling and warming up the whole pipeline (file-stream.ts).
  if (jobs === 2) return auditInStream(files, options, auditFile);
  if (jobs > 1) return auditInWorkers(files, jobs, options, auditFile);
  if (allowed > 1 && files.length === 1 && (await worthPipelining(files[0]!, pipelineFloor(options)))) {
    // A large file alone: its detectors run in a lane, whose heap is capped (on this thread V8's
    // defaults let a 1 GB file peak ~30 MB higher), reading in a thread of the lane's.
    return auditInWorkers(files, 1, options, auditFile, true);
  }
  const results: FileLedger[] = [];
  // One lane was allowed, or one file not worth a second thread: each file on this thread (and no
  // file reads the machine again).
  for (const file of files) {
    results.push(await auditFile(file, { ...options, jobs: 1 }));
    options.onProgress?.(results.length, files.length);
  }
  return results;
}
