// `loopledger label [paths…]`: label sessions as loop or clean, one screen each, into the labels
// file `sweep --labels` reads. The questions and what each key does are the pure src/label/; this
// is the shell around them: reading the corpus, the labels file (rewritten atomically after every
// answer, so a quit or a crash loses nothing), and the terminal or a `--batch` file of answers.

import { stat } from 'node:fs/promises';
import { type Command, Option, type OptionValues } from 'commander';
import { labelKeyFor, parseLabels, putLabel, readLabelsJson } from '../calibrate/labels.js';
import type { LoadedRunConfig } from '../config/load.js';
import { InputError, UsageError, EXIT_OK, EXIT_USAGE } from '../errors.js';
import { buildQueue, labelItem, traceWindow, type InterruptHint, type LabelItem, type LabelQueue } from '../label/items.js';
import { renderScreen, type ScreenContext } from '../label/screen.js';
import { actionForKey, isFinished, press, startLabelling, type LabelAction, type LabelState, type LabelValue } from '../label/state.js';
import { TraceCollector } from '../label/trace.js';
import { LedgerBuilder } from '../ledger/build.js';
import { createDetectorFactories } from '../ledger/detectors.js';
import type { SessionLedger } from '../ledger/types.js';
import type { FormatName } from '../model/transcript.js';
import { resolveInputs } from '../run/audit.js';
import { deliverRecorded, recordFile } from '../run/recorded-corpus.js';
import { escapeJsonText, sanitize } from '../sanitize.js';
import { type CliIO, configFrom, warn } from './common.js';
import { startProgress } from './progress.js';
import { compareSessions } from '../report/overview.js';
import { addConfigOptions, configOptions, count, flag, INPUT_FORMAT_CHOICES, inputFormat, NOT_TRANSCRIPT_VERBOSE, type RegisterCommand, text, wholeNumberFor } from './flags.js';
import { defaultInputs } from './stores.js';
import { underFileLock } from './file-lock.js';
import { writeFileAtomically } from './output.js';
import { readSideFile, SideFileTooLarge } from '../side-file.js';
import { priceBookFor } from '../money/prices.js';
import { resolve } from 'node:path';
import type { NotTranscript } from '../formats/input.js';
import { reportNotTranscripts } from './diagnostics.js';

/** A file found that holds no transcript, as diagnostics count them. */
interface NotTranscriptFile {
  path: string;
  reason: NotTranscript;
  error: string;
}

/** A word per answer: room for millions. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

const DEFAULT_LABELS_FILE = '.labels.json';
const DEFAULT_CALM = 5;
const DEFAULT_SEED = 1;

export const registerLabelCommand: RegisterCommand = (program, io, setExit) => {
  const command: Command = program
    .command('label')
    .description('label sessions as loop or clean, one screen each (worst first, then a sample of calm ones), into the labels file sweep --labels reads')
    .argument('[paths...]', 'transcript files or directories (default: the session stores of this user\'s agents)')
    .option('--labels <file>', 'the labels file to write and resume from (rewritten atomically after every answer)', DEFAULT_LABELS_FILE)
    .option('--batch <file>', 'answers instead of keys: l, c, s, b, q or enter, one per line, in the order asked')
    .option('--calm <n>', 'calm sessions to ask about after those with findings', wholeNumberFor('--calm'), DEFAULT_CALM)
    .option('--seed <n>', 'which calm sessions are sampled', wholeNumberFor('--seed'), DEFAULT_SEED)
    .addOption(new Option('--input-format <name>', 'force an input format').choices(INPUT_FORMAT_CHOICES).default('auto'));
  addConfigOptions(command, { verbose: NOT_TRANSCRIPT_VERBOSE }).action(async (given: string[], raw: OptionValues) => {
    const loaded = await configFrom(configOptions(raw), io.env);
    for (const w of loaded.warnings) warn(io, w);
    let paths = given;
    if (paths.length === 0) {
      const stores = await defaultInputs(io.env);
      warn(io, stores.announcement);
      paths = stores.roots;
    }
    const tty = process.stdin.isTTY && process.stdout.isTTY && io.stdout === process.stdout;
    const batch = text(raw, 'batch');
    const options: LabelRunOptions = {
      loaded,
      labels: text(raw, 'labels') ?? DEFAULT_LABELS_FILE,
      calm: count(raw, 'calm') ?? DEFAULT_CALM,
      seed: count(raw, 'seed') ?? DEFAULT_SEED,
      inputFormat: inputFormat(raw),
      verbose: flag(raw, 'verbose') === true,
      ...(batch !== undefined ? { batch } : {}),
    };
    setExit(await runLabel(paths, options, io, tty ? { input: process.stdin, output: process.stdout } : null));
  });
};

interface LabelRunOptions {
  loaded: LoadedRunConfig;
  /** The labels file to write (and resume from). */
  labels: string;
  batch?: string;
  calm: number;
  seed: number;
  inputFormat: FormatName | 'auto';
  /** `--verbose`: name each file found that is no transcript. */
  verbose: boolean;
}

