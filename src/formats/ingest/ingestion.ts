// The phases of reading one file: the first lines decide between JSON lines and one JSON
// document; JSON lines are held until detection has seen PROBE_RECORDS records, then replayed into
// the chosen adapter (adapter-run.ts) with the reader's own skips in line order (skips.ts); a
// document is held whole (document.ts) and handed over once it ends. Bad content never throws
// out of here: it becomes a skipped line or the summary's `error`.

import { constants } from 'node:buffer';
import { statSync } from 'node:fs';
import type { InputSummary } from '../input.js';
import { MAX_KEPT_SKIPS } from '../../read/skipped.js';
import type { TranscriptSink } from '../../model/transcript.js';
import { DEFAULT_MAX_LINE_LENGTH, type Line, ReadFailure, startLines } from '../../read/lines.js';
import { sanitize } from '../../sanitize.js';
import { isConversationPath } from '../../read/conversation-dir.js';
import { ADAPTERS } from '../index.js';
import type { FormatAdapter, Probe } from '../types.js';
import { AdapterRun, SinkFailure } from './adapter-run.js';
import { judgeLargeDocument } from '../../read/document-prefix.js';
import { type Choice, pickAdapter, unrecognized } from './choose.js';
import { readConversation } from './conversation.js';
import { mayBeDatabase, readDatabase } from './database.js';
import { isSqliteFile } from '../../read/sqlite.js';
import { ConcatenatedValues } from '../../read/concatenated.js';
import { DocumentBuffer } from './document.js';
import { readArrayDocument, worthStreamingArray } from './array-document.js';
import { describeScalar, endsEarly, isJsonContainer, parseJson, parseJsonCheaply } from './json.js';
import { hasTooManyValues, TOO_MANY_VALUES_REASON } from '../../read/json-values.js';
import { type IngestOptions, PROBE_HELD_CHARS, PROBE_RECORDS, TooLargeToHoldHere, TRUNCATED_REASON } from './options.js';
import { SkipTally } from './skips.js';

const { MAX_STRING_LENGTH } = constants;

/**
 * A `.jsonl` file whose first lines do not parse is held as a possible JSON document only up to
 * this size: a real pretty-printed document saved as .jsonl is small (an exported chat); past it,
 * the file is read as JSON lines with broken lines, so memory stays bounded.
 */
const JSONL_DOCUMENT_MAX_CHARS = 32 * 1024 * 1024;

type HeldRecord = { value: unknown; line: number };
type HeldItem = HeldRecord | { skip: string; line: number };
/** A replayed slot of the probe: its record already handed to the adapter. */
const RELEASED: HeldItem = { skip: '', line: 0 };

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

