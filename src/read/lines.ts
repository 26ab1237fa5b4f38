// The line reader: a file (or stdin) in, numbered lines out, streaming. Lines are split in the
// bytes and each line decoded once (readline over a decoded stream cost 40% of the reading
// thread: splitting a Buffer is memchr, and no text is decoded twice). Not ndjson.parse, which is
// quadratic on long lines, hangs on a bad line and stops at a `null` line; JSON parsing is the
// caller's business, so one bad line costs only that line.

import { StringDecoder } from 'node:string_decoder';
import { closeSync, fstatSync, openSync, read, readSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { SNIFF_BYTES, sniff } from './sniff.js';

/** Lines end at LF, CRLF or a lone CR (readline's rule; JSON never holds a raw CR in a string). */
export interface Line {
  /** 1-based, counting blank lines too, so that it matches what an editor shows. */
  line: number;
  /** The line without its terminator (and without a leading BOM on line 1); '' when tooLong. */
  text: string;
  /** The last line of the input, and no newline followed it (a file still being written?). */
  unfinished: boolean;
  /** Longer than `maxLineLength`: its text was dropped unread, to keep memory bounded. */
  tooLong: boolean;
}

export interface LineStats {
  /** Lines seen, blank ones included. */
  lines: number;
  bytes: number;
  /** False when the input ended in the middle of a line. True for an empty input. */
  endedWithNewline: boolean;
  /** The consumer stopped early; the rest of the input was not read. */
  stopped: boolean;
}

export interface LineOptions {
  /** The stream read for the path `-`; process.stdin by default. Never touched otherwise. */
  stdin?: Readable;
  /**
   * Lines longer than this many characters are skipped unread (reported `tooLong`). Well above
   * any real transcript line, and well below V8's ~512M-character string limit, whose RangeError
   * readline would otherwise throw from inside a stream callback.
   */
  maxLineLength?: number;
}

/**
 * Bytes per read. Each read is a thread-pool round trip during which this thread idles; a
 * quarter megabyte keeps it busy. A megabyte was no faster and, held in the pipeline's reading
 * worker outside its capped heap, took a 1 GB file's peak RSS from 195 to 206 MB (SPEC: < 200).
 * A file no larger than this is read whole, in one read.
 */
const READ_CHUNK_BYTES = 256 * 1024;
/** What a small file's second read asks for: usually nothing comes (it only sees the end). */
const EOF_PROBE_BYTES = 4096;

export const DEFAULT_MAX_LINE_LENGTH = 128 * 1024 * 1024;

export type ReadFailureKind = 'unreadable' | 'binary' | 'encoding' | 'compressed';

/** The input could not be read as text at all (as opposed to a bad line inside it). */
export class ReadFailure extends Error {
  constructor(
    readonly kind: ReadFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'ReadFailure';
  }
}

export type LineSource = string | Readable;

/** `false` stops reading: the rest of the input is not read. */
export type LineHandler = (line: Line) => void | boolean;

/**
 * Call `onLine` for every non-blank line, in order, synchronously as the input streams in.
 * Resolves with the totals; rejects with a ReadFailure when the input cannot be read as UTF-8
 * text, or with whatever `onLine` threw.
 */
export function forEachLine(source: LineSource, onLine: LineHandler, options: LineOptions = {}): Promise<LineStats> {
  return startLines(source, onLine, options).done;
}

/** The same lines as an async iterable (pausing the input while the consumer is busy). */
export async function* readLines(source: LineSource, options: LineOptions = {}): AsyncGenerator<Line, LineStats> {
  const queue: Line[] = [];
  let wake: (() => void) | null = null;
  let settled = false;
  const run = startLines(
    source,
    (line) => {
      queue.push(line);
      // readline hands over a whole chunk's lines at once; pausing bounds the queue to about a chunk.
      if (queue.length >= 256) run.pause();
      wake?.();
    },
    options,
  );
  let result: LineStats | undefined;
  let failure: unknown;
  let failed = false;
  run.done.then(
    (stats) => {
      result = stats;
      settled = true;
      wake?.();
    },
    (err: unknown) => {
      failure = err;
      failed = true;
      settled = true;
      wake?.();
    },
  );
  try {
    for (;;) {
      if (queue.length > 0) {
        yield queue.shift()!;
        if (queue.length === 0) run.resume();
        continue;
      }
      if (settled) {
        if (failed) throw failure;
        return result!;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
  } finally {
    if (!settled) run.stop();
  }
}

export interface LineRun {
  done: Promise<LineStats>;
  pause(): void;
  resume(): void;
  stop(): void;
}

/** forEachLine with its flow exposed: pause() holds the input after the line being handed over,
 * resume() lets it go on. */
export function startLines(source: LineSource, onLine: LineHandler, options: LineOptions): LineRun {
  const splitter = new LineSplitter(onLine, options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH);
  let wake: (() => void) | null = null;
  const resumed = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  let closeInput: () => void = () => {};
  const done = (async (): Promise<LineStats> => {
    // Read on a later tick, as a stream would: the caller gets the run (pause, stop) before any line.
    await Promise.resolve();
    const chunks = typeof source === 'string' ? (source === '-' ? streamChunks(options.stdin ?? process.stdin) : fileChunks(source)) : streamChunks(source);
    closeInput = () => void chunks.return(undefined).catch(() => {});
    try {
      for (;;) {
        if (splitter.finished) break;
        let next: IteratorResult<Buffer>;
        try {
          next = await chunks.next();
        } catch (err) {
          // A line cut by the failure was never complete: only whole lines were handed over.
          throw describeReadError(err);
        }
        const chunk = next.done ? splitter.rest() : splitter.take(next.value);
        if (chunk) {
          let at = splitter.feed(chunk, 0);
          while (at < chunk.length && !splitter.finished) {
            // Paused mid-chunk: the rest waits here.
            await new Promise<void>((r) => (wake = r));
            at = splitter.feed(chunk, at);
          }
        }
        if (next.done) {
          splitter.end();
          break;
        }
        while (splitter.paused && !splitter.finished) await new Promise<void>((r) => (wake = r));
      }
    } finally {
      if (splitter.finished && splitter.stopped) await chunks.return(undefined).catch(() => {});
    }
    return splitter.stats();
  })();
  return {
    done,
    pause: () => {
      if (!splitter.finished) splitter.paused = true;
    },
    resume: () => {
      splitter.paused = false;
      resumed();
    },
    stop: () => {
      if (splitter.finished) return;
      splitter.finished = true;
      splitter.stopped = true;
      splitter.paused = false;
      closeInput();
      resumed();
    },
  };
}

/** A file's bytes, a chunk at a time (opened read-only: an input is never modified). */
async function* fileChunks(path: string): AsyncGenerator<Buffer, void, undefined> {
  // Opened, sized and (when small) read with blocking calls: each asynchronous call is a
  // thread-pool round trip, five per file, and over a store of small session files those waits
  // left each worker idle a fifth of the time. A read no larger than READ_CHUNK_BYTES blocks
  // for microseconds; larger files are read asynchronously, chunk by chunk.
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw describeReadError(err);
  }
  try {
    const size = fstatSync(fd).size;
    if (size > 0 && size <= READ_CHUNK_BYTES) {
      // Small files whole: one read (and one more to see the end, in case the file grew).
      const buf = Buffer.allocUnsafe(size);
      let got = 0;
      while (got < size) {
        const bytesRead = readSync(fd, buf, got, size - got, null);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      if (got > 0) yield got === size ? buf : buf.subarray(0, got);
      if (got < size) return;
      // The end, seen without a chunk-sized buffer (a file that grew is read on below).
      const more = Buffer.allocUnsafe(EOF_PROBE_BYTES);
      const extra = readSync(fd, more, 0, EOF_PROBE_BYTES, null);
      if (extra === 0) return;
      yield more.subarray(0, extra);
    }
    // One buffer for all of a large file's chunks, read into again once the last chunk is split:
    // the splitter copies what it keeps of a chunk past that (a line cut by its end, a prefix
    // still being gathered). A fresh buffer per chunk cost a page fault per 4 KB in the kernel.
    const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    for (;;) {
      const bytesRead = await readAsync(fd, buf);
      if (bytesRead === 0) return;
      yield bytesRead === READ_CHUNK_BYTES ? buf : buf.subarray(0, bytesRead);
    }
  } finally {
    try {
      closeSync(fd);
    } catch {
      // Nothing was lost: every byte read was handed over.
    }
  }
}

function readAsync(fd: number, buf: Buffer): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buf, 0, buf.length, null, (err, n) => (err ? reject(err) : resolve(n))));
}