/** The terminal the labeller talks to; the real one is process.stdin/stdout. */
interface LabelTerminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

const FILE_COMMENT =
  'Labels written by `loopledger label`, read by `loopledger sweep --labels FILE`: session id → "loop" | "clean" | ' +
  '{ "label": "loop", "turn": T, "round": R } (where the loop starts: a stop before turn T does not count as catching it).';

const LABEL_USAGE =
  'label asks in a terminal; without one, answer with --batch FILE (one of l, c, s, b, q or enter per line, in the order above)';

function interruptHint(session: SessionLedger): InterruptHint | null {
  const list = session.interrupts ?? [];
  return list.find((i) => i.after_repeat) ?? list[0] ?? null;
}

/**
 * Every session of the inputs as a question, one file in memory at a time, in the overview's order
 * (`compareSessions('level')`: what `loopledger` lists first is asked first). On a terminal a
 * progress line says what is being read: a large store takes seconds before the first question.
 */
async function gatherItems(paths: readonly string[], options: LabelRunOptions, io: CliIO): Promise<{ items: LabelItem[]; order: (a: LabelItem, b: LabelItem) => number }> {
  if (paths.includes('-')) throw new UsageError('label reads its answers from the terminal: name transcript files or directories, not - (stdin)');
  const { files, unreadable } = await resolveInputs(paths);
  for (const input of unreadable) warn(io, `${input.path}: ${input.error}`);
  const items: LabelItem[] = [];
  const sessionOf = new Map<LabelItem, SessionLedger>();
  // As analyze does: a file found in a directory that is no transcript is counted, a named one named.
  const named = new Set(paths.map((p) => resolve(p)));
  const others: NotTranscriptFile[] = [];
  const progress = startProgress(io.stderr, io.env, false, 'reading sessions to label: ');
  const err: CliIO = progress ? { ...io, stderr: progress.stderr as CliIO['stderr'] } : io;
  try {
    for (const [done, file] of files.entries()) {
      progress?.update(done, files.length, file);
      const fileItems = await fileItemsOf(file, options, err, (other) => (named.has(resolve(other.path)) ? warn(err, `${other.path}: ${other.error}`) : others.push(other)));
      for (const [item, session] of fileItems) {
        items.push(item);
        sessionOf.set(item, session);
      }
    }
    reportNotTranscripts(others, options.verbose, (m) => warn(err, m));
  } finally {
    progress?.finish();
  }
  const bySession = compareSessions('level');
  return { items, order: (a, b) => bySession(sessionOf.get(a)!, sessionOf.get(b)!) };
}

/** The questions of one file, each with its session (for the order). */
async function fileItemsOf(file: string, options: LabelRunOptions, io: CliIO, notTranscript: (file: NotTranscriptFile) => void): Promise<[LabelItem, SessionLedger][]> {
  const out: [LabelItem, SessionLedger][] = [];
  const recorded = await recordFile(file, { inputFormat: options.inputFormat });
  const input = recorded.input;
  if (input.not_transcript !== undefined) {
    notTranscript({ path: input.path, reason: input.not_transcript, error: input.error ?? '' });
    return out;
  }
  if (recorded.input.error) {
    warn(io, `${recorded.input.path}: ${recorded.input.error}`);
    return out;
  }
  // Priced as analyze prices: the overview's order weighs what Enforce would have saved in dollars.
  const ledger = new LedgerBuilder({ config: options.loaded.resolved, factories: createDetectorFactories(), excerpts: true, pricer: await priceBookFor(undefined) });
  deliverRecorded(recorded, ledger);
  const sessions = ledger.sessions();
  const traces = new TraceCollector(new Map(sessions.map((s) => [s.id, traceWindow(s)])));
  deliverRecorded(recorded, traces);
  for (const s of sessions) out.push([labelItem(s, traces.trace(s.id), interruptHint(s)), s]);
  return out;
}

