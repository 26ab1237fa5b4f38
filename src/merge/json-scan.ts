// A JSON document read in pieces, for `merge` (issue 27.17): a shard of 256 MB parsed whole costs
// several times its size, so the top-level object's members are handed over one by one and the
// elements of the named arrays (a ledger's `inputs` and `sessions`) one at a time, each as soon as
// it is complete.
// This only finds where values begin and end (strings, escapes, brackets); each value's text is then
// given to JSON.parse, which does the real parsing (numbers, escapes, unicode) and its checking.
// Memory: the value being read, and the piece of input that holds it.

/** Where the document is not JSON: the message, and the 1-based line and 0-based byte of the place. */
export class JsonScanError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly byte: number,
    /** Something other than whitespace after the document's end (ndjson, two documents). */
    readonly trailing = false,
  ) {
    super(message);
    this.name = 'JsonScanError';
  }
}

export interface ScanHandlers {
  /** A member of the top-level object, parsed (each but the streamed arrays, whose elements `element` gets). */
  member(key: string, value: unknown): void;
  /** A streamed array begins (before its first element, if any). */
  elementsStart?(key: string): void;
  /** An element of a streamed array, parsed, in order. */
  element(value: unknown, index: number, key: string): void;
  /** A streamed array is over (after its last element, if any). */
  elementsEnd(key: string): void;
  /** The document when it is no object at all (read whole: it is nothing a ledger is). */
  other(value: unknown): void;
}

