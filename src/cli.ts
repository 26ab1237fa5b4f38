// The command line: a thin shell over the library. It owns argument parsing, where output goes,
// diagnostics on stderr and the exit code; everything else is a library call.

import { Command, CommanderError, Option } from 'commander';
import { audit } from './run/audit.js';
import type { AuditOptions } from './run/options.js';
import { loadConfig, type LoadedConfig } from './config/load.js';
import { renderConfig } from './commands/config.js';
import { renderFormats } from './commands/formats.js';
import { MAX_SKIP_DIAGNOSTICS_PER_FILE, reportInputProblems } from './commands/diagnostics.js';
import { isStdout, refuseInputAsOutput, writeFileAtomically } from './commands/output.js';
import { startProgress } from './commands/progress.js';
import { defaultInputs, renderStores, surveyStores } from './commands/stores.js';
import { refuseMistypedCommand } from './commands/suggest.js';
import { discoverInputs } from './read/discover.js';
import { parseShard, type Shard } from './read/shard.js';
import type { PositiveLevel } from './calibrate/sweep.js';
import { runSweep } from './commands/sweep-run.js';
import { EXIT_FAIL_ON, EXIT_OK, EXIT_USAGE, InputError, LoopledgerError, UsageError } from './errors.js';
import { PROFILES } from './ladder/config.js';
import { readPriceFile } from './money/price-file.js';
import { FORMAT_NAMES, type FormatName } from './model/transcript.js';
import { resolveColor } from './report/color.js';
import { reachedFailOn, reportChunks, SESSION_SORTS, writeChunks, type Chunks, type ReportFormat, type SessionSort } from './report/index.js';
import { batched } from './report/stream.js';
import { sanitizeText } from './report/sanitize.js';
import { VERSION } from './version.js';
import type { LedgerReport } from './ledger/types.js';
import { mergeFiles, withoutTimelines } from './commands/merge.js';
import { renderSweep } from './commands/sweep.js';

const REPORT_FORMATS = ['table', 'json', 'ndjson', 'markdown', 'junit', 'sarif', 'github', 'html'] as const;
const FAIL_LEVELS = ['none', 'noted', 'steer', 'stop'] as const;
type FailLevel = (typeof FAIL_LEVELS)[number];

export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

const defaultIO = (): CliIO => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

interface CommonOptions {
  config?: string;
  set: string[];
  scope?: string;
  profile?: string;
  modelCapability?: string;
  color?: boolean;
  quiet?: boolean;
  verbose?: boolean;
}