/** A stream's bytes (strings, from a stream with an encoding set, are encoded back). */
async function* streamChunks(input: Readable): AsyncGenerator<Buffer, void, undefined> {
  try {
    for await (const chunk of input) {
      if (typeof chunk === 'string') yield Buffer.from(chunk, 'utf8');
      else if (chunk.length > 0) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
  } finally {
    input.destroy();
  }
}

function isBlank(text: string): boolean {
  // trim() only walks inwards from the ends, so a long non-blank line costs nothing here.
  return text.length === 0 || text.trim().length === 0;
}

function describeReadError(err: unknown): ReadFailure {
  if (err instanceof ReadFailure) return err;
  const e = err as NodeJS.ErrnoException;
  const byCode: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EISDIR: 'is a directory',
    ELOOP: 'too many levels of symbolic links',
    EMFILE: 'too many open files',
  };
  const message = (e && e.code && byCode[e.code]) || `cannot read: ${e?.message ?? String(err)}`;
  return new ReadFailure('unreadable', message);
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Bytes in, lines out. Refuses binary and non-UTF-8 input from its first bytes; past them,
 * invalid bytes become U+FFFD (the line that holds them is still JSON, and a late stray byte
 * should not cost the session). A line is decoded once, when its end is seen; a line cut by a
 * chunk's end is kept as bytes. A line longer than the limit (in UTF-16 units, as a string's
 * length) is reported tooLong and its bytes are dropped as they come, so memory stays bounded.
 */
