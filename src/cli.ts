// The command line: arguments parsed into each command's options, and the exit code. What each
// command does is in commands/ (analyze.ts, the default); everything below that is a library call.

import { Command, CommanderError, Option } from 'commander';
import { type AnalyzeOptions, emitLedger, runAnalyze } from './commands/analyze.js';
import { type CliIO, colorFor, type CommonOptions, configFrom, flagOverrides, terminalWidth, warn, writePayload } from './commands/common.js';
import { renderConfig, writeConfig } from './commands/config.js';
import { runLabel } from './commands/label.js';
import { renderFormats } from './commands/formats.js';
import { registerHookCommands } from './commands/hook.js';
import { mergeFiles, withoutTimelines } from './commands/merge.js';
import { isStdout } from './commands/output.js';
import { defaultInputs, renderStores, surveyStores } from './commands/stores.js';
import { refuseMistypedCommand } from './commands/suggest.js';
import { renderSweep } from './commands/sweep.js';
import { runSweep } from './commands/sweep-run.js';
import type { PositiveLevel } from './calibrate/sweep.js';
import { EXIT_OK, EXIT_USAGE, LoopledgerError, UsageError } from './errors.js';
import { PROFILES } from './ladder/config.js';
import { FORMAT_NAMES, type FormatName } from './model/transcript.js';
import { discoverInputs } from './read/discover.js';
import { parseShard, type Shard } from './read/shard.js';
import { SESSION_SORTS } from './report/index.js';
import { checkEndpointFlag } from './report/otlp/endpoint.js';
import { redactUrls } from './config/redact.js';
import { sanitize } from './sanitize.js';
import {
  ENFORCE_LEVELS,
  LISTING_FORMATS,
  type ListingFormat,
  REPORT_FORMATS,
  type ReportFormat,
  SWEEP_FORMATS,
  type SweepFormat,
} from './vocabulary.js';
import { VERSION } from './version.js';

