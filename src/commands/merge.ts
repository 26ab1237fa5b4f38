// `loopledger merge FILE…`: the flags and the output. Reading the shards, checking them, putting
// them aside on disk and adding them up is src/merge/ (read-shards.ts first). The formats read the
// sessions (thin or whole) and inputs back from the spill as they iterate them, and sort what they
// rank there (Spill.sorter).

import { tmpdir } from 'node:os';
import { type Command, Option, type OptionValues } from 'commander';
import { checkedTimeZone } from './time-flags.js';
import type { SessionLedger } from '../ledger/types.js';
import { wholeInOrder } from '../merge/add-up.js';
import { mergeFiles } from '../merge/read-shards.js';
import { Spill, SPILL_PREFIX, SPILL_SUFFIX } from '../merge/spill.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { mapped } from '../report/lists.js';
import { SESSION_SORTS } from '../report/index.js';
import { ENFORCE_LEVELS, REPORT_FORMATS, type ReportFormat } from '../vocabulary.js';
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
    const spill = new Spill(!streamsSessions(opts.format), { removeOnSignal });
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
