// One input file through the reader and its format adapter into a TranscriptSink. Bad content
// never throws out of here: it becomes a skipped line or the summary's `error`.

import { constants } from 'node:buffer';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import type { InputSummary } from './input.js';
import { MAX_KEPT_SKIPS, type SkippedLine } from '../read/skipped.js';
import { type SessionOrigin, TranscriptBuilder } from '../model/builder.js';
import type { FormatName, Round, SessionInfo, TranscriptSink } from '../model/transcript.js';
import { DEFAULT_MAX_LINE_LENGTH, type Line, ReadFailure, startLines } from '../read/lines.js';
import { sanitize } from '../sanitize.js';
import { conversationFiles, isConversationPath } from '../read/conversation-dir.js';
import { ConcatenatedValues } from '../read/concatenated.js';
import { readAgentType, storeProject } from '../read/stores.js';
import { ADAPTERS, adapterFor, rankFormats, safeDetect } from './index.js';
import type { FormatAdapter, Probe, RecordParser } from './types.js';

/** Records detection sees before the format is chosen; they are held, then replayed. */
export const PROBE_RECORDS = 50;

const { MAX_STRING_LENGTH } = constants;

/** Distinct kinds counted in inputs[].ignored before the rest are counted as `other`. */
const MAX_IGNORED_KINDS = 50;
/**
 * A `.jsonl` file whose first lines do not parse is held as a possible JSON document only up to
 * this size: a real pretty-printed document saved as .jsonl is small (an exported chat); past it,
 * the file is read as JSON lines with broken lines, so memory stays bounded.
 */
const JSONL_DOCUMENT_MAX_CHARS = 32 * 1024 * 1024;

export const TRUNCATED_REASON = 'truncated: unfinished last line (a session still being written?)';

export interface IngestOptions {
  /** 'auto' (default) detects the format from the first records; a name forces that adapter. */
  inputFormat?: FormatName | 'auto';
  /**
   * Each of the first MAX_KEPT_SKIPS skipped lines as it happens (the ones the summary keeps;
   * the rest are only counted in `skipped_lines`, so a file of millions of bad lines stays small).
   */
  onSkip?: (skipped: SkippedLine) => void;
  /** What `-` reads; process.stdin by default. */
  stdin?: Readable;
  /** The adapters to detect among (tests inject their own); ADAPTERS by default. */
  adapters?: readonly FormatAdapter[];
  /** Lines longer than this many characters are skipped unread. */
  maxLineLength?: number;
  /**
   * Handed the reader's flow control once reading starts: a sink that forwards rounds elsewhere
   * (the two-thread pipeline) pauses the input while its consumer is behind, so memory stays bounded.
   */
  flow?: (reader: { pause(): void; resume(): void }) => void;
}

/**
 * Read `input` (a path, or `-` for stdin) and deliver its sessions to `sink`. Resolves with what
 * the ledger reports about the file. Errors thrown by `sink` itself are the caller's bugs, not
 * the input's, and are rethrown unchanged.
 */
export async function ingestFile(
  input: string,
  sink: TranscriptSink,
  options: IngestOptions = {},
): Promise<InputSummary> {
  const run = new Ingestion(input, sink, options);
  return run.read();
}

type JsonValue = { ok: true; value: unknown } | { ok: false; message: string };