const enum S {
  Start,
  Key,
  KeyText,
  Colon,
  Value,
  MemberText,
  AfterMember,
  Element,
  ElementText,
  AfterElement,
  End,
  Whole,
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Where a number, true, false or null ends. */
const isDelimiter = (c: number) => isSpace(c) || c === 0x2c || c === 0x5d || c === 0x7d;

export class JsonScanner {
  private buf = '';
  private pos = 0;
  /** Where the value being read begins in `buf`, or -1. */
  private start = -1;
  private state = S.Start;
  private key = '';
  /** Inside a streamed array, nothing read yet: `]` may close it. */
  private first = true;
  private index = 0;
  /** Where each streamed array's count of elements is (a name given twice counts on). */
  private readonly indices = new Map<string, number>();
  private readonly streamed: ReadonlySet<string>;
  // The value being skipped.
  private depth = 0;
  private inString = false;
  private primitive = false;
  /** The string being skipped ended its piece with a backslash: the next character is escaped. */
  private escaped = false;
  // `buf` begins at this line and byte of the input.
  private lineBase = 1;
  private byteBase = 0;
  /**
   * The text so far of a value that runs on past the end of its piece (then `start` is 0 in the
   * next), and where it began. Kept as pieces, joined once at its end: adding each piece to one
   * string would copy the whole value again for every piece (a 64 MB string in 1 MB pieces: 4 s).
   */
  private held: string[] = [];
  private heldAt = { line: 1, byte: 0 };

  constructor(
    streamed: string | readonly string[],
    private readonly handlers: ScanHandlers,
  ) {
    this.streamed = new Set(typeof streamed === 'string' ? [streamed] : streamed);
  }

  feed(text: string): void {
    if (this.state === S.Whole) {
      this.held.push(text);
      return;
    }
    if (this.start >= 0) {
      // A value open at the end of the piece (skip() read it all): set aside, continued in `text`.
      if (this.held.length === 0) this.heldAt = this.placeOf(this.start);
      this.held.push(this.buf.slice(this.start));
      this.advance(this.buf.length);
      this.buf = text;
      this.start = 0;
    } else {
      this.advance(this.pos);
      this.buf = this.buf.slice(this.pos) + text;
    }
    this.pos = 0;
    this.run();
  }

  /** `buf`'s first `to` characters are read: the line and byte it begins at moved past them. */
  private advance(to: number): void {
    const gone = this.buf.slice(0, to);
    this.lineBase += countLines(gone, 0, gone.length);
    this.byteBase += Buffer.byteLength(gone);
  }

  /** The line and byte of the input at `at` in `buf`. */
  private placeOf(at: number): { line: number; byte: number } {
    return { line: this.lineBase + countLines(this.buf, 0, at), byte: this.byteBase + Buffer.byteLength(this.buf.slice(0, at)) };
  }

  /** The input is over: anything left open is a document cut short. */
  end(): void {
    if (this.state === S.Whole) {
      const text = this.held.join('');
      this.held = [];
      this.handlers.other(this.parse(text, this.heldAt));
      return;
    }
    this.run();
    if (this.state === S.End) return;
    if (this.state === S.Start) throw this.error('no JSON at all (an empty file)', this.buf.length);
    throw this.error('the file ends inside the document (cut short?)', this.buf.length);
  }

  private error(message: string, at: number, trailing = false): JsonScanError {
    const { line, byte } = this.placeOf(at);
    return new JsonScanError(message, line, byte, trailing);
  }

  /**
   * JSON.parse of one value's text, which begins at `from` in the input (a place, or an index in
   * `buf`); its error placed in the file. An index is turned into a place only on failure: counting
   * lines up to every value would read each piece again once per value in it.
   */
  private parse(text: string, from: { line: number; byte: number } | number): unknown {
    try {
      return JSON.parse(text);
    } catch (e) {
      const m = /position (\d+)/.exec((e as Error).message);
      const offset = m ? Math.min(Number(m[1]), text.length) : 0;
      const reason = (e as Error).message.replace(/ in JSON at position \d+.*$/s, '').replace(/^JSON\.parse: /, '');
      const at = typeof from === 'number' ? this.placeOf(from) : from;
      throw new JsonScanError(reason, at.line + countLines(text, 0, offset), at.byte + Buffer.byteLength(text.slice(0, offset)));
    }
  }

  /** The value read by skip(), parsed; nothing of it kept. */
  private value(text: string): unknown {
    const from = this.held.length > 0 ? this.heldAt : this.start;
    this.held = [];
    this.start = -1;
    return this.parse(text, from);
  }

  /** Whitespace skipped; the next character's code, or -1 when more input is needed. */
  private next(): number {
    const s = this.buf;
    let i = this.pos;
    while (i < s.length && isSpace(s.charCodeAt(i))) i++;
    this.pos = i;
    return i < s.length ? s.charCodeAt(i) : -1;
  }

  private begin(): void {
    this.start = this.pos;
    this.depth = 0;
    const c = this.buf.charCodeAt(this.pos);
    this.inString = c === 0x22;
    this.primitive = c !== 0x22 && c !== 0x7b && c !== 0x5b;
    if (!this.primitive) this.pos++;
    if (c === 0x7b || c === 0x5b) this.depth = 1;
  }

  /** The value begun at `start` skipped to its end: its text, or null when more input is needed. */
  private skip(): string | null {
    const s = this.buf;
    const n = s.length;
    let i = this.pos;
    if (this.primitive) {
      while (i < n && !isDelimiter(s.charCodeAt(i))) i++;
      this.pos = i;
      if (i === n) return null;
    } else {
      let depth = this.depth;
      let inString = this.inString;
      if (this.escaped && i < n) {
        this.escaped = false;
        i++;
      }
      // The next quote and backslash at or after i, found once each (-2: not looked for yet).
      let quote = -2;
      let slash = -2;
      while (i < n) {
        if (inString) {
          if (quote !== -1 && quote < i) quote = s.indexOf('"', i);
          if (slash !== -1 && slash < i) slash = s.indexOf('\\', i);
          if (slash >= 0 && (quote < 0 || slash < quote)) {
            // An escape at the end of the piece: the next piece's first character is escaped.
            if (slash + 1 >= n) {
              this.escaped = true;
              i = n;
              break;
            }
            i = slash + 2;
            continue;
          }
          if (quote < 0) {
            i = n;
            break;
          }
          i = quote + 1;
          inString = false;
          if (depth === 0) break;
          continue;
        }
        const c = s.charCodeAt(i++);
        if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          if (--depth === 0) break;
        }
      }
      this.pos = i;
      this.depth = depth;
      this.inString = inString;
      if (depth > 0 || inString) return null;
    }
    const text = s.slice(this.start, this.pos);
    if (this.held.length === 0) return text;
    this.held.push(text);
    return this.held.join('');
  }

  private endElements(): void {
    this.indices.set(this.key, this.index);
    this.handlers.elementsEnd(this.key);
  }

  private run(): void {
    for (;;) {
      switch (this.state) {
        case S.Start: {
          if (this.byteBase === 0 && this.pos === 0 && this.buf.charCodeAt(0) === 0xfeff) this.pos = 1;
          const c = this.next();
          if (c < 0) return;
          if (c === 0x7b) {
            this.pos++;
            this.state = S.Key;
            this.first = true;
          } else {
            // No object: read whole, for the caller to say what it is not.
            this.heldAt = this.placeOf(this.pos);
            this.held = [this.buf.slice(this.pos)];
            this.state = S.Whole;
            return;
          }
          break;
        }
        case S.Key: {
          const c = this.next();
          if (c < 0) return;
          if (c === 0x7d && this.first) {
            this.pos++;
            this.state = S.End;
          } else if (c === 0x22) {
            this.begin();
            this.state = S.KeyText;
          } else throw this.error(`expected a member's name, found ${shown(c)}`, this.pos);
          break;
        }
        case S.KeyText: {
          const text = this.skip();
          if (text === null) return;
          this.key = this.value(text) as string;
          this.state = S.Colon;
          break;
        }
        case S.Colon: {
          const c = this.next();
          if (c < 0) return;
          if (c !== 0x3a) throw this.error(`expected ':' after "${this.key}", found ${shown(c)}`, this.pos);
          this.pos++;
          this.state = S.Value;
          break;
        }
        case S.Value: {
          const c = this.next();
          if (c < 0) return;
          if (c === 0x5b && this.streamed.has(this.key)) {
            this.pos++;
            this.first = true;
            this.index = this.indices.get(this.key) ?? 0;
            this.state = S.Element;
            this.handlers.elementsStart?.(this.key);
          } else {
            this.begin();
            this.state = S.MemberText;
          }
          break;
        }
        case S.MemberText: {
          const text = this.skip();
          if (text === null) return;
          const value = this.value(text);
          this.handlers.member(this.key, value);
          this.state = S.AfterMember;
          break;
        }
        case S.AfterMember: {
          const c = this.next();
          if (c < 0) return;
          this.pos++;
          if (c === 0x2c) {
            this.first = false;
            this.state = S.Key;
          } else if (c === 0x7d) this.state = S.End;
          else throw this.error(`expected ',' or '}' after "${this.key}", found ${shown(c)}`, this.pos - 1);
          break;
        }
        case S.Element: {
          const c = this.next();
          if (c < 0) return;
          if (c === 0x5d && this.first) {
            this.pos++;
            this.state = S.AfterMember;
            this.endElements();
          } else {
            this.begin();
            this.state = S.ElementText;
          }
          break;
        }
        case S.ElementText: {
          const text = this.skip();
          if (text === null) return;
          const value = this.value(text);
          this.handlers.element(value, this.index++, this.key);
          this.state = S.AfterElement;
          break;
        }
        case S.AfterElement: {
          const c = this.next();
          if (c < 0) return;
          this.pos++;
          if (c === 0x2c) {
            this.first = false;
            this.state = S.Element;
          } else if (c === 0x5d) {
            this.state = S.AfterMember;
            this.endElements();
          } else throw this.error(`expected ',' or ']' after ${this.key}[${this.index - 1}], found ${shown(c)}`, this.pos - 1);
          break;
        }
        case S.End: {
          const c = this.next();
          if (c < 0) return;
          throw this.error('more after the end of the document', this.pos, true);
        }
        case S.Whole:
          return;
      }
    }
  }
}

function shown(c: number): string {
  return c === 0x27 ? `"'"` : `'${String.fromCharCode(c)}'`;
}

function countLines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = s.indexOf('\n', from); i >= 0 && i < to; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
