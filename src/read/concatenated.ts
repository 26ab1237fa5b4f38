// Pretty-printed JSON objects written one after another (an SDK's console or file exporter, Gemini
// CLI's telemetry outfile): not JSON lines, not one document. Each object opens with `{` and closes
// with `}` alone at the start of a line (how JSON.stringify(value, null, 2) and its kin print the
// outermost braces), so the text splits there without a parser, and one object is held at a time.

/** One complete object's text and the line it starts on; or a part that could not be one. */
export type ConcatenatedPart = { text: string; line: number } | { skip: string; line: number };

export class ConcatenatedValues {
  private lines: string[] = [];
  private chars = 0;
  private start = 0;
  /** An object grew past the cap: its lines are dropped until the next one opens. */
  private overflow = false;

  constructor(private readonly maxChars: number) {}

  /** Feed one line; returns what it completed (usually nothing, or one object). */
  push(text: string, line: number): ConcatenatedPart[] {
    const out: ConcatenatedPart[] = [];
    if (text.startsWith('{')) {
      // A new object while one is open: the open one never closed.
      if (this.lines.length > 0) out.push(this.abandon('an object that never closes (its closing brace is missing)'));
      this.start = line;
      this.overflow = false;
    } else if (this.lines.length === 0 && !this.overflow) {
      return [{ skip: 'text between objects (not inside any { … })', line }];
    }
    if (this.overflow) return out;
    this.lines.push(text);
    this.chars += text.length + 1;
    if (this.chars > this.maxChars) {
      this.lines = [];
      this.chars = 0;
      this.overflow = true;
      out.push({ skip: `an object longer than ${Math.round(this.maxChars / 2 ** 20)} MB: skipped unread`, line: this.start });
      return out;
    }
    if (text.trimEnd() === '}' || (this.lines.length === 1 && text.trimEnd().endsWith('}'))) {
      out.push({ text: this.lines.join('\n'), line: this.start });
      this.lines = [];
      this.chars = 0;
    }
    return out;
  }

  /** The input ended: an object still open was cut short. */
  end(): ConcatenatedPart | null {
    if (this.lines.length === 0) return null;
    return this.abandon('truncated: the last object stops before its end (a file still being written?)');
  }

  private abandon(reason: string): ConcatenatedPart {
    const part = { skip: reason, line: this.start };
    this.lines = [];
    this.chars = 0;
    return part;
  }
}