const defaultIO = (): CliIO => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--jobs takes a whole number of at least 1, not ${value}`);
  return n;
}

function wholeNumberFor(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < 0) throw new UsageError(`${flag} takes a whole number, not ${value}`);
    return n;
  };
}

function wholeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0) throw new UsageError(`--top takes a whole number (0 for every session), not ${value}`);
  return n;
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
      writeErr: (s) => io.stderr.write(sanitize(redactUrls(s), { multiline: true })),
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
    .addOption(new Option('--fail-on <level>', 'exit 1 when a session reaches this level under enforce').choices(ENFORCE_LEVELS).default('none'))
    .addOption(new Option('--input-format <name>', 'force an input format').choices(['auto', ...FORMAT_NAMES]).default('auto'))
    .option('--strict', 'malformed input is an error (exit 2)')
    .option('--excerpts', 'show at most 3 excerpts of at most 80 characters per entry')
    .option('--explain', 'show the statistics and threshold behind each entry')
    .option('--jobs <n>', 'files analyzed at once (default: the idle cores, 1 to 3)', positiveInt)
    .option('--top <n>', 'with more sessions than N: an overview first, then only the top N in full; 0 prints every session (default 10)', wholeNumber)
    .addOption(new Option('--sort <order>', 'order of the overview: enforce level, what Enforce would have saved, cost, or path').choices(SESSION_SORTS).default('level'))
    .option('--prices <file>', 'JSON prices that add to or override the bundled list prices (see docs/pricing.md)')
    .option('--shard <K/N>', 'only the files whose path hashes to shard K of N (1-based; combine with loopledger merge)', parseShard)
    .option('--otlp-endpoint [url]', 'also post the findings as OTLP/HTTP JSON log records (/v1/logs appended unless given); no URL: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT', checkEndpointFlag);
  addConfigOptions(analyze).action(async (paths: string[], opts: AnalyzeOptions) => {
    setExit(await runAnalyze(paths, opts, io, setExit));
  });

  const sweep = program
    .command('sweep')
    .description('for each value of a threshold, how many sessions fire, steer and stop; with labels, precision, recall and FPR')
    .argument('<paths...>', 'transcript files or directories')
    .requiredOption('--param <key=from:to:step>', 'the threshold and its range (repeat for a grid of two)', collect, [])
    .option('--labels <file>', 'JSON: session id or file name → loop | clean; or interrupts (the user\'s interrupts after a repeat as loop labels); repeat to combine, hand labels winning', collect, [])
    .option('--max-fpr <ratio>', 'report the value that keeps the false-positive rate at or under this bound')
    .addOption(
      new Option('--positive <level>', 'the enforce level that counts as flagging a labeled session (precision, recall, FPR)')
        .choices(ENFORCE_LEVELS.filter((l) => l !== 'none'))
        .default('stop'),
    )
    .addOption(new Option('--format <format>', 'output format').choices(SWEEP_FORMATS).default('table'))
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
      labels: opts['labels'] as string[],
      maxFpr: opts['maxFpr'] as string | undefined,
      positive: opts['positive'] as PositiveLevel,
      format: opts['json'] ? 'json' : (opts['format'] as SweepFormat),
      color: colorFor(opts, io, isStdout(opts['outputFile'] as string | undefined)),
      inputFormat: opts['inputFormat'] as FormatName | 'auto',
      onWarning: (m) => warn(io, m),
      verbose: opts['verbose'] === true,
      shard: opts['shard'] as Shard | undefined,
    });
    const outputFile = opts['outputFile'] as string | undefined;
    await writePayload(io, payload, outputFile, isStdout(outputFile) ? [] : (await discoverInputs(paths)).files);
    setExit(EXIT_OK);
  });

  const label = program
    .command('label')
    .description('label sessions as loop or clean, one screen each (worst first, then a sample of calm ones), into the labels file sweep --labels reads')
    .argument('[paths...]', 'transcript files or directories (default: the session stores of this user\'s agents)')
    .option('--labels <file>', 'the labels file to write and resume from (rewritten atomically after every answer)', '.labels.json')
    .option('--batch <file>', 'answers instead of keys: l, c, s, b, q or enter, one per line, in the order asked')
    .option('--calm <n>', 'calm sessions to ask about after those with findings', wholeNumberFor('--calm'), 5)
    .option('--seed <n>', 'which calm sessions are sampled', wholeNumberFor('--seed'), 1)
    .addOption(new Option('--input-format <name>', 'force an input format').choices(['auto', ...FORMAT_NAMES]).default('auto'));
  addConfigOptions(label).action(async (paths: string[], opts: CommonOptions & Record<string, unknown>) => {
    const loaded = await configFrom(opts);
    for (const w of loaded.warnings) warn(io, w);
    if (paths.length === 0) {
      const stores = await defaultInputs(io.env);
      warn(io, stores.announcement);
      paths = stores.roots;
    }
    const tty = process.stdin.isTTY && process.stdout.isTTY && io.stdout === process.stdout;
    const options = {
      loaded,
      labels: opts['labels'] as string,
      calm: opts['calm'] as number,
      seed: opts['seed'] as number,
      inputFormat: opts['inputFormat'] as FormatName | 'auto',
      ...(opts['batch'] !== undefined ? { batch: opts['batch'] as string } : {}),
    };
    setExit(await runLabel(paths, options, io, tty ? { input: process.stdin, output: process.stdout } : null));
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
  merge.action(async (files: string[], opts: AnalyzeOptions) => {
    const format: ReportFormat = opts.json ? 'json' : opts.format;
    const merged = await mergeFiles(files, { onNote: (m) => warn(io, m), timelines: format === 'html' });
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
    .addOption(new Option('--format <format>', 'output format').choices(LISTING_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .option('--write <file>', 'write the --set values into this JSON config file (created or updated atomically; other keys kept)');
  addConfigOptions(config).action(async (opts: CommonOptions & { format: ListingFormat; json?: boolean; write?: string }) => {
    if (opts.write !== undefined) {
      if (opts.config !== undefined && opts.config !== opts.write) throw new UsageError('config --write FILE updates FILE itself; leave out --config');
      await writePayload(io, await writeConfig(opts.write, opts.set, flagOverrides(opts)), undefined);
      setExit(EXIT_OK);
      return;
    }
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

  registerHookCommands(program, io, setExit);

  program
    .command('stores')
    .description("the session stores of this user's agents (Claude Code, Codex, Gemini CLI) and what is in them")
    .addOption(new Option('--format <format>', 'output format').choices(LISTING_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .action(async (opts: { format: ListingFormat; json?: boolean; color?: boolean }) => {
      const surveys = await surveyStores(io.env);
      await writePayload(io, renderStores(surveys, { format: opts.json ? 'json' : opts.format, color: colorFor({ set: [], color: opts.color }, io, true), env: io.env }), undefined);
      setExit(EXIT_OK);
    });

  program
    .command('formats')
    .description('the supported input formats and how each is detected')
    .addOption(new Option('--format <format>', 'output format').choices(LISTING_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .action(async (opts: { format: ListingFormat; json?: boolean }) => {
      await writePayload(io, renderFormats(opts.json ? 'json' : opts.format, terminalWidth(io)), undefined);
      setExit(EXIT_OK);
    });

  return program;
}

/**
 * `hook <agent> …` is the guard, run from its own entry (src/hook/main.ts, no commander);
 * `hook install` and `hook doctor` are commands a person types, parsed like every other.
 */
function isGuardCall(argv: readonly string[]): boolean {
  return argv[0] === 'hook' && argv[1] !== 'install' && argv[1] !== 'doctor';
}

/** Run the CLI; resolves to the exit code. Never throws and never prints a stack trace. */
export async function main(argv: readonly string[], io: CliIO = defaultIO()): Promise<number> {
  let exitCode = EXIT_OK;
  const onPipeError = (e: NodeJS.ErrnoException) => {
    // `loopledger … | head` closes the pipe early: that is the reader's choice, not an error.
    if (e.code === 'EPIPE') process.exit(exitCode);
  };
  if (isGuardCall(argv)) {
    const { runHook } = await import('./hook/main.js');
    return runHook(argv.slice(1), io);
  }
  io.stdout.on('error', onPipeError);
  try {
    const program = buildProgram(io, (code) => (exitCode = code));
    const hint = refuseMistypedCommand(argv, program.commands.map((c) => c.name()));
    if (hint !== null) io.stderr.write(`loopledger: ${sanitize(hint)}\n`);
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit 0; every usage error is 2 (commander's own default is 1).
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT_OK;
      return EXIT_USAGE;
    }
    if (e instanceof LoopledgerError) {
      io.stderr.write(`loopledger: ${sanitize(redactUrls(e.message))}\n`);
      return e.exitCode;
    }
    const err = e as Error;
    io.stderr.write(`loopledger: internal error: ${sanitize(redactUrls(err?.message ?? String(e)))}\n`);
    return EXIT_USAGE;
  } finally {
    io.stdout.off('error', onPipeError);
  }
}
