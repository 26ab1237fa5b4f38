// Pretty-printed JSON objects written one after another (an SDK's console or file exporter, Gemini
// CLI's telemetry outfile): not JSON lines, not one document. Each object opens with `{` and closes
// with `}` alone at the start of a line (how JSON.stringify(value, null, 2) and its kin print the
// outermost braces), so the text splits there without a parser, and one object is held at a time.

import { countJsonValues, MAX_RECORD_VALUES, TOO_MANY_VALUES_REASON } from './json-values.js';

/** One complete object's text and the line it starts on; or a part that could not be one. */
export type ConcatenatedPart = { text: string; line: number } | { skip: string; line: number };

/** Lines of an open object are joined this many at a time: a million short lines held as strings cost ~60 MB. */
const LINES_PER_PIECE = 1024;

export class ConcatenatedValues {
  /** The open object's text so far: joined pieces, then its latest lines. */
  private pieces: string[] = [];
  private lines: string[] = [];
  private lineCount = 0;
  private chars = 0;
  /** Arrays, objects and elements of the open object so far (read/json-values.ts). */
  private values = 0;
  private start = 0;
  /** An object grew past a cap: its lines are dropped until the next one opens. */
  private overflow = false;

  constructor(
    private readonly maxChars: number,
    private readonly maxValues = MAX_RECORD_VALUES,
  ) {}

  /** Feed one line; returns what it completed (usually nothing, or one object). */
  push(text: string, line: number): ConcatenatedPart[] {
    const out: ConcatenatedPart[] = [];
    if (text.startsWith('{')) {
      // A new object while one is open: the open one never closed.
      if (this.lineCount > 0) out.push(this.abandon('an object that never closes (its closing brace is missing)'));
      this.start = line;
      this.overflow = false;
    } else if (this.lineCount === 0 && !this.overflow) {
      return [{ skip: 'text between objects (not inside any { … })', line }];
    }
    if (this.overflow) return out;
    this.lines.push(text);
    this.lineCount += 1;
    this.chars += text.length + 1;
    this.values += countJsonValues(text, this.maxValues);
    if (this.chars > this.maxChars || this.values > this.maxValues) {
      const reason = this.chars > this.maxChars ? `an object longer than ${Math.round(this.maxChars / 2 ** 20)} MB: skipped unread` : TOO_MANY_VALUES_REASON;
      out.push(this.abandon(reason));
      this.overflow = true;
      return out;
    }
    if (text.trimEnd() === '}' || (this.lineCount === 1 && text.trimEnd().endsWith('}'))) {
      this.pieces.push(this.lines.join('\n'));
      out.push({ text: this.pieces.join('\n'), line: this.start });
      this.clear();
    } else if (this.lines.length >= LINES_PER_PIECE) {
      this.pieces.push(this.lines.join('\n'));
      this.lines = [];
    }
    return out;
  }

  /** The input ended: an object still open was cut short. */
  end(): ConcatenatedPart | null {
    if (this.lineCount === 0) return null;
    return this.abandon('truncated: the last object stops before its end (a file still being written?)');
  }

  private abandon(reason: string): ConcatenatedPart {
    const part = { skip: reason, line: this.start };
    this.clear();
    return part;
  }

  private clear(): void {
    this.pieces = [];
    this.lines = [];
    this.lineCount = 0;
    this.chars = 0;
    this.values = 0;
  }
}