function parseJson(text: string): JsonValue {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/**
 * parseJson for a file that has shown many bad lines: the same result, but the SyntaxError is
 * thrown without capturing a stack trace, which is most of its cost (a file of millions of
 * broken lines reads in well under half the time).
 */
function parseJsonCheaply(text: string): JsonValue {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return parseJson(text);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function isRecord(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

function describeScalar(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  return String(value);
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Marks an exception as the sink's, so that it passes through the adapter guard untouched. */
class SinkFailure {
  constructor(readonly error: unknown) {}
}

type Phase =
  /** Waiting for the first non-blank line. */
  | 'start'
  /** The first line did not parse: the second decides between JSONL and a JSON document. */
  | 'decide'
  | 'document'
  /** JSONL, collecting the records detection sees. */
  | 'probe'
  | 'run'
  /** No adapter for this file: reading stopped. */
  | 'done';

class Ingestion {
  private readonly summary: InputSummary;
  private readonly adapters: readonly FormatAdapter[];
  private readonly fileName: string;
  private readonly guardedSink: TranscriptSink;
  private phase: Phase = 'start';
  private firstLine: (Line & { message: string }) | null = null;
  /** A JSON document's lines, held until its end. */
  private document = new DocumentBuffer();
  /**
   * What arrived while probing, in line order: the records detection sees, and the reader's own
   * skips, held back so that every skip is reported in line order once the adapter replays.
   */
  private held: ({ value: unknown; line: number } | { skip: string; line: number })[] = [];
  private heldRecords = 0;
  /** Skips while probing past the first MAX_KEPT_SKIPS held: counted, never kept (memory stays bounded). */
  private heldSkipsDropped = 0;
  private heldSkips = 0;
  private builder: TranscriptBuilder | null = null;
  private parser: RecordParser | null = null;
  private format: FormatName | null = null;
  private lastLine = 0;
  /** A Claude Code 2.1 sub-agent's type, from the manifest beside its file. */
  private agentType: string | null = null;
  /** The document held so far ended with its outermost `}` alone on a line: another object may follow. */
  private documentClosed = false;
  /** Pretty-printed objects one after another (SDK dumps): split at their closing braces, one held at a time. */
  private concatenated: ConcatenatedValues | null = null;

  constructor(
    private readonly input: string,
    sink: TranscriptSink,
    private readonly options: IngestOptions,
  ) {
    this.summary = { path: input, format: null, sessions: 0, lines: 0, skipped: [], skipped_lines: 0 };
    this.adapters = options.adapters ?? ADAPTERS;
    this.fileName = input === '-' ? '-' : basename(input);
    this.guardedSink = this.guard(sink);
  }

  async read(): Promise<InputSummary> {
    try {
      if (this.input !== '-') this.agentType = await readAgentType(this.input);
      return await this.readAll();
    } catch (err) {
      if (err instanceof SinkFailure) throw err.error;
      throw err;
    }
  }

  private async readAll(): Promise<InputSummary> {
    if (this.input !== '-' && (await isConversationPath(this.input))) return this.readConversation();
    let readError: string | null = null;
    try {
      const run = startLines(this.input, (line) => this.onLine(line), {
        stdin: this.options.stdin,
        maxLineLength: this.options.maxLineLength,
      });
      this.options.flow?.({ pause: run.pause, resume: run.resume });
      const stats = await run.done;
      this.summary.lines = stats.lines;
      if (stats.bytes === 0) {
        readError = 'empty file';
        this.summary.not_transcript = 'empty';
      }
    } catch (err) {
      if (!(err instanceof ReadFailure)) throw err;
      readError = err.message;
      if (err.kind === 'unreadable') this.summary.unreadable = true;
      if (err.kind === 'binary' || err.kind === 'encoding') this.summary.not_transcript = 'binary';
      this.summary.lines = this.lastLine;
    }
    // After a failure mid-way (an I/O error), what was read still counts.
    if (readError === null || this.lastLine > 0) this.finish();
    this.close();
    if (readError !== null) this.summary.error = readError;
    // Key names and parser snippets come from the file: they must not drive a terminal.
    if (this.summary.error !== undefined) this.summary.error = sanitize(this.summary.error, { max: 500 });
    return this.summary;
  }

  /**
   * An OpenHands V1 conversation folder: base_state.json and each event file, in order, as records
   * of one input (`lines` counts the files). Its skips name the file, as there are no line numbers.
   */
  private async readConversation(): Promise<InputSummary> {
    const forced = this.options.inputFormat;
    let adapter: FormatAdapter;
    try {
      adapter = adapterFor(forced && forced !== 'auto' ? forced : 'openhands', this.adapters);
    } catch (err) {
      this.summary.error = sanitize(messageOf(err), { max: 500 });
      return this.summary;
    }
    if (!this.open(adapter)) {
      this.close();
      return this.summary;
    }
    this.phase = 'run';
    let files = 0;
    try {
      for await (const file of conversationFiles(this.input)) {
        files += 1;
        if ('error' in file) {
          this.skip(null, `${file.name}: ${file.error}`);
          continue;
        }
        const parsed = parseJson(file.text.replace(/^\uFEFF/, ''));
        if (!parsed.ok) this.skip(null, `${file.name}: malformed JSON: ${parsed.message}`);
        else if (!isRecord(parsed.value)) this.skip(null, `${file.name}: not a record: the file holds ${describeScalar(parsed.value)}`);
        else this.push(parsed.value, null);
      }
    } catch (err) {
      if (err instanceof SinkFailure) throw err;
      this.summary.error = sanitize(`cannot list the conversation's events: ${messageOf(err)}`, { max: 500 });
    }
    this.summary.lines = files;
    this.close();
    return this.summary;
  }

  private onLine(line: Line): boolean {
    this.lastLine = line.line;
    if (line.tooLong) {
      const limit = this.options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
      const size = limit >= 1024 * 1024 ? `${Math.round(limit / (1024 * 1024))} MB` : `${limit} characters`;
      this.lineSkip(line.line, `line too long (over ${size}): skipped unread`);
      return true;
    }
    switch (this.phase) {
      case 'start': {
        const parsed = parseJson(line.text);
        if (parsed.ok) {
          this.phase = 'probe';
          this.record(line, parsed.value);
        } else {
          this.firstLine = { ...line, message: parsed.message };
          this.phase = 'decide';
        }
        return true;
      }
      case 'decide': {
        const first = this.firstLine!;
        const parsed = parseJson(line.text);
        // A JSON document's second line never parses on its own as an object, except an array
        // element on its own line; then the document is tried whole first (see finish()).
        if (parsed.ok && isRecord(parsed.value) && !first.text.trimStart().startsWith('[')) {
          this.phase = 'probe';
          this.firstLine = null;
          this.malformed(first, first.message);
          this.record(line, parsed.value);
        } else {
          this.phase = 'document';
          this.holdDocumentLine(first);
          this.holdDocumentLine(line);
          this.firstLine = null;
        }
        return true;
      }
      case 'document':
        if (this.documentClosed && line.text.startsWith('{') && this.startConcatenated(line)) return (this.phase as Phase) !== 'done';
        this.documentClosed = line.text.trimEnd() === '}' && this.document.startsWithObject;
        this.holdDocumentLine(line);
        // A file named as JSON lines that is this large is not one pretty-printed document: read
        // it as JSON lines with broken lines, in bounded memory, rather than hold it all.
        if (this.document.chars > JSONL_DOCUMENT_MAX_CHARS && /\.(jsonl|ndjson)$/i.test(this.fileName)) {
          const doc = this.document;
          this.document = new DocumentBuffer();
          this.readAsLines(doc);
          return (this.phase as Phase) !== 'done';
        }
        return true;
      case 'probe':
      case 'run': {
        if (this.concatenated) {
          for (const part of this.concatenated.push(line.text, line.line)) this.concatenatedPart(part);
          return (this.phase as Phase) !== 'done';
        }
        const parsed = this.summary.skipped_lines + this.heldSkipsDropped + this.heldSkips >= MAX_KEPT_SKIPS ? parseJsonCheaply(line.text) : parseJson(line.text);
        if (parsed.ok) this.record(line, parsed.value);
        else this.malformed(line, parsed.message);
        // choose() may have found no adapter: then stop reading.
        return (this.phase as Phase) !== 'done';
      }
      case 'done':
        return false;
    }
  }

  private record(line: Line, value: unknown): void {
    if (!isRecord(value)) {
      this.lineSkip(line.line, `not a record: the line holds ${describeScalar(value)}`);
      return;
    }
    if (this.phase === 'probe') {
      this.held.push({ value, line: line.line });
      this.heldRecords += 1;
      if (this.heldRecords >= PROBE_RECORDS) this.choose(false);
      return;
    }
    this.push(value, line.line);
  }

  private malformed(line: Line, message: string): void {
    this.lineSkip(line.line, line.unfinished ? TRUNCATED_REASON : `malformed JSON: ${message}`);
  }

  private lineSkip(line: number, reason: string): void {
    if (this.phase !== 'probe') {
      this.skip(line, reason);
    } else if (this.heldSkips < MAX_KEPT_SKIPS) {
      this.heldSkips += 1;
      this.held.push({ skip: reason, line });
    } else {
      // Past the ones the summary keeps, a skip is a number: probing a file of millions of bad
      // lines (no record yet to choose a format by) must not hold them all.
      this.heldSkipsDropped += 1;
    }
  }

  /** The input ended: settle whatever was waiting for more lines. */
  private finish(): void {
    switch (this.phase) {
      case 'start':
        this.summary.error = 'empty file (only blank lines)';
        this.summary.not_transcript = 'empty';
        return;
      case 'decide':
        this.holdDocumentLine(this.firstLine!);
        this.firstLine = null;
        this.finishDocument();
        return;
      case 'document':
        this.finishDocument();
        return;
      case 'probe':
      case 'run': {
        const last = this.concatenated?.end();
        if (last) this.concatenatedPart(last);
        if (this.phase === 'probe') this.choose(true);
        return;
      }
      case 'done':
        return;
    }
  }

  /**
   * A second pretty-printed object opens right after the first closed: the file is objects one after
   * another. The held first one becomes the first record; from here each is parsed as it closes.
   * False when the held text is no object after all (then it stays one document).
   */
  private startConcatenated(line: Line): boolean {
    const doc = this.document;
    const first = doc.firstLine;
    const parsed = parseJson(doc.text());
    if (!parsed.ok || !isRecord(parsed.value)) return false;
    this.document = new DocumentBuffer();
    this.documentClosed = false;
    this.phase = 'probe';
    this.concatenated = new ConcatenatedValues(JSONL_DOCUMENT_MAX_CHARS);
    this.record({ line: first, text: '', unfinished: false, tooLong: false }, parsed.value);
    for (const part of this.concatenated.push(line.text, line.line)) this.concatenatedPart(part);
    return true;
  }

  private concatenatedPart(part: { text: string; line: number } | { skip: string; line: number }): void {
    if ('skip' in part) {
      this.lineSkip(part.line, part.skip);
      return;
    }
    const at: Line = { line: part.line, text: '', unfinished: false, tooLong: false };
    const parsed = parseJsonCheaply(part.text);
    if (parsed.ok) this.record(at, parsed.value);
    else this.malformed(at, parsed.message);
  }

  /** The held lines were JSON lines after all: each is a record or a skipped line. */
  private readAsLines(doc: DocumentBuffer): void {
    this.phase = 'probe';
    for (const line of doc.lines()) {
      if ((this.phase as Phase) === 'done') break;
      const r = this.summary.skipped_lines + this.heldSkips >= MAX_KEPT_SKIPS ? parseJsonCheaply(line.text) : parseJson(line.text);
      if (r.ok) this.record(line, r.value);
      else this.malformed(line, r.message);
    }
  }

  private holdDocumentLine(line: Line): void {
    this.document.push(line);
  }

  private finishDocument(): void {
    const doc = this.document;
    this.document = new DocumentBuffer();
    const size = doc.chars;
    // Joined, a document past V8's string limit would throw a RangeError that ends the whole
    // run, other inputs included: it gets its own message instead.
    if (size > MAX_STRING_LENGTH) {
      this.phase = 'done';
      this.summary.error = `too large to read as one JSON document (${Math.round(size / 2 ** 20)} MB of text; at most ${Math.floor(MAX_STRING_LENGTH / 2 ** 20)} MB can be read whole): convert it to JSON lines`;
      return;
    }
    const text = doc.text();
    const parsed = parseJson(text);
    if (parsed.ok) {
      this.openDocument(parsed.value);
      return;
    }
    // Not one document: JSON lines whose first line is broken, if any line holds a record. The
    // lines are parsed one at a time and nothing of a failed parse is kept: a file of millions
    // of broken lines costs time, not memory.
    let anyRecord = false;
    for (const line of doc.lines()) {
      const r = parseJsonCheaply(line.text);
      if (r.ok && isRecord(r.value)) {
        anyRecord = true;
        break;
      }
    }
    if (anyRecord) {
      this.readAsLines(doc);
      if (this.phase === 'probe') this.choose(true);
      return;
    }
    this.phase = 'done';
    // Cut at a line end or not, a document the parser ran out of is a truncated one.
    // A document cut short may be a session still being written: that one is worth a word.
    if (endsEarly(text, parsed.message)) {
      this.summary.error = `not JSON: truncated, a JSON document that stops before its end (a file still being written?): ${sanitize(parsed.message, { max: 200 })}`;
    } else {
      this.summary.error = `not JSON: neither JSON lines nor one JSON document (${sanitize(parsed.message, { max: 200 })})`;
      this.summary.not_transcript = 'not-json';
    }
  }

  private openDocument(value: unknown): void {
    const probe: Probe = { mode: 'document', fileName: this.fileName, value };
    const picked = this.pick(probe, null);
    if (!picked) {
      this.phase = 'done';
      this.summary.error = this.unrecognized(probe);
      return;
    }
    if (!this.open(picked.adapter)) return;
    this.phase = 'run';
    this.push(value, null);
  }

  /**
   * Pick the adapter from the held records and replay them into it. `atEnd`: the file held no
   * more; a file of one record may be a minified JSON document, so that reading competes too.
   */
  private choose(atEnd: boolean): void {
    const held = this.held;
    this.held = [];
    const records = held.filter((h): h is { value: unknown; line: number } => 'value' in h);
    const dropped = this.heldSkipsDropped;
    this.heldSkipsDropped = 0;
    this.heldSkips = 0;
    const replaySkips = (announce = true) => {
      for (const h of held) if ('skip' in h) this.skip(h.line, h.skip, announce);
      this.countSkips(dropped);
    };
    if (records.length === 0) {
      this.phase = 'done';
      replaySkips();
      this.summary.error = 'no JSON records (every line was skipped)';
      return;
    }
    const probe: Probe = { mode: 'jsonl', fileName: this.fileName, records: records.map((h) => h.value) };
    const alternative: Probe | null =
      atEnd && records.length === 1 ? { mode: 'document', fileName: this.fileName, value: records[0]!.value } : null;
    const picked = this.pick(probe, alternative);
    if (!picked) {
      this.phase = 'done';
      // Lines of a file that is no transcript (a settings file, a shell history) are not skipped
      // transcript lines: kept in the summary, not announced one by one.
      replaySkips(false);
      this.summary.error = this.unrecognized(probe);
      return;
    }
    if (!this.open(picked.adapter)) {
      replaySkips();
      return;
    }
    this.phase = 'run';
    for (const h of held) {
      if ('skip' in h) this.skip(h.line, h.skip);
      else this.push(h.value, picked.alternative ? null : h.line);
    }
    this.countSkips(dropped);
  }

  /** The adapter for this file, and whether the alternative reading (one whole document) won. */
  private pick(probe: Probe, alternative: Probe | null): { adapter: FormatAdapter; alternative: boolean } | null {
    const forced = this.options.inputFormat;
    if (forced && forced !== 'auto') {
      let adapter: FormatAdapter;
      try {
        adapter = adapterFor(forced, this.adapters);
      } catch (err) {
        this.summary.error = messageOf(err);
        return null;
      }
      const prefersAlternative = alternative !== null && safeDetect(adapter, alternative) > safeDetect(adapter, probe);
      return { adapter, alternative: prefersAlternative };
    }
    // loopledger's own output (a report saved beside the transcripts) is not read back as one.
    if (isLoopledgerOutput(probe)) {
      this.summary.error = 'a loopledger report, not a transcript';
      this.summary.not_transcript = 'loopledger-report';
      return null;
    }
    const best = rankFormats(probe, this.adapters);
    const other = alternative ? rankFormats(alternative, this.adapters) : null;
    // Ties go to the line-by-line reading, which keeps line numbers.
    if (other && other.score > (best?.score ?? 0)) return { adapter: other.adapter, alternative: true };
    return best ? { adapter: best.adapter, alternative: false } : null;
  }

  private unrecognized(probe: Probe): string {
    if (this.summary.error) return this.summary.error;
    this.summary.not_transcript = 'unrecognized';
    const names = this.adapters.map((a) => a.name).join(', ');
    return `not a recognized transcript format: ${describeProbe(probe)} (known: ${names}; --input-format forces one)`;
  }

  private open(adapter: FormatAdapter): boolean {
    this.format = adapter.name;
    this.summary.format = adapter.name;
    this.builder = new TranscriptBuilder(this.guardedSink, this.input, adapter.name, undefined, this.origin(adapter.name));
    try {
      this.parser = adapter.open({
        path: this.input,
        builder: this.builder,
        skip: (line, reason) => this.skip(line, reason),
        ignore: (kind) => this.ignore(kind),
      });
    } catch (err) {
      if (err instanceof SinkFailure) throw err;
      this.phase = 'done';
      this.summary.error = `the ${adapter.name} reader failed to start: ${sanitize(messageOf(err), { max: 200 })}`;
      return false;
    }
    return true;
  }

  /** What the file's place in an agent's store says about its sessions (project, agent type). */
  private origin(format: FormatName): SessionOrigin {
    if (this.input === '-') return {};
    const store = storeProject(this.input);
    return {
      project: store !== null && store.agent === format ? store.project : null,
      agentType: format === 'claude-code' ? this.agentType : null,
    };
  }

  private push(value: unknown, line: number | null): void {
    try {
      this.parser!.push(value, line);
    } catch (err) {
      // An adapter bug on one odd record costs that record, not the file.
      if (err instanceof SinkFailure) throw err;
      this.skip(line, `could not read this ${this.format} record: ${messageOf(err)}`);
    }
  }

  /** Release everything the adapter still holds; sessions announced are always ended. */
  private close(): void {
    if (this.parser) {
      try {
        this.parser.end();
      } catch (err) {
        if (err instanceof SinkFailure) throw err;
        this.skip(null, `could not finish reading the ${this.format} records: ${messageOf(err)}`);
      }
    }
    this.builder?.end();
  }

  private ignore(kind: string): void {
    // Kinds come from the file: a bounded number of them (the rest counted as `other`), in an
    // object without a prototype, so that no kind name can reach Object's own properties.
    const counts = (this.summary.ignored ??= Object.create(null) as Record<string, number>);
    const name = sanitize(kind, { max: 80 });
    const key = Object.hasOwn(counts, name) || Object.keys(counts).length < MAX_IGNORED_KINDS ? name : 'other';
    counts[key] = (counts[key] ?? 0) + 1;
  }

  /** SPEC: inputs[].skipped keeps the first MAX_KEPT_SKIPS; skipped_lines counts them all. */
  private skip(line: number | null, reason: string, announce = true): void {
    this.summary.skipped_lines += 1;
    if (this.summary.skipped.length >= MAX_KEPT_SKIPS) return;
    const skipped: SkippedLine = { line, reason: sanitize(reason, { max: 300 }) };
    this.summary.skipped.push(skipped);
    if (announce) this.options.onSkip?.(skipped);
  }

  private countSkips(n: number): void {
    this.summary.skipped_lines += n;
  }

  private guard(sink: TranscriptSink): TranscriptSink {
    const call = (fn: () => void) => {
      try {
        fn();
      } catch (err) {
        throw new SinkFailure(err);
      }
    };
    return {
      session: (info: SessionInfo) => {
        this.summary.sessions += 1;
        call(() => sink.session(info));
      },
      turn: (sessionId: string, turn: number, line: number | null) => call(() => sink.turn(sessionId, turn, line)),
      round: (sessionId: string, round: Round) => call(() => sink.round(sessionId, round)),
      end: (sessionId: string) => call(() => sink.end(sessionId)),
      recordedCost: (sessionId, cost) => call(() => sink.recordedCost?.(sessionId, cost)),
      interrupt: (sessionId, interrupt) => call(() => sink.interrupt?.(sessionId, interrupt)),
    };
  }
}

/**
 * The lines of a JSON document read so far, held compactly: texts joined in blocks (a string per
 * line would cost tens of bytes of overhead each, a gigabyte for a few million short lines) and
 * line numbers in a typed array. Lines never contain a newline, so a block splits back exactly.
 */
class DocumentBuffer {
  private blocks: string[] = [];
  private pending: string[] = [];
  private pendingChars = 0;
  private numbers = new Int32Array(1024);
  private count = 0;
  private endsUnfinished = false;
  /** Past V8's string limit the document can never be parsed whole: its text is let go, only counted. */
  private overflowed = false;
  /** Characters of the document joined with newlines. */
  chars = 0;
  /** Its first line opens an object at the start of the line (so a `}` alone on a line may close it). */
  startsWithObject = false;
  /** The line number of its first line. */
  firstLine = 0;

  private static readonly BLOCK_LINES = 4096;
  private static readonly BLOCK_CHARS = 1 << 20;

  push(line: Line): void {
    if (this.chars === 0) {
      this.startsWithObject = line.text.startsWith('{');
      this.firstLine = line.line;
    }
    this.chars += line.text.length + 1;
    this.endsUnfinished = line.unfinished;
    if (this.overflowed) return;
    if (this.chars > MAX_STRING_LENGTH) {
      this.overflowed = true;
      this.blocks = [];
      this.pending = [];
      this.numbers = new Int32Array(0);
      return;
    }
    if (this.count === this.numbers.length) {
      const grown = new Int32Array(this.numbers.length * 2);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    this.numbers[this.count++] = line.line;
    this.pending.push(line.text);
    this.pendingChars += line.text.length + 1;
    if (this.pending.length >= DocumentBuffer.BLOCK_LINES || this.pendingChars >= DocumentBuffer.BLOCK_CHARS) this.seal();
  }

  private seal(): void {
    if (this.pending.length === 0) return;
    this.blocks.push(this.pending.join('\n'));
    this.pending = [];
    this.pendingChars = 0;
  }

  text(): string {
    this.seal();
    return this.blocks.join('\n');
  }

  /** One line at a time (not a block split into an array: short-lived strings stay young garbage). */
  *lines(): Generator<Line> {
    this.seal();
    let i = 0;
    for (const block of this.blocks) {
      let start = 0;
      for (;;) {
        const end = block.indexOf('\n', start);
        const text = end < 0 ? block.slice(start) : block.slice(start, end);
        yield { line: this.numbers[i]!, text, unfinished: this.endsUnfinished && i === this.count - 1, tooLong: false };
        i += 1;
        if (end < 0) break;
        start = end + 1;
      }
    }
  }
}

/**
 * Whether JSON.parse failed only for want of more text: V8 says "end of JSON input" or points at
 * the very end. A document with an error inside it (a trailing comma) is malformed, not cut.
 */
function endsEarly(text: string, message: string): boolean {
  if (/end of JSON input/.test(message)) return true;
  const at = /at position (\d+)/.exec(message);
  return at !== null && Number(at[1]) >= text.trimEnd().length;
}

/**
 * A report loopledger wrote: `--format json` (and the sweep, config and stores JSON, all with
 * `schema: "loopledger/…"`), `--format sarif` (its driver is loopledger) or `--format ndjson`
 * (entries with a session, a detector and an intervention). Not `loopledger-canonical`, which is
 * a transcript format.
 */
function isLoopledgerOutput(probe: Probe): boolean {
  const first = probe.mode === 'document' ? probe.value : probe.records[0];
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return false;
  const r = first as Record<string, unknown>;
  if (typeof r['schema'] === 'string' && r['schema'].startsWith('loopledger/')) return true;
  if (Array.isArray(r['runs']) && typeof r['$schema'] === 'string' && /sarif/i.test(r['$schema'])) {
    const driver = (r['runs'][0] as { tool?: { driver?: { name?: unknown } } } | undefined)?.tool?.driver;
    return driver?.name === 'loopledger';
  }
  const intervention = r['intervention'];
  return (
    typeof r['session'] === 'string' &&
    (r['detector'] === 'tool_batch' || r['detector'] === 'output' || r['detector'] === 'thinking') &&
    typeof intervention === 'object' && intervention !== null && 'enforce' in intervention
  );
}

/** A few words on what the file looked like, for the "not recognized" message (no content). */
function describeProbe(probe: Probe): string {
  if (probe.mode === 'jsonl') return `JSON lines, the first record ${describeValue(probe.records[0])}`;
  return `a JSON document that ${describeValue(probe.value)}`;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? 'is an empty array' : `is an array of ${value.length}`;
  if (typeof value !== 'object' || value === null) return `is ${describeScalar(value)}`;
  const keys = Object.keys(value);
  if (keys.length === 0) return 'is an object with no keys';
  const shown = keys.slice(0, 6).map((k) => JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k));
  return `has keys ${shown.join(', ')}${keys.length > 6 ? ', …' : ''}`;
}