class LineSplitter {
  paused = false;
  finished = false;
  stopped = false;
  private bytes = 0;
  private lineNo = 0;
  private prefix: Buffer[] = [];
  private prefixLength = 0;
  private sniffed = false;
  private bomChecked = false;
  /** The bytes of a line cut by a chunk's end. */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  /**
   * Once the cut line's bytes pass the limit, its length in characters is followed exactly
   * (decoded and counted piece by piece, never held whole): bytes alone only bound it.
   */
  private carryDecoder: StringDecoder | null = null;
  private carryUnits = 0;
  /** The line being read is over the limit: its bytes are skipped up to its end. */
  private dropping = false;
  /** The last chunk ended with a CR: an LF opening the next one belongs to it. */
  private pendingCR = false;
  private lastByte = LF;

  constructor(
    private readonly onLine: LineHandler,
    private readonly maxLineLength: number,
  ) {}

  stats(): LineStats {
    return { lines: this.lineNo, bytes: this.bytes, endedWithNewline: this.lastByte === LF || this.lastByte === CR, stopped: this.stopped };
  }

  /**
   * Take a chunk read: what is ready to split, or null while the first SNIFF_BYTES are still
   * being gathered (they decide whether the input is text at all).
   */
  take(chunk: Buffer): Buffer | null {
    if (chunk.length === 0) return null;
    this.bytes += chunk.length;
    this.lastByte = chunk[chunk.length - 1]!;
    if (this.sniffed) return chunk;
    this.prefixLength += chunk.length;
    if (this.prefixLength < SNIFF_BYTES) {
      // Kept past the next read, which may reuse the chunk's buffer.
      this.prefix.push(Buffer.from(chunk));
      return null;
    }
    this.prefix.push(chunk);
    return this.sniffPrefix();
  }

  /** At the input's end: the gathered prefix of a short input, if not yet split. */
  rest(): Buffer | null {
    return this.sniffed ? null : this.sniffPrefix();
  }

  /** Split `chunk` from `from`; returns where it stopped (chunk.length unless paused or finished). */
  feed(chunk: Buffer, from: number): number {
    return this.split(chunk, from);
  }

  end(): void {
    if (this.finished) return;
    if (this.carryBytes > 0 || this.dropping) {
      // The last line, with no terminator after it: a file still being written?
      this.lineNo += 1;
      this.deliverCarry(null, 0, 0, true);
    }
    this.finished = true;
  }

  private sniffPrefix(): Buffer {
    this.sniffed = true;
    const all = this.prefix.length === 1 ? this.prefix[0]! : Buffer.concat(this.prefix, this.prefixLength);
    this.prefix = [];
    // Never judged as complete: a small file that ends inside a character is a file still being
    // written, whose last line is reported truncated (as in a large file), not a non-UTF-8 file.
    const verdict = sniff(all.subarray(0, SNIFF_BYTES), false);
    if (!verdict.ok) throw new ReadFailure(verdict.kind, verdict.message);
    return all;
  }

