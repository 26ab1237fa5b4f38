// `loopledger sweep`: read the corpus once, then replay it through the real ledger per value.

import { resolve } from 'node:path';
import { type Command, Option, type OptionValues } from 'commander';
import { resolveInputs } from '../run/audit.js';
import { INTERRUPT_LABELS } from '../calibrate/interrupts.js';
import { loadLabels } from '../calibrate/labels.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { parseParams, type SweepParam, type SweepValue } from '../calibrate/param.js';
import { autoParams, changesFrom, DEFAULT_MAX_FPR } from '../calibrate/auto.js';
import { parseMaxFpr, sweep, type PositiveLevel, type SweepResult } from '../calibrate/sweep.js';
import { discoverInputs } from '../read/discover.js';
import { configHash } from '../ledger/config-hash.js';
import { parseShard, type Shard } from '../read/shard.js';
import type { LoadedRunConfig } from '../config/load.js';
import { ResolvedConfig } from '../config/resolved.js';
import type { ConfigValues } from '../config/spec.js';
import { deliverRecorded, recordFile, type RecordedFile } from '../run/recorded-corpus.js';
import { LedgerBuilder } from '../ledger/build.js';
import { createDetectorFactories } from '../ledger/detectors.js';
import type { SessionLedger } from '../ledger/types.js';
import type { FormatName } from '../model/transcript.js';
import { reportNotTranscripts } from './diagnostics.js';
import { renderAutoSweep, renderSweep } from './sweep.js';
import { plural } from '../report/text.js';
import type { NotTranscript } from '../formats/input.js';
import { ENFORCE_LEVELS, SWEEP_FORMATS, type SweepFormat } from '../vocabulary.js';
import { colorFor, type CommonOptions, configFrom, warn, writePayload } from './common.js';
import { addConfigOptions, NOT_TRANSCRIPT_VERBOSE, chosen, collect, configOptions, count, flag, INPUT_FORMAT_CHOICES, inputFormat, positiveInt, type RegisterCommand, shard, text, texts } from './flags.js';
import { isStdout } from './output.js';

const POSITIVE_LEVELS: readonly PositiveLevel[] = ENFORCE_LEVELS.filter((l): l is PositiveLevel => l !== 'none');

/**
 * Points are replayed one after another on this thread, over one corpus held in memory: lanes would
 * each hold the corpus and a point's ledgers, against the bound the sweep keeps (calibrate/sweep.ts).
 * `--shard K/N` and `merge` are how a sweep uses more cores (or machines), so more is refused.
 */
const SWEEP_JOBS_HELP = 'only 1: points are replayed one at a time (for more cores: --shard K/N, then loopledger merge)';

