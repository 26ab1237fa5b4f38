// `loopledger merge FILE…`: read JSON ledgers (or `sweep --format json` partials) and add them up.
// The files are JSON documents written by loopledger, read in pieces (ledger/json-scan.ts): each
// input and session is checked as it arrives and put aside on disk, so a merge holds a few numbers
// per file and session and one whole session at a time; then merged by ledger/merge.ts (sweeps,
// small, whole by calibrate/merge.ts). The formats read the sessions (thin or whole) and inputs
// back from disk as they iterate them, and sort what they rank on disk (Spill.sort).

import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { type Command, Option, type OptionValues } from 'commander';
import { asSweep, mergeSweeps, SWEEP_SCHEMA } from '../merge/sweeps.js';
import type { SweepResult } from '../calibrate/sweep.js';
import { JsonScanError, JsonScanner } from '../merge/json-scan.js';
import { checkSessionField, InputsSeen, LedgerFieldError, NotTranscriptsSeen, SessionsSeen } from '../merge/ledger-check.js';
import { checkedTimeZone } from './time-flags.js';
import { asLedger, LEDGER_SCHEMA, type MergedShards, MergeError, mergeShards, type ShardLedger, wholeInOrder } from '../merge/add-up.js';
import type { InputSummary } from '../formats/input.js';
import type { NotTranscriptFile, SessionLedger } from '../ledger/types.js';
import { compareCodePoints } from '../read/discover.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { mapped } from '../report/lists.js';
import { SESSION_SORTS } from '../report/index.js';
import { ENFORCE_LEVELS, REPORT_FORMATS, type ReportFormat } from '../vocabulary.js';
import { type EmitOptions, emitLedger } from './analyze.js';
import { colorFor, warn, writePayload } from './common.js';
import { choice, chosen, count, flag, type RegisterCommand, text, wholeNumber } from './flags.js';
import { isStdout, sweepStaleTemps } from './output.js';
import { Spill, SPILL_PREFIX, SPILL_SUFFIX } from '../merge/spill.js';
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
    .option('--all', 'table: every finding of every round a row of its own (default: one row per run of the same finding, a screenful per session)')
    .addOption(new Option('--sort <order>', 'order of the overview').choices(SESSION_SORTS).default('level'))
    .option('-z, --timezone <zone>', "IANA time zone the times are shown in (default: the shards' --by zone, else the user's)")
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
      // The report itself, not a copy: the pass over the sessions completes its summary and periods in place.
      setExit(await emitLedger(Object.assign(thin, { sessions: wholeInOrder(merged.merged) as SessionLedger[] }), opts, io, setExit, NOTHING, files, gates));
      return;
    }
    const lazy = { wholeSession: (s: SessionLedger) => spill.whole(s), sorter: spill.sorter };
    setExit(await emitLedger({ ...thin, sessions: merged.merged.thin as SessionLedger[] }, opts, io, setExit, NOTHING, files, gates, lazy));
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
    all: flag(raw, 'all'),
    sort: choice(raw, 'sort', SESSION_SORTS),
    color: flag(raw, 'color'),
    quiet: flag(raw, 'quiet'),
    verbose: flag(raw, 'verbose'),
    set: [],
    ...(text(raw, 'timezone') !== undefined ? { timezone: checkedTimeZone(text(raw, 'timezone')!) } : {}),
  };
}

const NOTHING = 'the merged ledgers hold no session';

/** json, ndjson and otlp write each session whole, in order: they read nothing of a session but that (otlp no summary either). */
const streamsSessions = (format: ReportFormat) => format === 'json' || format === 'ndjson' || format === 'otlp';

type Merged = { kind: 'ledger'; merged: MergedShards } | { kind: 'sweep'; result: SweepResult };