  private split(chunk: Buffer, from: number): number {
    let i = from;
    const n = chunk.length;
    if (!this.bomChecked && n > 0) {
      // One leading BOM goes, as a decoder drops it: it is not part of the first line. The first
      // split is of the whole sniffed prefix, so a BOM is never cut here.
      this.bomChecked = true;
      if (chunk[i] === 0xef && chunk[i + 1] === 0xbb && chunk[i + 2] === 0xbf) i += 3;
    }
    if (this.pendingCR && i < n) {
      this.pendingCR = false;
      if (chunk[i] === LF) i += 1;
    }
    // A lone CR ends a line too (readline's rule; JSON never holds a raw CR in a string); most
    // files have none, and then only LF is searched for.
    let cr = chunk.indexOf(CR, i);
    while (i < n) {
      if (this.paused || this.finished) return i;
      let lf = chunk.indexOf(LF, i);
      let end: number;
      let next: number;
      if (cr !== -1 && cr < i) cr = chunk.indexOf(CR, i);
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 < n) {
          next = chunk[cr + 1] === LF ? cr + 2 : cr + 1;
        } else {
          next = n;
          this.pendingCR = true;
        }
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else {
        // The line goes on in the next chunk.
        this.hold(chunk, i, n);
        return n;
      }
      this.lineNo += 1;
      if (this.carryBytes > 0 || this.dropping) this.deliverCarry(chunk, i, end, false);
      else this.deliver(chunk, i, end, false);
      i = next;
    }
    return n;
  }

  private hold(chunk: Buffer, from: number, to: number): void {
    if (this.dropping || from === to) return;
    // A copy: the chunk's buffer is read into again before the line ends.
    this.carry.push(Buffer.from(chunk.subarray(from, to)));
    this.carryBytes += to - from;
    if (this.carryBytes <= this.maxLineLength) return;
    // Past the limit in bytes: count characters from here on, exactly.
    if (!this.carryDecoder) {
      this.carryDecoder = new StringDecoder('utf8');
      this.carryUnits = 0;
      for (const piece of this.carry) this.carryUnits += this.carryDecoder.write(piece).length;
    } else {
      this.carryUnits += this.carryDecoder.write(chunk.subarray(from, to)).length;
    }
    if (this.carryUnits > this.maxLineLength) this.drop();
  }

  private drop(): void {
    this.dropping = true;
    this.carry = [];
    this.carryBytes = 0;
    this.carryDecoder = null;
    this.carryUnits = 0;
  }

  /** The line whose start was held (or dropped), ending at `chunk[from, to)` (no chunk at the input's end). */
  private deliverCarry(chunk: Buffer | null, from: number, to: number, unfinished: boolean): void {
    let tooLong = this.dropping;
    let text = '';
    if (!tooLong) {
      if (chunk && to > from) this.carry.push(chunk.subarray(from, to));
      const all = this.carry.length === 1 ? this.carry[0]! : Buffer.concat(this.carry);
      const decoder = this.carryDecoder;
      if (decoder) {
        const units = this.carryUnits + (chunk && to > from ? decoder.write(chunk.subarray(from, to)).length : 0) + decoder.end().length;
        tooLong = units > this.maxLineLength;
      }
      if (!tooLong) text = all.toString('utf8');
    }
    this.carry = [];
    this.carryBytes = 0;
    this.carryDecoder = null;
    this.carryUnits = 0;
    this.dropping = false;
    this.emit(text, unfinished, tooLong);
  }

  private deliver(chunk: Buffer, from: number, to: number, unfinished: boolean): void {
    const text = chunk.toString('utf8', from, to);
    this.emit(text, unfinished, text.length > this.maxLineLength);
  }

  private emit(text: string, unfinished: boolean, tooLong: boolean): void {
    const line = this.lineNo;
    // Judged before the BOM goes: a second BOM is part of the line as read.
    if (tooLong || text.length > this.maxLineLength) tooLong = true;
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (!tooLong && isBlank(text)) return;
    let go: boolean;
    try {
      go = this.onLine({ line, text: tooLong ? '' : text, unfinished, tooLong }) !== false;
    } catch (err) {
      this.finished = true;
      throw err;
    }
    if (!go) {
      this.finished = true;
      this.stopped = true;
    }
  }
}
