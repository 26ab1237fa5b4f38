// A JSON document held line by line until its end, for the files whose first line does not parse
// on its own (a pretty-printed export): compact, bounded by V8's string limit.

import { constants } from 'node:buffer';
import type { Line } from '../../read/lines.js';

const { MAX_STRING_LENGTH } = constants;

/**
 * The lines of a JSON document read so far, held compactly: texts joined in blocks (a string per
 * line would cost tens of bytes of overhead each, a gigabyte for a few million short lines) and
 * line numbers in a typed array. Lines never contain a newline, so a block splits back exactly.
 */
export class DocumentBuffer {
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
