// `loopledger merge FILE…`: read JSON ledgers (or `sweep --format json` partials) and add them up.
// The files are JSON documents written by loopledger; each is read whole (a shard's ledger is one
// shard's worth), checked, then merged by ledger/merge.ts or calibrate/merge.ts.

import { promises as fs } from 'node:fs';
import { type Command, Option, type OptionValues } from 'commander';
import { asSweep, mergeSweeps, SWEEP_SCHEMA } from '../calibrate/merge.js';
import type { SweepResult } from '../calibrate/sweep.js';
import { asLedger, MergeError, mergeLedgers } from '../ledger/merge.js';
import type { LedgerReport } from '../ledger/types.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { SESSION_SORTS } from '../report/index.js';
import { ENFORCE_LEVELS, REPORT_FORMATS, type ReportFormat } from '../vocabulary.js';
import { type EmitOptions, emitLedger } from './analyze.js';
import { colorFor, warn, writePayload } from './common.js';
import { choice, chosen, count, flag, type RegisterCommand, text, wholeNumber } from './flags.js';
import { isStdout } from './output.js';
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
    const merged = await mergeFiles(files, { onNote: (m) => warn(io, m), timelines: opts.format === 'html' });
    if (merged.kind === 'sweep') {
      const format = opts.format;
      if (format !== 'table' && format !== 'json' && format !== 'html') throw new UsageError(`merge: a sweep prints as table, json or html, not ${format}`);
      await writePayload(io, renderSweep(merged.result, { format, color: colorFor(opts, io, isStdout(opts.outputFile)) }), opts.outputFile, files);
      setExit(EXIT_OK);
      return;
    }
    // Shards carry each session's timeline for the page; every other output prints what one run prints.
    const report = opts.format === 'html' ? merged.report : withoutTimelines(merged.report);
    setExit(await emitLedger(report, opts, io, setExit, 'the merged ledgers hold no session', files));
  });
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

type Merged = { kind: 'ledger'; report: LedgerReport } | { kind: 'sweep'; result: SweepResult };

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await fs.readFile(file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'a directory (name the ledger files)' : err.message;
    throw new MergeError(`${file}: cannot read: ${why}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (e) {
    const firstLine = text.slice(0, text.indexOf('\n') >>> 0);
    const ndjson = /^\s*\{.*\}\s*$/.test(firstLine) && text.trim().includes('\n');
    throw new MergeError(
      ndjson
        ? `${file}: ndjson holds entries only (no calm sessions, inputs or totals): merge the --format json ledgers`
        : `${file}: not JSON: ${(e as Error).message}`,
    );
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function dropTimelines(value: unknown): void {
  const sessions = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['sessions'] : undefined;
  if (!Array.isArray(sessions)) return;
  for (const s of sessions) if (typeof s === 'object' && s !== null) delete (s as Record<string, unknown>)['timeline'];
}

/** Ledgers merge with ledgers, sweeps with sweeps; anything else is refused naming the file. */
interface MergeFileOptions {
  /** Notes on stderr (a file given twice, counted once). */
  onNote?: (message: string) => void;
  /** Keep each session's timeline (only the page draws them); without, they are dropped as each shard is read. */
  timelines?: boolean;
}

async function mergeFiles(files: readonly string[], options: MergeFileOptions = {}): Promise<Merged> {
  if (files.length === 0) throw new MergeError('merge: name the JSON ledgers to merge (loopledger analyze … --shard K/N --format json)');
  const docs: { name: string; value: unknown }[] = [];
  for (const name of files) {
    const value = await readJson(name);
    // Dropped as each shard is read, before the next is: a shard's timelines are a fifth of it and
    // only the page draws them.
    if (options.timelines !== true) dropTimelines(value);
    docs.push({ name, value });
  }
  const schemaOf = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)['schema'] : undefined);
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
  return { kind: 'ledger', report: mergeLedgers(docs.map((d) => ({ name: d.name, report: asLedger(d.value, d.name) })), options.onNote) };
}

/** The ledger without the sessions' timelines (shards carry them for `merge --format html` only). */
function withoutTimelines(report: LedgerReport): LedgerReport {
  if (!report.sessions.some((s) => s.timeline !== undefined)) return report;
  return { ...report, sessions: report.sessions.map(({ timeline: _drawnOnly, ...rest }) => rest) };
}
