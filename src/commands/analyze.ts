// `loopledger analyze` (the default command): the ledger of the transcripts under the paths, and
// the ledger's payload and exit code, which `merge` shares.

import { type Command, Option, type OptionValues } from 'commander';

import { MAX_SKIP_DIAGNOSTICS_PER_FILE, reportInputProblems } from './diagnostics.js';
import { isStdout } from './output.js';
import { plural } from '../report/text.js';
import { startProgress } from './progress.js';
import { defaultInputs } from './stores.js';
import { colorFor, type CliIO, type CommonOptions, configFrom, terminalWidth, warn, writePayload } from './common.js';
import { EXIT_FAIL_ON, EXIT_OK, EXIT_USAGE, InputError } from '../errors.js';
import type { LedgerReport, SessionLedger } from '../ledger/types.js';
import { readPriceFile } from '../money/price-file.js';
import type { FormatName } from '../model/transcript.js';
import { parseShard, type Shard } from '../read/shard.js';
import { reachedFailOn, reportChunks, type ReportOptions, SESSION_SORTS, type SessionSort } from '../report/index.js';
import { checkEndpointFlag } from '../report/otlp/endpoint.js';
import { exportFindings } from '../report/otlp/post.js';
import { evaluationTime } from '../report/otlp/records.js';
import { ENFORCE_LEVELS, type EnforceLevel, isMode, type Mode, REPORT_FORMATS, type ReportFormat } from '../vocabulary.js';
import { sanitize } from '../sanitize.js';
import { audit } from '../run/audit.js';
import { PERIOD_UNITS } from '../ledger/calendar.js';
import { type TimeOptions, timeOptions, userTimeZone } from './time-flags.js';
import type { AuditOptions } from '../run/options.js';
import {
  addConfigOptions,
  chosen,
  choice,
  configOptions,
  count,
  flag,
  INPUT_FORMAT_CHOICES,
  inputFormat,
  positiveInt,
  type RegisterCommand,
  shard,
  text,
  wholeNumber,
} from './flags.js';

interface AnalyzeOptions extends CommonOptions {
  format: ReportFormat;
  json?: boolean;
  outputFile?: string;
  failOn: EnforceLevel;
  inputFormat: FormatName | 'auto';
  strict?: boolean;
  excerpts?: boolean;
  explain?: boolean;
  jobs?: number;
  top?: number;
  /** `--all`: the table lists every finding (report/rows.ts). */
  all?: boolean;
  sort?: SessionSort;
  prices?: string;
  shard?: Shard;
  /** `--otlp-endpoint [url]`: true when given without a URL (the OTEL_EXPORTER_OTLP_* variables say where). */
  otlpEndpoint?: string | true;
  /** `--since`, `--until`, `--timezone`, `--by`. */
  time: TimeOptions;
}