interface AnalyzeOptions extends CommonOptions {
  format: ReportFormat;
  json?: boolean;
  outputFile?: string;
  failOn: FailLevel;
  inputFormat: FormatName | 'auto';
  strict?: boolean;
  excerpts?: boolean;
  explain?: boolean;
  jobs?: number;
  top?: number;
  sort?: SessionSort;
  prices?: string;
  shard?: Shard;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--jobs takes a whole number of at least 1, not ${value}`);
  return n;
}

function wholeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0) throw new UsageError(`--top takes a whole number (0 for every session), not ${value}`);
  return n;
}

/** Columns the human formats fit: the terminal's, else COLUMNS, else 120. */
function terminalWidth(io: CliIO): number {
  return io.stdout.columns && io.stdout.columns > 0 ? io.stdout.columns : Number(io.env['COLUMNS']) || 120;
}

function addConfigOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'configuration file (JSON)')
    .option('--set <key=value>', 'set one configuration key (repeatable)', collect, [])
    .addOption(new Option('--scope <scope>', 'detector state per user turn, or one tool-batch detector across the replayed conversation').choices(['turn', 'replay']))
    .addOption(new Option('--profile <profile>', 'policy profile for threshold scaling').choices(['auto', ...PROFILES]))
    .addOption(new Option('--model-capability <capability>', 'model capability tier').choices(['auto', 'strong', 'standard', 'weak']))
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .option('--quiet', 'only sessions with entries; fewer diagnostics')
    .option('--verbose', "every round's verdict and near misses");
}

async function configFrom(opts: CommonOptions): Promise<LoadedConfig> {
  const overrides: Record<string, string> = {};
  if (opts.scope) overrides['scope'] = opts.scope;
  if (opts.profile) overrides['policy.profile'] = opts.profile;
  if (opts.modelCapability) overrides['policy.model_capability'] = opts.modelCapability;
  return loadConfig({ file: opts.config, sets: opts.set, overrides });
}

function colorFor(opts: CommonOptions, io: CliIO, toTerminal: boolean): boolean {
  // A file is read later, by tools: FORCE_COLOR (common in CI) should colour the log, not the
  // artifact. Only an explicit --color puts escape codes in a file.
  if (!toTerminal) return opts.color === true;
  return resolveColor({ flag: opts.color, env: io.env, isTTY: io.stdout.isTTY === true });
}

function warn(io: CliIO, message: string): void {
  io.stderr.write(`loopledger: ${sanitizeText(message)}\n`);
}

/** stdout, or `--output-file` (`-o`; `-` is stdout) written atomically, never over an input. */
async function writePayload(io: CliIO, payload: string | Chunks, outputFile: string | undefined, inputs: readonly string[] = []): Promise<void> {
  const chunks = typeof payload === 'string' ? [payload] : payload;
  if (isStdout(outputFile)) return writeChunks(io.stdout, chunks);
  await refuseInputAsOutput(outputFile, inputs);
  await writeFileAtomically(outputFile, batched(chunks));
}

async function runAnalyze(paths: string[], opts: AnalyzeOptions, cliIO: CliIO, announce: (code: number) => void): Promise<number> {
  const format: ReportFormat = opts.json ? 'json' : opts.format;
  const loaded = await configFrom(opts);
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
    config: loaded.values,
    inputFormat: opts.inputFormat,
    excerpts: opts.excerpts ?? false,
    explain: opts.explain ?? false,
    verbose: opts.verbose ?? false,
    // The page draws turn boundaries and spend along each session. A shard's JSON ledger carries them
    // too, so that `merge --format html` draws the page one run draws; other outputs never do.
    timeline: format === 'html' || (opts.shard !== undefined && format === 'json'),
    jobs: opts.jobs,
    // Read (and checked) before any transcript: a bad prices file is a usage error, not a wrong figure.
    pricing: { overrides: opts.prices !== undefined ? await readPriceFile(opts.prices) : null },
    onWarning: (m) => warn(io, m),
    onProgress: progress ? (done, total) => progress.update(done, total) : undefined,
    ...(opts.shard ? { shard: opts.shard } : {}),
    onSkip: (path, skipped) => {
      const n = (skipCounts.get(path) ?? 0) + 1;
      skipCounts.set(path, n);
      if (n <= MAX_SKIP_DIAGNOSTICS_PER_FILE) {
        io.stderr.write(`${sanitizeText(path)}:${skipped.line ?? '-'}: ${sanitizeText(skipped.reason)}\n`);
      }
    },
  };
  const report = await audit(paths, options).finally(() => progress?.finish());
  // One shard may hold nothing (more shards than files): `merge --fail-on` is the gate on the whole.
  const nothing = opts.shard ? null : `no transcript found under ${paths.join(', ')}`;
  return emitLedger(report, { ...opts, format }, io, announce, nothing, inputsOf(report));
}

type EmitOptions = Pick<
  AnalyzeOptions,
  'format' | 'outputFile' | 'failOn' | 'strict' | 'excerpts' | 'explain' | 'top' | 'sort' | 'verbose' | 'quiet' | 'color' | 'set'
>;

/**
 * A ledger's payload and exit code, for analyze and merge alike. `nothing`: what to say when
 * `--fail-on` finds no session (null: not a gate on nothing). `inputs`: files never written over.
 */
async function emitLedger(
  report: LedgerReport,
  opts: EmitOptions,
  io: CliIO,
  announce: (code: number) => void,
  nothing: string | null,
  inputs: readonly string[],
): Promise<number> {
  const format = opts.format;
  const { unreadable, unusable, malformed } = reportInputProblems(report, opts.verbose ?? false, (m) => warn(io, m));
  if (opts.failOn !== 'none' && report.sessions.length === 0 && nothing !== null) {
    // SPEC: a CI gate never passes on nothing.
    throw new InputError(`--fail-on ${opts.failOn}: ${nothing}; a gate on nothing fails closed`);
  }

  // Rendered while it is written, piece by piece: a ledger of any size is never one string.
  const payload = reportChunks(report, format, {
    color: colorFor(opts, io, isStdout(opts.outputFile)),
    width: terminalWidth(io),
    top: opts.top,
    sort: opts.sort,
    verbose: opts.verbose ?? false,
    quiet: opts.quiet ?? false,
    explain: opts.explain ?? false,
    excerpts: opts.excerpts ?? false,
    failOn: opts.failOn,
    mode: modeOf(report.config),
  });
  const strictFailed = opts.strict === true && (malformed > 0 || unusable > 0);
  const failing = report.sessions.filter((s) => reachedFailOn(s, opts.failOn));
  // The verdict is known before the payload is written: a reader closing the pipe mid-write
  // (`| head`) ends the process from the EPIPE handler, which must exit with it, not with 0.
  announce(unreadable > 0 || strictFailed ? EXIT_USAGE : failing.length > 0 ? EXIT_FAIL_ON : EXIT_OK);
  await writePayload(io, payload, opts.outputFile, inputs);

  if (unreadable > 0) return EXIT_USAGE;
  if (strictFailed) {
    warn(io, `--strict: ${malformed} malformed line(s), ${unusable} input(s) that are no transcript`);
    return EXIT_USAGE;
  }
  if (failing.length > 0) {
    if (!opts.quiet) warn(io, `${failing.length} session(s) reached --fail-on ${opts.failOn} under enforce`);
    return EXIT_FAIL_ON;
  }
  return EXIT_OK;
}

/** SPEC: never modify an input: every file read, except loopledger's own earlier reports. */
function inputsOf(report: Awaited<ReturnType<typeof audit>>): string[] {
  const others = (report.not_transcripts ?? []).filter((f) => f.reason !== 'loopledger-report').map((f) => f.path);
  return [...report.inputs.map((i) => i.path), ...others];
}

function modeOf(config: Readonly<Record<string, unknown>>): 'off' | 'telemetry' | 'enforce' {
  const mode = config['mode'];
  return mode === 'off' || mode === 'enforce' ? mode : 'telemetry';
}

export function buildProgram(io: CliIO, setExit: (code: number) => void): Command {
  const program = new Command('loopledger');
  program
    .description(
      'Audit recorded AI-agent sessions for loops: replay every round through the tool-batch, output and ' +
        'thinking detectors and print a ledger of what Off, Telemetry and Enforce would have done.',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run loopledger --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      // commander echoes the offending argument, and a glob over hostile file names can put an
      // escape sequence there: stderr gets the same neutralizing as every other diagnostic.
      writeErr: (s) => io.stderr.write(sanitizeText(s, { multiline: true })),
    })
    .exitOverride();

  const analyze = program
    .command('analyze', { isDefault: true })
    .description(
      'print the ledger of the transcripts under <paths> (files, directories, - for stdin); the default command. ' +
        "With no path, the session stores of this user's agents (see loopledger stores)",
    )
    .argument('[paths...]', 'transcript files or directories (a home folder reads the agents\' stores in it); - reads stdin')
    .addOption(new Option('--format <format>', 'output format').choices(REPORT_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .option('-o, --output-file <path>', 'write the payload to a file (atomically; - is stdout; never over an input)')
    .addOption(new Option('--fail-on <level>', 'exit 1 when a session reaches this level under enforce').choices(FAIL_LEVELS).default('none'))
    .addOption(new Option('--input-format <name>', 'force an input format').choices(['auto', ...FORMAT_NAMES]).default('auto'))
    .option('--strict', 'malformed input is an error (exit 2)')
    .option('--excerpts', 'show at most 3 excerpts of at most 80 characters per entry')
    .option('--explain', 'show the statistics and threshold behind each entry')
    .option('--jobs <n>', 'files analyzed at once (default: the number of cores)', positiveInt)
    .option('--top <n>', 'with more sessions than N: an overview first, then only the top N in full; 0 prints every session (default 10)', wholeNumber)
    .addOption(new Option('--sort <order>', 'order of the overview: enforce level, what Enforce would have saved, cost, or path').choices(SESSION_SORTS).default('level'))
    .option('--prices <file>', 'JSON prices that add to or override the bundled list prices (see README, "What it cost")')
    .option('--shard <K/N>', 'only the files whose path hashes to shard K of N (1-based; combine with loopledger merge)', parseShard);
  addConfigOptions(analyze).action(async (paths: string[], opts: AnalyzeOptions) => {
    setExit(await runAnalyze(paths, opts, io, setExit));
  });

  const sweep = program
    .command('sweep')
    .description('for each value of a threshold, how many sessions fire, steer and stop; with labels, precision, recall and FPR')
    .argument('<paths...>', 'transcript files or directories')
    .requiredOption('--param <key=from:to:step>', 'the threshold and its range (repeat for a grid of two)', collect, [])
    .option('--labels <file>', 'JSON: session id or file name → loop | clean')
    .option('--max-fpr <ratio>', 'report the value that keeps the false-positive rate at or under this bound')
    .addOption(
      new Option('--positive <level>', 'the enforce level that counts as flagging a labeled session (precision, recall, FPR)')
        .choices(['noted', 'steer', 'stop'])
        .default('stop'),
    )
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'html']).default('table'))
    .option('--json', 'same as --format json')
    .option('-o, --output-file <path>', 'write the payload to a file (atomically; - is stdout; never over an input)')
    .addOption(new Option('--input-format <name>', 'force an input format').choices(['auto', ...FORMAT_NAMES]).default('auto'))
    .option('--jobs <n>', 'files analyzed at once', positiveInt)
    .option('--shard <K/N>', 'only the files whose path hashes to shard K of N (merge the JSON partials with loopledger merge)', parseShard);
  addConfigOptions(sweep).action(async (paths: string[], opts: CommonOptions & Record<string, unknown>) => {
    const loaded = await configFrom(opts);
    for (const w of loaded.warnings) warn(io, w);
    const payload = await runSweep(paths, {
      loaded,
      params: opts['param'] as string[],
      labels: opts['labels'] as string | undefined,
      maxFpr: opts['maxFpr'] as string | undefined,
      positive: opts['positive'] as PositiveLevel,
      format: opts['json'] ? 'json' : (opts['format'] as 'table' | 'json' | 'html'),
      color: colorFor(opts, io, isStdout(opts['outputFile'] as string | undefined)),
      inputFormat: opts['inputFormat'] as FormatName | 'auto',
      onWarning: (m) => warn(io, m),
      shard: opts['shard'] as Shard | undefined,
    });
    const outputFile = opts['outputFile'] as string | undefined;
    await writePayload(io, payload, outputFile, isStdout(outputFile) ? [] : (await discoverInputs(paths)).files);
    setExit(EXIT_OK);
  });

  const merge = program
    .command('merge')
    .description(
      'add up shard ledgers (analyze --shard K/N --format json) or sweep --format json partials: exactly what one run over everything prints',
    )
    .argument('<files...>', 'JSON ledgers, or sweep partials (- reads one from stdin)')
    .addOption(new Option('--format <format>', 'output format (a sweep: table, json or html)').choices(REPORT_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .option('-o, --output-file <path>', 'write the payload to a file (atomically; - is stdout; never over an input)')
    .addOption(new Option('--fail-on <level>', 'exit 1 when a session reaches this level under enforce').choices(FAIL_LEVELS).default('none'))
    .option('--strict', 'exit 2 when the shards skipped malformed lines or met inputs that are no transcript')
    .option('--excerpts', 'show the excerpts the shards recorded (analyze --excerpts)')
    .option('--explain', 'show the statistics the shards recorded (analyze --explain)')
    .option('--top <n>', 'with more sessions than N: an overview first, then only the top N in full; 0 prints every session (default 10)', wholeNumber)
    .addOption(new Option('--sort <order>', 'order of the overview').choices(SESSION_SORTS).default('level'))
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .option('--quiet', 'only sessions with entries; fewer diagnostics')
    .option('--verbose', "every round's verdict the shards recorded (analyze --verbose)");
  merge.action(async (files: string[], opts: AnalyzeOptions) => {
    const format: ReportFormat = opts.json ? 'json' : opts.format;
    const merged = await mergeFiles(files);
    if (merged.kind === 'sweep') {
      if (format !== 'table' && format !== 'json' && format !== 'html') throw new UsageError(`merge: a sweep prints as table, json or html, not ${format}`);
      await writePayload(io, renderSweep(merged.result, { format, color: colorFor(opts, io, isStdout(opts.outputFile)) }), opts.outputFile, files);
      setExit(EXIT_OK);
      return;
    }
    // Shards carry each session's timeline for the page; every other output prints what one run prints.
    const report = format === 'html' ? merged.report : withoutTimelines(merged.report);
    setExit(await emitLedger(report, { ...opts, format }, io, setExit, 'the merged ledgers hold no session', files));
  });

  const config = program
    .command('config')
    .description('the effective configuration: every key, its value, its default and where the value came from')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('--json', 'same as --format json');
  addConfigOptions(config).action(async (opts: CommonOptions & { format: 'table' | 'json'; json?: boolean }) => {
    const loaded = await configFrom(opts);
    for (const w of loaded.warnings) warn(io, w);
    const rendered = renderConfig(loaded, {
      format: opts.json ? 'json' : opts.format,
      color: colorFor(opts, io, true),
      width: terminalWidth(io),
      verbose: opts.verbose ?? false,
    });
    await writePayload(io, rendered, undefined);
    setExit(EXIT_OK);
  });

  // Runs from its own entry module (see main below and bin/loopledger.js); listed here for --help.
  program
    .command('hook')
    .description('the live guard inside Claude Code, Gemini CLI and Codex (loopledger hook --help)')
    .allowUnknownOption()
    .argument('[args...]');

  program
    .command('stores')
    .description("the session stores of this user's agents (Claude Code, Codex, Gemini CLI) and what is in them")
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('--json', 'same as --format json')
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .action(async (opts: { format: 'table' | 'json'; json?: boolean; color?: boolean }) => {
      const surveys = await surveyStores(io.env);
      await writePayload(io, renderStores(surveys, { format: opts.json ? 'json' : opts.format, color: colorFor({ set: [], color: opts.color }, io, true), env: io.env }), undefined);
      setExit(EXIT_OK);
    });

  program
    .command('formats')
    .description('the supported input formats and how each is detected')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('--json', 'same as --format json')
    .action(async (opts: { format: 'table' | 'json'; json?: boolean }) => {
      await writePayload(io, renderFormats(opts.json ? 'json' : opts.format), undefined);
      setExit(EXIT_OK);
    });

  return program;
}

/** Run the CLI; resolves to the exit code. Never throws and never prints a stack trace. */
export async function main(argv: readonly string[], io: CliIO = defaultIO()): Promise<number> {
  let exitCode = EXIT_OK;
  const onPipeError = (e: NodeJS.ErrnoException) => {
    // `loopledger … | head` closes the pipe early: that is the reader's choice, not an error.
    if (e.code === 'EPIPE') process.exit(exitCode);
  };
  if (argv[0] === 'hook') {
    const { runHook } = await import('./hook/main.js');
    return runHook(argv.slice(1), io);
  }
  io.stdout.on('error', onPipeError);
  try {
    const program = buildProgram(io, (code) => (exitCode = code));
    refuseMistypedCommand(argv, program.commands.map((c) => c.name()));
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit 0; every usage error is 2 (commander's own default is 1).
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT_OK;
      return EXIT_USAGE;
    }
    if (e instanceof LoopledgerError) {
      io.stderr.write(`loopledger: ${sanitizeText(e.message)}\n`);
      return e.exitCode;
    }
    const err = e as Error;
    io.stderr.write(`loopledger: internal error: ${sanitizeText(err?.message ?? String(e))}\n`);
    return EXIT_USAGE;
  } finally {
    io.stdout.off('error', onPipeError);
  }
}