/** The labels file as its JSON object (checked as the sweep reads it), or a fresh one. */
async function readLabelsFile(file: string): Promise<Record<string, unknown>> {
  if ((await stat(file).catch(() => null)) === null) return { $comment: FILE_COMMENT };
  const raw = await readLabelsJson(file);
  parseLabels(raw, file);
  return raw as Record<string, unknown>;
}

/**
 * Writes one label at a time, in order. Each write takes the file's lock, reads the file as it is
 * now (another `label` run may have added to it), puts the label in and replaces the file
 * atomically: concurrent runs lose none of each other's labels.
 */
class LabelsWriter {
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  written = 0;

  constructor(private readonly file: string) {}

  put(key: string, value: LabelValue): void {
    this.written++;
    const write = () =>
      underFileLock(this.file, async () => {
        const raw = await readLabelsFile(this.file);
        putLabel(raw, key, value);
        // As the JSON ledger escapes them: bidi, C1 and invisible characters of an id stay inert.
        await writeFileAtomically(this.file, `${escapeJsonText(JSON.stringify(raw, null, 2))}\n`);
      });
    this.chain = this.chain.then(write).catch((e: Error) => void (this.failure ??= e));
  }

  async flush(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
  }
}

function questionLine(n: number, item: LabelItem): string {
  const first = item.findings[0];
  const what = first ? `t${first.turn} r${first.round} ${first.kind}` : 'calm';
  const hint = item.proposed ? ' (interrupted after a repeat: proposed loop)' : '';
  return sanitize(`${String(n).padStart(3)}. ${item.key}  ${item.path}  enforce: ${item.level}  ${what}${hint}`);
}

/** `--batch FILE`: whitespace-separated answers, `#` to the end of a line is a comment. */
async function readBatch(file: string): Promise<LabelAction[]> {
  let text: string;
  try {
    text = await readSideFile(file, MAX_BATCH_BYTES);
  } catch (e) {
    if (e instanceof SideFileTooLarge) throw new UsageError(`--batch ${file}: ${e.message}`);
    throw new InputError(`cannot read --batch file ${file}: ${(e as Error).message}`);
  }
  const words: Record<string, LabelAction> = { loop: 'loop', clean: 'clean', skip: 'skip', back: 'back', quit: 'quit', enter: 'accept' };
  const actions: LabelAction[] = [];
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    for (const token of line.replace(/#.*/, '').trim().split(/\s+/).filter(Boolean)) {
      const action = words[token.toLowerCase()] ?? (token.length === 1 ? actionForKey(token) : null);
      if (action === null) {
        throw new UsageError(`--batch ${file} line ${i + 1}: ${JSON.stringify(token)} is no answer (l, c, s, b, q, enter, or loop, clean, skip, back, quit)`);
      }
      actions.push(action);
    }
  }
  return actions;
}

function summary(state: LabelState, file: string, alreadyLabelled: number): string {
  let loop = 0;
  let clean = 0;
  for (const a of state.answers.values()) if (a === 'loop') loop++;
  else clean++;
  // Skipped and unvisited sessions are asked again next time; answered ones are in the file.
  const left = state.items.filter((i) => !state.answers.has(i.key)).length;
  const tail = left > 0 ? `; ${left} left: run the same command to go on` : '; nothing left to ask';
  const before = alreadyLabelled > 0 ? ` (${alreadyLabelled} were labelled before)` : '';
  return sanitize(`labelled ${state.answers.size} session${state.answers.size === 1 ? '' : 's'} (${loop} loop, ${clean} clean) in ${file}${before}${tail}`) + '\n';
}