export const registerAnalyzeCommand: RegisterCommand = (program, io, setExit) => {
  const analyze: Command = program
    .command('analyze', { isDefault: true })
    .description(
      'print the ledger of the transcripts under <paths> (files, directories, - for stdin); the default command. ' +
        "With no path, the session stores of this user's agents (see loopledger stores)",
    )
    .argument('[paths...]', 'transcript files or directories (a home folder reads the agents\' stores in it); - reads stdin')
    .addOption(new Option('--format <format>', 'output format').choices(REPORT_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .option('-o, --output-file <path>', 'write the payload to a file (atomically; - is stdout; never over an input)')
    .addOption(new Option('--fail-on <level>', 'exit 1 when a session reaches this level under enforce').choices(ENFORCE_LEVELS).default('none'))
    .addOption(new Option('--input-format <name>', 'force an input format').choices(INPUT_FORMAT_CHOICES).default('auto'))
    .option('--strict', 'malformed input is an error (exit 2)')
    .option('--excerpts', 'show at most 3 excerpts of at most 80 characters per entry')
    .option('--explain', 'show the statistics and threshold behind each entry')
    .option('--jobs <n>', 'threads to analyze on (default: the idle cores, within memory; docs/scale.md)', positiveInt)
    .option('--top <n>', 'with more sessions than N: an overview first, then only the top N in full; 0 prints every session (default 10)', wholeNumber)
    .option('--all', 'table: every finding of every round a row of its own (default: one row per run of the same finding, a screenful per session)')
    .addOption(new Option('--sort <order>', 'order of the overview: enforce level, what Enforce would have saved, cost, path, or date (newest first)').choices(SESSION_SORTS).default('level'))
    .option('-s, --since <when>', 'only sessions that ran at or after: a date (2026-11-30), a date-time (2026-11-30T09:00) or a span back from now (7d, 12h, 2w)')
    .option('-u, --until <when>', 'only sessions that ran at or before (a date counts whole)')
    .option('-z, --timezone <zone>', "IANA time zone of dates, periods and the times shown (default: the user's)")
    .addOption(new Option('--by <period>', 'add the sessions up per day, week (ISO) or month').choices(PERIOD_UNITS))
    .option('--prices <file>', 'JSON prices that add to or override the bundled list prices (see docs/pricing.md)')
    .option('--shard <K/N>', 'only the files whose path hashes to shard K of N (1-based; combine with loopledger merge)', parseShard)
    .option('--otlp-endpoint [url]', 'also post the findings as OTLP/HTTP JSON log records (/v1/logs appended unless given); no URL: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT', checkEndpointFlag);
  addConfigOptions(analyze, { color: true, quiet: 'only sessions with entries; fewer diagnostics', verbose: "every round's verdict and near misses" }).action(async (paths: string[], raw: OptionValues) => {
    setExit(await runAnalyze(paths, analyzeOptions(raw), io, setExit));
  });
};

function analyzeOptions(raw: OptionValues): AnalyzeOptions {
  return {
    ...configOptions(raw),
    format: chosen(raw, 'format', REPORT_FORMATS),
    json: flag(raw, 'json'),
    outputFile: text(raw, 'outputFile'),
    failOn: chosen(raw, 'failOn', ENFORCE_LEVELS),
    inputFormat: inputFormat(raw),
    strict: flag(raw, 'strict'),
    excerpts: flag(raw, 'excerpts'),
    explain: flag(raw, 'explain'),
    jobs: count(raw, 'jobs'),
    top: count(raw, 'top'),
    all: flag(raw, 'all'),
    sort: choice(raw, 'sort', SESSION_SORTS),
    prices: text(raw, 'prices'),
    shard: shard(raw),
    otlpEndpoint: otlpEndpoint(raw),
    time: timeOptions(raw),
  };
}

/** `--otlp-endpoint` alone is `true` (the OTEL_EXPORTER_OTLP_* variables say where); with a URL, the URL. */
function otlpEndpoint(raw: OptionValues): string | true | undefined {
  const value: unknown = raw['otlpEndpoint'];
  return value === true || typeof value === 'string' ? value : undefined;
}

async function runAnalyze(paths: string[], opts: AnalyzeOptions, cliIO: CliIO, announce: (code: number) => void): Promise<number> {
  const format: ReportFormat = opts.json ? 'json' : opts.format;
  // A SOURCE_DATE_EPOCH the records cannot carry is refused before any transcript is read.
  if (format === 'otlp' || opts.otlpEndpoint !== undefined) evaluationTime(cliIO.env);
  const loaded = await configFrom(opts, cliIO.env);
  const progress = startProgress(cliIO.stderr, cliIO.env, opts.quiet ?? false);
  const io: CliIO = progress ? { ...cliIO, stderr: progress.stderr as CliIO['stderr'] } : cliIO;
  for (const w of loaded.warnings) warn(io, w);
  if (paths.length === 0) {
    // SPEC: no path at all audits the agents' session stores of this user, named on stderr.
    const stores = await defaultInputs(io.env);
    if (!opts.quiet) warn(io, stores.announcement);
    paths = stores.roots;
  }

  const skipCounts = new Map<string, number>();
  const options: AuditOptions = {
    config: loaded.resolved,
    inputFormat: opts.inputFormat,
    excerpts: opts.excerpts ?? false,
    explain: opts.explain ?? false,
    verbose: opts.verbose ?? false,
    // The page draws turn boundaries and spend along each session. A shard's JSON ledger carries them
    // too, so that `merge --format html` draws the page one run draws; other outputs never do.
    timeline: format === 'html' || (opts.shard !== undefined && format === 'json'),
    jobs: opts.jobs,
    // The judge's key is looked up in the environment `main` was given, not the process's.
    env: io.env,
    // Read (and checked) before any transcript: a bad prices file is a usage error, not a wrong figure.
    pricing: { overrides: opts.prices !== undefined ? await readPriceFile(opts.prices) : null },
    onWarning: (m) => warn(io, m),
    onProgress: progress ? (done, total, current) => progress.update(done, total, current) : undefined,
    ...(opts.shard ? { shard: opts.shard } : {}),
    ...(opts.time.window ? { window: opts.time.window, onWindow: (left) => windowNote(io, left, opts.quiet ?? false) } : {}),
    ...(opts.time.periods ? { periods: opts.time.periods } : {}),
    onSkip: (path, skipped) => {
      const n = (skipCounts.get(path) ?? 0) + 1;
      skipCounts.set(path, n);
      if (n <= MAX_SKIP_DIAGNOSTICS_PER_FILE) {
        io.stderr.write(`${sanitize(path)}:${skipped.line ?? '-'}: ${sanitize(skipped.reason)}\n`);
      }
    },
  };
  const report = await audit(paths, options).finally(() => progress?.finish());
  // One shard may hold nothing (more shards than files): `merge --fail-on` is the gate on the whole.
  const nothing = opts.shard ? null : `no transcript found under ${paths.join(', ')}`;
  const code = await emitLedger(report, { ...opts, format, timezone: opts.time.timezone }, io, announce, nothing, inputsOf(report));
  if (opts.otlpEndpoint !== undefined) await exportFindings(report, opts.otlpEndpoint, { env: io.env, warn: (m) => warn(io, m), quiet: opts.quiet, excerpts: opts.excerpts });
  return code;
}

/** What the window left out, on one stderr line: a narrowed ledger says so. */
function windowNote(io: CliIO, left: { files: number; sessions: number; undated: number }, quiet: boolean): void {
  if (quiet || left.files + left.sessions + left.undated === 0) return;
  const parts = [
    left.sessions > 0 ? `${plural(left.sessions, 'session')} outside it` : '',
    left.undated > 0 ? `${plural(left.undated, 'session')} without times` : '',
    left.files > 0 ? `${plural(left.files, 'file')} unchanged since before --since, not read` : '',
  ].filter((p) => p !== '');
  warn(io, `--since/--until left out ${parts.join(', ')}`);
}

export type EmitOptions = Pick<
  AnalyzeOptions,
  'format' | 'outputFile' | 'failOn' | 'strict' | 'excerpts' | 'explain' | 'top' | 'all' | 'sort' | 'verbose' | 'quiet' | 'color' | 'set'
> & { timezone?: string };

/**
 * A ledger's payload and exit code, for analyze and merge alike. `nothing`: what to say when
 * `--fail-on` finds no session (null: not a gate on nothing). `inputs`: files never written over.
 * `sessions`: what the exit code is decided on, when `report.sessions` is read lazily (a large
 * merge streams them from disk): the sessions, or any version with their entries' levels, iterated
 * once. `lazy`: how the formats read a merge's sessions whole and sort them (ReportOptions).
 */
export async function emitLedger(
  report: LedgerReport,
  opts: EmitOptions,
  io: CliIO,
  announce: (code: number) => void,
  nothing: string | null,
  inputs: readonly string[],
  sessions: Iterable<SessionLedger> = report.sessions,
  lazy: Pick<ReportOptions, 'wholeSession' | 'sorter'> = {},
): Promise<number> {
  const format = opts.format;
  const { unreadable, unusable, malformed } = reportInputProblems(report, opts.verbose ?? false, (m) => warn(io, m));
  let count = 0;
  let failing = 0;
  for (const s of sessions) {
    count += 1;
    if (reachedFailOn(s, opts.failOn)) failing += 1;
  }
  if (opts.failOn !== 'none' && count === 0 && nothing !== null) {
    // SPEC: a CI gate never passes on nothing.
    throw new InputError(`--fail-on ${opts.failOn}: ${nothing}; a gate on nothing fails closed`);
  }

  // Rendered while it is written, piece by piece: a ledger of any size is never one string.
  const payload = reportChunks(report, format, {
    color: colorFor(opts, io, isStdout(opts.outputFile)),
    width: terminalWidth(io),
    top: opts.top,
    all: opts.all,
    sort: opts.sort,
    verbose: opts.verbose ?? false,
    quiet: opts.quiet ?? false,
    explain: opts.explain ?? false,
    excerpts: opts.excerpts ?? false,
    failOn: opts.failOn,
    mode: modeOf(report.config),
    // Only the otlp records carry the time: a SOURCE_DATE_EPOCH no other format reads is not checked.
    ...(format === 'otlp' ? { evaluatedAt: evaluationTime(io.env) } : {}),
    timezone: opts.timezone ?? report.timezone ?? userTimeZone(),
    ...lazy,
  });
  const strictFailed = opts.strict === true && (malformed > 0 || unusable > 0);
  // The verdict is known before the payload is written: a reader closing the pipe mid-write
  // (`| head`) ends the process from the EPIPE handler, which must exit with it, not with 0.
  announce(unreadable > 0 || strictFailed ? EXIT_USAGE : failing > 0 ? EXIT_FAIL_ON : EXIT_OK);
  await writePayload(io, payload, opts.outputFile, inputs);

  if (unreadable > 0) return EXIT_USAGE;
  if (strictFailed) {
    warn(io, `--strict: ${plural(malformed, 'malformed line')}, ${unusable} ${unusable === 1 ? 'input that is' : 'inputs that are'} no transcript`);
    return EXIT_USAGE;
  }
  if (failing > 0) {
    if (!opts.quiet) warn(io, `${plural(failing, 'session')} reached --fail-on ${opts.failOn} under enforce`);
    return EXIT_FAIL_ON;
  }
  return EXIT_OK;
}

/** SPEC: never modify an input: every file read, except loopledger's own earlier reports. */
function inputsOf(report: Awaited<ReturnType<typeof audit>>): string[] {
  const others = (report.not_transcripts ?? []).filter((f) => f.reason !== 'loopledger-report').map((f) => f.path);
  return [...report.inputs.map((i) => i.path), ...others];
}

function modeOf(config: Readonly<Record<string, unknown>>): Mode {
  const mode = config['mode'];
  return typeof mode === 'string' && isMode(mode) ? mode : 'telemetry';
}
