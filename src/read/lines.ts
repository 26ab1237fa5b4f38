// The line reader: a file (or stdin) in, numbered lines out, streaming. Built on readline rather
// than ndjson.parse, which is quadratic on long lines, hangs on a bad line and stops at a `null`
// line; JSON parsing is the caller's business, so one bad line costs only that line.

import { StringDecoder } from 'node:string_decoder';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
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
 * Bytes per read. Node's 64 KiB default costs a thread-pool round trip every 64 KiB, during which
 * the main thread idles; a quarter megabyte keeps it busy and memory is still bounded by one chunk.
 */
const READ_CHUNK_BYTES = 256 * 1024;

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

/** forEachLine with its flow exposed: pause() holds the input (readline may still hand over the
 * rest of the chunk it is splitting), resume() lets it go on. */
export function startLines(source: LineSource, onLine: LineHandler, options: LineOptions): LineRun {
  const maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  let input: Readable;
  if (typeof source === 'string') {
    // Opened read-only: an input is never modified.
    input = source === '-' ? (options.stdin ?? process.stdin) : createReadStream(source, { flags: 'r', highWaterMark: READ_CHUNK_BYTES });
  } else {
    input = source;
  }
  const gate = new TextGate(maxLineLength);
  const rl = createInterface({ input: gate, crlfDelay: Infinity, terminal: false });
  let lineNo = 0;
  let held: { text: string; line: number } | null = null;
  let finished = false;
  let stopped = false;

  let resolveDone!: (stats: LineStats) => void;
  let rejectDone!: (err: unknown) => void;
  const done = new Promise<LineStats>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });

  const teardown = () => {
    rl.close();
    input.unpipe(gate);
    input.destroy();
    gate.destroy();
  };
  const fail = (err: unknown) => {
    if (finished) return;
    finished = true;
    teardown();
    rejectDone(err);
  };
  const stats = (): LineStats => ({
    lines: lineNo,
    bytes: gate.bytes,
    endedWithNewline: gate.endedWithNewline,
    stopped,
  });
  const deliver = (text: string, line: number, unfinished: boolean): boolean => {
    // Judged before the BOM goes: the gate counted it, so a cut line may be exactly limit long after.
    const tooLong = text.length > maxLineLength;
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (!tooLong && isBlank(text)) return true;
    return onLine({ line, text: tooLong ? '' : text, unfinished, tooLong }) !== false;
  };

  rl.on('line', (text: string) => {
    if (finished) return;
    lineNo += 1;
    // Held back one line: only the end of the input tells whether the last line was finished.
    const prev = held;
    held = { text, line: lineNo };
    if (!prev) return;
    let go: boolean;
    try {
      go = deliver(prev.text, prev.line, false);
    } catch (err) {
      fail(err);
      return;
    }
    if (!go) {
      finished = true;
      stopped = true;
      held = null;
      teardown();
      resolveDone(stats());
    }
  });
  rl.on('close', () => {
    if (finished) return;
    const last = held;
    held = null;
    if (last) {
      try {
        if (!deliver(last.text, last.line, !gate.endedWithNewline)) stopped = true;
      } catch (err) {
        fail(err);
        return;
      }
    }
    finished = true;
    resolveDone(stats());
  });
  // The line held back was complete (readline only emits a line once its end is seen), so an
  // I/O error after it does not take it away.
  const failReading = (err: unknown) => {
    if (finished) return;
    const last = held;
    held = null;
    if (last) {
      try {
        deliver(last.text, last.line, false);
      } catch (handlerErr) {
        fail(handlerErr);
        return;
      }
    }
    fail(describeReadError(err));
  };
  input.on('error', failReading);
  gate.on('error', (err) => fail(describeReadError(err)));
  rl.on('error', failReading);
  input.pipe(gate);

  return {
    done,
    pause: () => {
      if (!finished) rl.pause();
    },
    resume: () => {
      if (!finished) rl.resume();
    },
    stop: () => {
      if (finished) return;
      finished = true;
      stopped = true;
      teardown();
      resolveDone(stats());
    },
  };
}

function isBlank(text: string): boolean {
  // trim() only walks inwards from the ends, so a long non-blank line costs nothing here.
  return text.length === 0 || text.trim().length === 0;
}