export class Ingestion {
  private readonly summary: InputSummary;
  private readonly adapters: readonly FormatAdapter[];
  private readonly skips: SkipTally;
  private readonly run: AdapterRun;
  private phase: Phase = 'start';
  private firstLine: (Line & { message: string }) | null = null;
  /** A JSON document's lines, held until its end. */
  private document = new DocumentBuffer();
  /**
   * What arrived while probing, in line order: the records detection sees, and the reader's own
   * skips, held back so that every skip is reported in line order once the adapter replays.
   */
  private held: HeldItem[] = [];
  private heldRecords = 0;
  /** The text length of the held records: their parsed trees cost a multiple of it. */
  private heldChars = 0;
  /** Skips while probing past the first MAX_KEPT_SKIPS held: counted, never kept (memory stays bounded). */
  private heldSkipsDropped = 0;
  private heldSkips = 0;
  private lastLine = 0;
  /** Lines skipped unread for their length: a file of nothing else is not an empty file. */
  private tooLongLines = 0;
  /** Lines skipped unparsed for the values they hold (MAX_RECORD_VALUES), for the same reason. */
  private tooManyValuesLines = 0;
  /**
   * A first line with too many values for a record, unparsed: should the file end here, it is one
   * minified document and read whole as any document is; should another line follow, it is skipped.
   */
  private loneLine: Line | null = null;
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
    this.skips = new SkipTally(this.summary, options.onSkip);
    this.run = new AdapterRun(input, this.summary, this.skips, sink);
  }

  async read(): Promise<InputSummary> {
    try {
      await this.run.prepare();
      return await this.readAll();
    } catch (err) {
      if (err instanceof SinkFailure) throw err.error;
      throw err;
    }
  }

  private async readAll(): Promise<InputSummary> {
    // One blocking stat answers for the checks below on a regular file (no conversation folder, no
    // large document or array to judge when small): they opened or stat'ed every file again, four
    // thread-pool round trips each, which over the real-shaped store's 1,000 files cost the reading
    // thread 0.2 s of CPU and as long again waiting (issue 59).
    const size = this.input === '-' ? null : regularFileSize(this.input);
    if (this.input !== '-' && size === null && (await isConversationPath(this.input))) {
      return readConversation(this.input, this.summary, this.run, this.skips, this.options.inputFormat, this.adapters);
    }
    if (this.input !== '-' && mayBeDatabase(this.input) && (await isSqliteFile(this.input))) {
      return readDatabase(this.input, this.summary, this.run, this.skips, this.options.inputFormat, this.adapters);
    }
    // A forced format reads the file whatever it looks like; otherwise a large JSON document is judged on its first MB.
    if (this.input !== '-' && (this.options.inputFormat === undefined || this.options.inputFormat === 'auto')) {
      const verdict = await judgeLargeDocument(this.input, size ?? undefined);
      if (verdict !== null) {
        this.summary.error = verdict.message;
        this.summary.not_transcript = verdict.kind;
        this.run.close();
        return this.summary;
      }
    }
    if (this.input !== '-' && (await worthStreamingArray(this.input, this.options.streamArraysFrom, size ?? undefined))) {
      if (await readArrayDocument(this.input, this.summary, this.run, this.skips, this.options, this.adapters)) {
        this.run.close();
        if (this.summary.error !== undefined) this.summary.error = sanitize(this.summary.error, { max: 500 });
        return this.summary;
      }
    }
    let readError: string | null = null;
    try {
      const run = startLines(this.input, (line) => this.onLine(line), {
        stdin: this.options.stdin,
        maxLineLength: Math.min(this.options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH, this.options.maxHeldChars ?? Infinity),
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
    this.run.close();
    if (readError !== null) this.summary.error = readError;
    // Key names and parser snippets come from the file: they must not drive a terminal.
    if (this.summary.error !== undefined) this.summary.error = sanitize(this.summary.error, { max: 500 });
    return this.summary;
  }

  private onLine(line: Line): boolean {
    this.lastLine = line.line;
    if (line.tooLong) {
      if (this.options.maxHeldChars !== undefined) throw new TooLargeToHoldHere(line.line, this.options.maxHeldChars);
      this.tooLongLines += 1;
      const limit = this.options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
      const size = limit >= 1024 * 1024 ? `${Math.round(limit / (1024 * 1024))} MB` : `${limit} characters`;
      this.lineSkip(line.line, `line too long (over ${size}): skipped unread`);
      return true;
    }
    switch (this.phase) {
      case 'start': {
        if (this.loneLine !== null) this.skipTooManyValues(this.loneLine);
        this.loneLine = null;
        if (hasTooManyValues(line.text)) {
          this.loneLine = line;
          return true;
        }
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
        // Unparsed, a line with too many values is held as part of a document (read whole, or line by line below).
        const parsed = hasTooManyValues(line.text) ? { ok: false as const, message: TOO_MANY_VALUES_REASON } : parseJson(line.text);
        // A JSON document's second line never parses on its own as an object, except an array
        // element on its own line; then the document is tried whole first (see finish()).
        if (parsed.ok && isJsonContainer(parsed.value) && !first.text.trimStart().startsWith('[')) {
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
        if (this.document.chars > JSONL_DOCUMENT_MAX_CHARS && /\.(jsonl|ndjson)$/i.test(this.run.fileName)) {
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
        if (hasTooManyValues(line.text)) {
          this.skipTooManyValues(line);
          return true;
        }
        const parsed = this.skips.counted + this.heldSkipsDropped + this.heldSkips >= MAX_KEPT_SKIPS ? parseJsonCheaply(line.text) : parseJson(line.text);
        if (parsed.ok) this.record(line, parsed.value);
        else this.malformed(line, parsed.message);
        // choose() may have found no adapter: then stop reading.
        return (this.phase as Phase) !== 'done';
      }
      case 'done':
        return false;
    }
  }

  /** `chars`: the record's text length (a line's, or a pretty-printed object's). */
  private record(line: Line, value: unknown, chars = line.text.length): void {
    if (!isJsonContainer(value)) {
      this.lineSkip(line.line, `not a record: the line holds ${describeScalar(value)}`);
      return;
    }
    if (this.phase === 'probe') {
      this.held.push({ value, line: line.line });
      this.heldRecords += 1;
      this.heldChars += chars;
      // Large records end the probe early, so that parsed trees are never held by the dozen (a
      // lone record is held on: at the file's end it may be read as one minified document).
      if (this.heldRecords >= PROBE_RECORDS || (this.heldChars >= PROBE_HELD_CHARS && this.heldRecords >= 2)) this.choose(false);
      return;
    }
    this.run.push(value, line.line);
  }

  private skipTooManyValues(line: Pick<Line, 'line'>): void {
    this.tooManyValuesLines += 1;
    this.lineSkip(line.line, TOO_MANY_VALUES_REASON);
  }

  private malformed(line: Line, message: string): void {
    this.lineSkip(line.line, line.unfinished ? TRUNCATED_REASON : `malformed JSON: ${message}`);
  }

  private lineSkip(line: number, reason: string): void {
    if (this.phase !== 'probe') {
      this.skips.skip(line, reason);
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
        if (this.loneLine !== null && this.tooLongLines + this.tooManyValuesLines === 0) {
          this.readLoneLine(this.loneLine);
          return;
        }
        if (this.loneLine !== null) this.skipTooManyValues(this.loneLine);
        if (this.tooLongLines > 0 && this.tooManyValuesLines === 0) {
          this.summary.error = `no record read: ${this.tooLongLines === 1 ? 'its one line was' : `all its ${this.tooLongLines} lines were`} too long (skipped unread)`;
          return;
        }
        if (this.tooManyValuesLines > 0) {
          const lines = this.tooLongLines + this.tooManyValuesLines;
          this.summary.error = `no record read: ${lines === 1 ? 'its one line holds' : `all its ${lines} lines were too long or hold`} too many values (skipped unparsed)`;
          return;
        }
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

  /** The file is one line, too large for a record: a minified document, parsed whole as documents are. */
  private readLoneLine(line: Line): void {
    const parsed = parseJson(line.text);
    if (!parsed.ok) {
      this.malformed(line, parsed.message);
      this.summary.error = 'no JSON records (every line was skipped)';
      return;
    }
    this.phase = 'probe';
    this.record(line, parsed.value);
    this.choose(true);
  }

  /**
   * A second pretty-printed object opens right after the first closed: the file is objects one after
   * another. The held first one becomes the first record; from here each is parsed as it closes.
   * False when the held text is no object after all (then it stays one document).
   */
  private startConcatenated(line: Line): boolean {
    const doc = this.document;
    const first = doc.firstLine;
    const text = doc.text();
    // Past the bound the first object is skipped unparsed, as any later one would be.
    const tooMany = hasTooManyValues(text);
    const parsed = tooMany ? null : parseJson(text);
    if (parsed !== null && (!parsed.ok || !isJsonContainer(parsed.value))) return false;
    this.document = new DocumentBuffer();
    this.documentClosed = false;
    this.phase = 'probe';
    this.concatenated = new ConcatenatedValues(JSONL_DOCUMENT_MAX_CHARS);
    if (parsed?.ok) this.record({ line: first, text: '', unfinished: false, tooLong: false }, parsed.value, doc.chars);
    else this.skipTooManyValues({ line: first });
    for (const part of this.concatenated.push(line.text, line.line)) this.concatenatedPart(part);
    return true;
  }

  private concatenatedPart(part: { text: string; line: number } | { skip: string; line: number }): void {
    if ('skip' in part) {
      if (part.skip === TOO_MANY_VALUES_REASON) this.tooManyValuesLines += 1;
      this.lineSkip(part.line, part.skip);
      return;
    }
    const at: Line = { line: part.line, text: '', unfinished: false, tooLong: false };
    const parsed = parseJsonCheaply(part.text);
    if (parsed.ok) this.record(at, parsed.value, part.text.length);
    else this.malformed(at, parsed.message);
  }

  /** The held lines were JSON lines after all: each is a record or a skipped line. */
  private readAsLines(doc: DocumentBuffer): void {
    this.phase = 'probe';
    for (const line of doc.lines()) {
      if ((this.phase as Phase) === 'done') break;
      if (hasTooManyValues(line.text)) {
        this.skipTooManyValues(line);
        continue;
      }
      const r = this.skips.counted + this.heldSkips >= MAX_KEPT_SKIPS ? parseJsonCheaply(line.text) : parseJson(line.text);
      if (r.ok) this.record(line, r.value);
      else this.malformed(line, r.message);
    }
  }

  private holdDocumentLine(line: Line): void {
    this.document.push(line);
    const limit = this.options.maxHeldChars;
    if (limit !== undefined && this.document.chars > limit) throw new TooLargeToHoldHere(line.line, limit);
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
      if (hasTooManyValues(line.text)) continue;
      const r = parseJsonCheaply(line.text);
      if (r.ok && isJsonContainer(r.value)) {
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
    const probe: Probe = { mode: 'document', fileName: this.run.fileName, value };
    const picked = pickAdapter(this.summary, probe, null, this.options.inputFormat, this.adapters);
    if (!picked) {
      this.phase = 'done';
      this.summary.error = unrecognized(this.summary, probe, this.adapters);
      return;
    }
    if (!this.run.open(picked.adapter)) {
      this.phase = 'done';
      return;
    }
    this.phase = 'run';
    this.run.push(value, null);
  }

  /**
   * Pick the adapter from the held records and replay them into it. `atEnd`: the file held no
   * more; a file of one record may be a minified JSON document, so that reading competes too.
   */
  private choose(atEnd: boolean): void {
    const held = this.held;
    this.held = [];
    this.heldChars = 0;
    const dropped = this.heldSkipsDropped;
    this.heldSkipsDropped = 0;
    this.heldSkips = 0;
    const replaySkips = (announce = true) => {
      for (const h of held) if ('skip' in h) this.skips.skip(h.line, h.skip, announce);
      this.skips.count(dropped);
    };
    const picked = this.detect(held, atEnd);
    if (picked === 'none') {
      this.phase = 'done';
      replaySkips();
      this.summary.error = 'no JSON records (every line was skipped)';
      return;
    }
    if (picked === 'unrecognized') {
      this.phase = 'done';
      // Lines of a file that is no transcript (a settings file, a shell history) are not skipped
      // transcript lines: kept in the summary, not announced one by one.
      replaySkips(false);
      return;
    }
    if (!this.run.open(picked.adapter)) {
      this.phase = 'done';
      replaySkips();
      return;
    }
    this.phase = 'run';
    // Each record is let go once replayed: the adapter keeps what it needs, and a large argument
    // tree lives no longer than its round, not until the whole probe is replayed.
    for (let i = 0; i < held.length; i++) {
      const h = held[i]!;
      held[i] = RELEASED;
      if ('skip' in h) this.skips.skip(h.line, h.skip);
      else this.run.push(h.value, picked.alternative ? null : h.line);
    }
    this.skips.count(dropped);
  }

  /**
   * The adapter for the held records (with `summary.error` set when none takes them). Its own
   * frame, so that the probe's list of records is gone before they are replayed.
   */
  private detect(held: readonly HeldItem[], atEnd: boolean): Choice | 'none' | 'unrecognized' {
    const records = held.filter((h): h is HeldRecord => 'value' in h).map((h) => h.value);
    if (records.length === 0) return 'none';
    const fileName = this.run.fileName;
    const probe: Probe = { mode: 'jsonl', fileName, records };
    const alternative: Probe | null = atEnd && records.length === 1 ? { mode: 'document', fileName, value: records[0] } : null;
    const picked = pickAdapter(this.summary, probe, alternative, this.options.inputFormat, this.adapters);
    if (picked) return picked;
    this.summary.error = unrecognized(this.summary, probe, this.adapters);
    return 'unrecognized';
  }
}

/** The size of `path` if it is a regular file (links followed), else null: a folder, or what cannot be stat'ed (the reader says why). */
function regularFileSize(path: string): number | null {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats?.isFile() ? stats.size : null;
  } catch {
    return null;
  }
}