/** A document as read: its members but `sessions`, which went to the spill (a ledger) or are kept (anything else). */
interface ReadDocument {
  name: string;
  value: unknown;
  /** A ledger checked as it ended: its files and no-transcripts in the spill (its `inputs` and `not_transcripts` let go), or why it was refused. */
  files?: { from: number; to: number };
  others?: { from: number; to: number };
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
  // Likewise its no-transcripts (the last `not_transcripts` list), and whether they came in path order.
  let others: NotTranscriptsSeen | null = null;
  let firstOther = spill.notTranscriptCount;
  let keptOthers: unknown[] | null = null;
  let lastOther: string | null = null;
  let othersInOrder = true;
  const notLedger = () => head['schema'] !== undefined && head['schema'] !== LEDGER_SCHEMA;
  let firstLine = '';
  const refused = (e: unknown): never => {
    if (e instanceof LedgerFieldError) throw new MergeError(`${name}: ${e.message}: not a ledger loopledger wrote (edited by hand?)`);
    throw e;
  };
  const member = (key: string, value: unknown) => {
    // An own property whatever the name, as JSON.parse makes it (`"__proto__"` included).
    Object.defineProperty(head, key, { value, writable: true, enumerable: true, configurable: true });
  };
  const scanner = new JsonScanner(['inputs', 'sessions', 'not_transcripts'], {
    member: (key, value) => {
      if (key === 'inputs') inputs = null;
      if (key === 'not_transcripts') others = null;
      member(key, value);
    },
    elementsStart: (key) => {
      if (key === 'not_transcripts') {
        others = new NotTranscriptsSeen();
        firstOther = spill.notTranscriptCount;
        keptOthers = notLedger() ? [] : null;
        lastOther = null;
        othersInOrder = true;
        return;
      }
      if (key !== 'inputs') return;
      inputs = new InputsSeen();
      firstFile = spill.fileCount;
      keptInputs = head['schema'] !== undefined && head['schema'] !== LEDGER_SCHEMA ? [] : null;
    },
    // The inputs and sessions were gathered into `inputs` and `seen` for the checks of the rest (asLedger) as they came.
    elementsEnd: (key) => {
      member(key, (key === 'inputs' ? keptInputs : key === 'not_transcripts' ? keptOthers : kept) ?? []);
    },
    element: (value, index, key) => {
      if (key === 'not_transcripts') {
        if (keptOthers !== null) keptOthers.push(value);
        // Each checked as it comes and put in the spill; a refusal is said when the ledger ends.
        else if (others!.add(value, index)) {
          const file = value as NotTranscriptFile;
          if (lastOther !== null && compareCodePoints(lastOther, file.path) >= 0) othersInOrder = false;
          lastOther = file.path;
          spill.addNotTranscript(file);
        }
        return;
      }
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
    const otherSeen = others as NotTranscriptsSeen | null;
    asLedger(head, name, read === null ? undefined : { sessions: seen, inputs: read, ...(otherSeen === null ? {} : { others: otherSeen }) });
    // Not reached without a list of inputs (asLedger refuses), so `read` holds them.
    const files = spill.addFiles({ from: firstFile, to: spill.fileCount }, read!, firstSession, sessionPaths);
    // None when the member is absent (a list given as anything else was refused above).
    const otherRange = otherSeen === null ? { from: spill.notTranscriptCount, to: spill.notTranscriptCount } : { from: firstOther, to: spill.notTranscriptCount };
    if (!othersInOrder) spill.notInPathOrder(otherRange);
    delete head['inputs'];
    delete head['not_transcripts'];
    return { name, value: head, files, others: otherRange };
  } catch (e) {
    if (e instanceof MergeError) return { name, value: head, refusal: e };
    throw e;
  }
}

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
    if (d.files === undefined || d.others === undefined) return { name: d.name, report: asLedger(d.value, d.name), files: { from: 0, to: 0 }, others: { from: 0, to: 0 } };
    return { name: d.name, report: d.value as ShardLedger['report'], files: d.files, others: d.others };
  });
  const asRead = options.summaryAsRead === true;
  // The inputs are read back from the spill as each format iterates them, never gathered in a list.
  return { kind: 'ledger', merged: mergeShards(shards, spill, { ...(options.onNote ? { onNote: options.onNote } : {}), summaryAsRead: asRead, inputsAsRead: true }) };
}