function describeReadError(err: unknown): ReadFailure {
  // readline re-emits its input's errors, so a refusal from the gate can arrive this way too.
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

/**
 * Bytes in, text out (object mode, so readline gets strings and does not decode twice).
 * Refuses binary and non-UTF-8 input from its first bytes, notes whether the input ended with a
 * newline, and cuts lines longer than the limit to limit+1 characters (the tail is dropped
 * before it ever becomes a string), which the reader reports as tooLong.
 */
class TextGate extends Transform {
  bytes = 0;
  private prefix: Buffer[] = [];
  private prefixLength = 0;
  private sniffed = false;
  // Past the sniffed prefix, invalid bytes become U+FFFD instead of failing the whole file: the
  // line that holds them is still JSON, and a late stray byte should not cost the session.
  // StringDecoder is Node's native UTF-8 path (TextDecoder cost a tenth of the reading thread);
  // it keeps a character split across chunks whole and leaves a BOM for the reader to strip.
  private readonly decoder = new StringDecoder('utf8');
  private lastChar = '\n';
  private lineLength = 0;
  private dropping = false;

  constructor(private readonly maxLineLength: number) {
    super({ readableObjectMode: true });
  }

  get endedWithNewline(): boolean {
    return this.lastChar === '\n' || this.lastChar === '\r';
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (!this.sniffed) {
      this.prefix.push(chunk);
      this.prefixLength += chunk.length;
      if (this.prefixLength < SNIFF_BYTES) {
        callback();
        return;
      }
      const err = this.sniffPrefix();
      if (err) {
        callback(err);
        return;
      }
      return callback();
    }
    this.forward(this.text(this.decoder.write(chunk)));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (!this.sniffed) {
      const err = this.sniffPrefix();
      if (err) {
        callback(err);
        return;
      }
    }
    this.forward(this.text(this.decoder.end()));
    callback();
  }

  private sniffPrefix(): ReadFailure | null {
    this.sniffed = true;
    const all = Buffer.concat(this.prefix, this.prefixLength);
    this.prefix = [];
    // Never judged as complete: a small file that ends inside a character is a file still being
    // written, whose last line is reported truncated (as in a large file), not a non-UTF-8 file.
    const verdict = sniff(all.subarray(0, SNIFF_BYTES), false);
    if (!verdict.ok) return new ReadFailure(verdict.kind, verdict.message);
    this.forward(this.text(this.decoder.write(all)));
    return null;
  }

  private bomChecked = false;

  /** One leading BOM goes, as TextDecoder drops it: it is not part of the first line. */
  private text(decoded: string): string {
    if (this.bomChecked || decoded.length === 0) return decoded;
    this.bomChecked = true;
    return decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  }

  private forward(text: string): void {
    const n = text.length;
    if (n === 0) return;
    this.lastChar = text[n - 1]!;
    if (!this.dropping && this.lineLength + n <= this.maxLineLength) {
      // Fast path: no line in this text can exceed the limit.
      const end = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
      this.lineLength = end === -1 ? this.lineLength + n : n - end - 1;
      this.push(text);
      return;
    }
    // A lone CR ends a line for readline too, so it must end one here: counted as one line, a
    // CR-separated file would be cut mid-line and everything after the cut dropped unreported.
    let lf = -2;
    let cr = -2;
    const nextEnd = (from: number): number => {
      if (lf !== -1 && lf < from) lf = text.indexOf('\n', from);
      if (cr !== -1 && cr < from) cr = text.indexOf('\r', from);
      return lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
    };
    const out: string[] = [];
    let i = 0;
    while (i < n) {
      if (this.dropping) {
        const nl = nextEnd(i);
        if (nl === -1) break;
        // The terminator is kept: it ends the cut line for readline.
        this.dropping = false;
        this.lineLength = 0;
        out.push(text[nl]!);
        i = nl + 1;
        continue;
      }
      const nl = nextEnd(i);
      const end = nl === -1 ? n : nl;
      if (this.lineLength + (end - i) > this.maxLineLength) {
        const keep = this.maxLineLength + 1 - this.lineLength;
        out.push(text.slice(i, i + keep));
        this.dropping = true;
        i += keep;
        continue;
      }
      if (nl === -1) {
        this.lineLength += n - i;
        out.push(text.slice(i));
        break;
      }
      this.lineLength = 0;
      out.push(text.slice(i, nl + 1));
      i = nl + 1;
    }
    if (out.length > 0) this.push(out.join(''));
  }
}