/** Split what a raw terminal sent into keys: an escape sequence (arrows) is one key. */
function keysOf(chunk: string): string[] {
  const keys: string[] = [];
  for (let i = 0; i < chunk.length; ) {
    if (chunk[i] === '\u001b' && (chunk[i + 1] === '[' || chunk[i + 1] === 'O') && i + 2 < chunk.length) {
      keys.push(chunk.slice(i, i + 3));
      i += 3;
    } else {
      keys.push(chunk[i]!);
      i++;
    }
  }
  return keys;
}

async function interactive(state0: LabelState, ctx: Omit<ScreenContext, 'width' | 'height'>, writer: LabelsWriter, term: LabelTerminal): Promise<LabelState> {
  const { input, output } = term;
  let state = state0;
  const draw = () => {
    const lines = renderScreen(state, { ...ctx, width: output.columns || 80, height: output.rows || 24 });
    output.write(`\u001b[H\u001b[2J${lines.join('\r\n')}`);
  };
  output.write('\u001b[?1049h\u001b[?25l');
  input.setRawMode(true);
  input.setEncoding('utf8');
  try {
    await new Promise<void>((resolve, reject) => {
      // Keys are handled one at a time, and the next screen is drawn only once the answer is on
      // disk: what the person saw answered is what a crash leaves in the file.
      let busy = Promise.resolve();
      const onResize = () => draw();
      const finish = () => {
        input.off('data', onData);
        output.off('resize', onResize);
        resolve();
      };
      const handle = async (keys: string[]) => {
        for (const key of keys) {
          if (isFinished(state)) break;
          const action = actionForKey(key);
          if (action === null) continue;
          const step = press(state, action);
          state = step.state;
          if (step.write) {
            writer.put(step.write.key, step.write.value);
            await writer.flush();
          }
        }
        if (isFinished(state)) finish();
        else draw();
      };
      const onData = (chunk: string) => {
        busy = busy.then(() => handle(keysOf(chunk))).catch((e: unknown) => {
          finish();
          reject(e as Error);
        });
      };
      input.on('data', onData);
      output.on('resize', onResize);
      input.resume();
      draw();
    });
  } finally {
    input.setRawMode(false);
    input.pause();
    output.write('\u001b[?25h\u001b[?1049l');
  }
  return state;
}

async function runLabel(paths: readonly string[], options: LabelRunOptions, io: CliIO, term: LabelTerminal | null): Promise<number> {
  const raw = await readLabelsFile(options.labels);
  const existing = parseLabels(raw, options.labels);
  const batch = options.batch !== undefined ? await readBatch(options.batch) : null;
  const { items: all, order } = await gatherItems(paths, options, io);
  const fresh = all.filter((i) => labelKeyFor({ id: i.key, path: i.path }, existing) === null);
  const alreadyLabelled = all.length - fresh.length;
  const queue: LabelQueue = buildQueue(fresh, { calm: options.calm, seed: options.seed, order });
  const ctx = { labelsFile: options.labels, queue, seed: options.seed, alreadyLabelled };
  const about =
    `${queue.items.length} session${queue.items.length === 1 ? '' : 's'} to label: ${queue.flagged} with findings (worst first), ` +
    `then ${queue.calmShown} of ${queue.calmTotal} calm (seed ${options.seed})` +
    (alreadyLabelled > 0 ? `; ${alreadyLabelled} already labelled in ${options.labels}` : '');

  if (queue.items.length === 0) {
    io.stdout.write(`${sanitize(`nothing to label: ${about}`)}\n`);
    return EXIT_OK;
  }
  if (batch === null && term === null) {
    io.stdout.write(`${sanitize(about)}\n${queue.items.map((item, i) => questionLine(i + 1, item)).join('\n')}\n`);
    warn(io, LABEL_USAGE);
    return EXIT_USAGE;
  }
  const writer = new LabelsWriter(options.labels);
  let state = startLabelling(queue.items);
  if (batch !== null) {
    for (const action of batch) {
      if (isFinished(state)) break;
      const step = press(state, action);
      state = step.state;
      if (step.write) writer.put(step.write.key, step.write.value);
    }
  } else state = await interactive(state, ctx, writer, term!);
  await writer.flush();
  io.stdout.write(summary(state, options.labels, alreadyLabelled));
  return EXIT_OK;
}
