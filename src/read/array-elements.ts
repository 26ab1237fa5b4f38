// The elements of a JSON document that is one top-level array, split off as the text streams in
// (a ChatGPT export is an array of conversations, hundreds of MB for a heavy user, often on one
// line). Read whole, such a file held its text and its parsed tree at once (200 MB: 1.1 GB) and
// one past the line bound was skipped whole; split here, only the element being read is held.
// Only the structure is scanned (brackets, strings, escapes): the elements are parsed by the caller.

/** One element's text and the line it starts on, or the reason it was not kept. */
export type ArrayElement = { text: string; line: number } | { skip: string; line: number };

/** How the text ended: within the array, after its `]`, or with something more after it. */
export type ArrayEnd = 'not-array' | 'unfinished' | 'closed' | 'trailing';

const NEWLINE = 10;
const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const COMMA = 44;

const isBlank = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff;

export class ArrayElements {
  /** Before the opening `[`, inside the array, after its closing `]`. */
  private where: 'before' | 'inside' | 'after' = 'before';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private line = 1;
  /** The element being read: its pieces so far (joined once it ends), its first line, its size. */
  private pieces: string[] = [];
  private size = 0;
  private startLine = 0;
  private reading = false;
  /** The element grew past the bound: its text is let go, only its end is looked for. */
  private oversize = false;
  private trailing = false;
  /** The line of the first character found after the array's end. */
  trailingLine = 0;

  /**
   * `maxElementChars`: an element longer than this is skipped unread (`oversize` says why), or,
   * with `onOversize`, that is called instead (a thread with a small heap hands the file on).
   */
  constructor(
    private readonly maxElementChars: number,
    private readonly oversizeReason: string,
    private readonly onOversize?: (line: number) => void,
  ) {}

  /** The elements that ended within `text` (the next piece of the document), in order. */
  push(text: string): ArrayElement[] {
    const out: ArrayElement[] = [];
    if (this.trailing) return out;
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === NEWLINE) this.line += 1;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
        continue;
      }
      if (this.where !== 'inside') {
        if (isBlank(c)) continue;
        if (this.where === 'before' && c === OPEN_BRACKET) {
          this.where = 'inside';
          continue;
        }
        // Not an array after all, or more text after its end: the caller says so.
        this.trailingLine = this.line;
        this.trailing = true;
        return out;
      }
      if (this.depth === 0) {
        // Between elements: a comma or the array's end, or the first character of the next one.
        if (isBlank(c)) continue;
        if (c === COMMA || c === CLOSE_BRACKET) {
          if (this.reading) this.finish(out, text, from, i);
          if (c === CLOSE_BRACKET) this.where = 'after';
          continue;
        }
        if (!this.reading) {
          this.reading = true;
          this.startLine = this.line;
          from = i;
        }
      }
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth += 1;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) this.depth -= 1;
    }
    if (this.reading) this.keep(text, from, text.length);
    return out;
  }

  /** Lines seen so far (the last one counted even without its newline). */
  get lines(): number {
    return this.line;
  }

  /** The text has ended: the element being read (cut short) and how the document ended. */
  end(): { last: ArrayElement | null; ended: ArrayEnd } {
    if (this.trailing) return { last: null, ended: this.where === 'before' ? 'not-array' : 'trailing' };
    if (this.where === 'after') return { last: null, ended: 'closed' };
    const last = this.reading ? { skip: 'truncated: the array ends before this element does (a file still being written?)', line: this.startLine } : null;
    return { last, ended: 'unfinished' };
  }

  private keep(text: string, from: number, to: number): void {
    if (to <= from || this.oversize) return;
    this.size += to - from;
    if (this.size > this.maxElementChars) {
      if (this.onOversize) this.onOversize(this.startLine);
      this.oversize = true;
      this.pieces = [];
      return;
    }
    this.pieces.push(from === 0 && to === text.length ? text : text.slice(from, to));
  }

  private finish(out: ArrayElement[], text: string, from: number, to: number): void {
    // In this piece the element runs from where it started (or from the piece's start) to here.
    this.keep(text, from, to);
    out.push(this.oversize ? { skip: this.oversizeReason, line: this.startLine } : { text: this.pieces.join('').trimEnd(), line: this.startLine });
    this.pieces = [];
    this.size = 0;
    this.reading = false;
    this.oversize = false;
  }
}