export const registerSweepCommand: RegisterCommand = (program, io, setExit) => {
  const command: Command = program
    .command('sweep')
    .description('for each value of a threshold, how many sessions fire, steer and stop; with labels, precision, recall and FPR')
    .argument('<paths...>', 'transcript files or directories')
    .option('--param <key=from:to:step>', 'the threshold and its range, a list of values (a,b,c), or an enum key\'s words (tool_batch.on_refusal=stop,steer or =all); repeat for a grid of two. Without it (and with --labels): the keys that matter for the findings, each swept around its value', collect, [])
    .option('--labels <file>', 'JSON: session id or file name → loop | clean; or interrupts (the user\'s interrupts after a repeat as loop labels); repeat to combine, hand labels winning', collect, [])
    .option('--max-fpr <ratio>', `with --labels: recommend the value that keeps the false-positive rate at or under this bound (default ${DEFAULT_MAX_FPR})`)
    .addOption(
      new Option('--positive <level>', 'the enforce level that counts as flagging a labeled session (precision, recall, FPR)')
        .choices(POSITIVE_LEVELS)
        .default('stop'),
    )
    .addOption(new Option('--format <format>', 'output format').choices(SWEEP_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .option('-o, --output-file <path>', 'write the payload to a file (atomically; - is stdout; never over an input)')
    .addOption(new Option('--input-format <name>', 'force an input format').choices(INPUT_FORMAT_CHOICES).default('auto'))
    .option('--jobs <n>', SWEEP_JOBS_HELP, positiveInt)
    .option('--shard <K/N>', 'only the files whose path hashes to shard K of N (merge the JSON partials with loopledger merge)', parseShard);
  addConfigOptions(command, { color: true, verbose: NOT_TRANSCRIPT_VERBOSE }).action(async (paths: string[], raw: OptionValues) => {
    const opts = sweepCommandOptions(raw);
    const loaded = await configFrom(opts, io.env);
    for (const w of loaded.warnings) warn(io, w);
    const payload = await runSweep(paths, {
      loaded,
      params: opts.params,
      labels: opts.labels,
      maxFpr: opts.maxFpr,
      positive: opts.positive,
      format: opts.json ? 'json' : opts.format,
      color: colorFor(opts, io, isStdout(opts.outputFile)),
      inputFormat: opts.inputFormat,
      onWarning: (m) => warn(io, m),
      verbose: opts.verbose === true,
      shard: opts.shard,
    });
    await writePayload(io, payload, opts.outputFile, isStdout(opts.outputFile) ? [] : (await discoverInputs(paths)).files);
    setExit(EXIT_OK);
  });
};

interface SweepCommandOptions extends CommonOptions {
  params: string[];
  labels: string[];
  maxFpr?: string;
  positive: PositiveLevel;
  format: SweepFormat;
  json?: boolean;
  outputFile?: string;
  inputFormat: FormatName | 'auto';
  shard?: Shard;
}

function sweepCommandOptions(raw: OptionValues): SweepCommandOptions {
  const jobs = count(raw, 'jobs');
  if (jobs !== undefined && jobs > 1) {
    throw new UsageError(
      `sweep --jobs ${jobs}: a sweep replays its corpus one point at a time on one thread (memory stays one corpus and one point's ledgers); ` +
        'to use more cores, run one sweep per --shard K/N and add the --format json partials up with loopledger merge',
    );
  }
  return {
    ...configOptions(raw),
    params: texts(raw, 'param'),
    labels: texts(raw, 'labels'),
    maxFpr: text(raw, 'maxFpr'),
    positive: chosen(raw, 'positive', POSITIVE_LEVELS),
    format: chosen(raw, 'format', SWEEP_FORMATS),
    json: flag(raw, 'json'),
    outputFile: text(raw, 'outputFile'),
    inputFormat: inputFormat(raw),
    shard: shard(raw),
  };
}

export interface SweepRunOptions {
  loaded: LoadedRunConfig;
  params: readonly string[];
  /** `--labels`, repeatable: one labels file and/or `interrupts` (the user's interrupts as weak labels). */
  labels?: string | readonly string[];
  maxFpr?: string;
  /** What counts as flagging a labeled session; default `stop` (the intervention that ends a turn). */
  positive?: PositiveLevel;
  format: SweepFormat;
  color: boolean;
  inputFormat: FormatName | 'auto';
  onWarning: (message: string) => void;
  /** Name each file found in the directories that is no transcript (otherwise they are counted on one line). */
  verbose?: boolean;
  /** `--shard K/N`: a partial over the files of one shard (loopledger merge adds partials up). */
  shard?: Shard;
}

export async function runSweep(paths: readonly string[], options: SweepRunOptions): Promise<string> {
  const auto = options.params.length === 0;
  const sources = typeof options.labels === 'string' ? [options.labels] : (options.labels ?? []);
  if (auto && sources.length === 0) {
    throw new UsageError('sweep needs --param KEY=FROM:TO:STEP, or --labels (a labels file and/or interrupts) to sweep the keys that matter for the findings');
  }
  const params = auto ? [] : parseParams(options.params);
  // With labels, a recommendation is always asked for: the budget is the default unless given.
  const maxFpr = options.maxFpr !== undefined ? parseMaxFpr(options.maxFpr) : sources.length > 0 ? DEFAULT_MAX_FPR : null;
  const files = sources.filter((l) => l !== INTERRUPT_LABELS);
  if (files.length > 1) throw new UsageError(`--labels takes one labels file (and/or ${INTERRUPT_LABELS}), not ${files.length}: ${files.join(', ')}`);
  const labels = files[0] !== undefined ? await loadLabels(files[0]) : null;
  const interrupts = sources.includes(INTERRUPT_LABELS);
  const corpus = await readCorpus(paths, options);
  const analyze = async (values: ConfigValues): Promise<SessionLedger[]> => {
    // Once per point, for every file of the corpus (the loader has said what there is to say about the values).
    const config = ResolvedConfig.parse(values);
    return corpus.flatMap((file) => {
      const ledger = new LedgerBuilder({ config, factories: createDetectorFactories() });
      deliverRecorded(file, ledger);
      return ledger.sessions();
    });
  };
  const base = options.loaded.values;
  const run = async (swept: SweepParam[], over: ConfigValues = base): Promise<SweepResult> => {
    const result = await sweep({ params: swept, baseValues: over, analyze, labels, interrupts, maxFpr, positive: options.positive });
    for (const w of result.warnings) options.onWarning(w);
    const config = { ...over } as Record<string, unknown>;
    return { config_hash: configHash(config), ...(options.shard ? { shard: { index: options.shard.index, count: options.shard.count } } : {}), ...result, config };
  };
  if (!auto) return renderSweep(await run(params), { format: options.format, color: options.color });

  const keys = autoParams(await analyze(base), base);
  const results: SweepResult[] = [];
  for (const p of keys) results.push(await run([p]));
  // Only keys whose best value fits the labels better than the one in force are changed (changesFrom).
  let change = changesFrom(results, base);
  if (Object.keys(change).length > 1) {
    // Each change fitted alone: together they must still keep to the budget, else the one with the best recall stands.
    const [first, ...rest] = Object.entries(change);
    const together = await run([{ key: first![0], values: [first![1]] }], { ...base, ...Object.fromEntries(rest) });
    if (together.recommended === null) change = bestSingle(results, base);
  }
  return renderAutoSweep({ results, change, maxFpr: maxFpr ?? DEFAULT_MAX_FPR, keys: keys.map((k) => k.key) }, { format: options.format, color: options.color });
}

/** The single change whose sweep recommended the best recall (the first on ties). */
function bestSingle(results: readonly SweepResult[], base: ConfigValues): Record<string, SweepValue> {
  let best: SweepResult | null = null;
  for (const r of results) {
    const changed = r.recommended && Object.entries(r.recommended.values).some(([k, v]) => base[k] !== v);
    if (changed && (best === null || (r.recommended!.recall ?? -1) > (best.recommended!.recall ?? -1))) best = r;
  }
  return best ? changesFrom([best], base) : {};
}

/** Every file once, into memory (a sweep replays it per point); what cannot be read is said, as analyze says it. */
async function readCorpus(paths: readonly string[], options: SweepRunOptions): Promise<RecordedFile[]> {
  const resolved = await resolveInputs(paths, options.shard);
  for (const input of resolved.unreadable) options.onWarning(`${input.path}: ${input.error}`);
  const corpus: RecordedFile[] = [];
  // As analyze does: a file found in a directory that is no transcript is counted, a named one named.
  const named = new Set(paths.map((p) => (p === '-' ? '-' : resolve(p))));
  const others: { path: string; reason: NotTranscript; error: string }[] = [];
  for (const file of resolved.files) {
    const recorded = await recordFile(file, { inputFormat: options.inputFormat });
    const input = recorded.input;
    if (input.not_transcript !== undefined && !named.has(input.path === '-' ? '-' : resolve(input.path))) {
      others.push({ path: input.path, reason: input.not_transcript, error: input.error ?? '' });
    } else if (input.error) options.onWarning(`${input.path}: ${input.error}`);
    const skipped = recorded.input.skipped;
    if (skipped.length > 0) {
      const first = skipped[0]!;
      options.onWarning(
        `${recorded.input.path}: ${plural(skipped.length, 'skipped line')}, the first at line ${first.line ?? '-'}: ${first.reason} (loopledger analyze lists them all)`,
      );
    }
    corpus.push(recorded);
  }
  reportNotTranscripts(others, options.verbose ?? false, options.onWarning);
  return corpus;
}
