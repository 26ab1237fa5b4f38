// Oracle: src/detect/text/normalize.ts as it was on main at fbc8a1f (before the text-speed work), imports
// repointed and two exports nobody here imports made local, otherwise verbatim. test/detect/fast-path.property.test.ts checks the fast path against it.

// Markdown-aware normalization: raw text in, one lowercase, whitespace-collapsed stream out, with
// the seed's structural exclusion list (fenced code, tables, lists, headings, quotes, thematic
// breaks) dropped line by line, so repetition inside them forms no blocks, n-grams, connector
// runs or compression evidence. Streaming: the verdict must not depend on how text is chunked,
// so lines are classified whole, and an over-long line is cut at fixed offsets from its start.
//
// A line is a table row only inside a table (SPEC "What real sessions showed"): after a delimiter
// row (`|---|---|`, which also makes the line before it the header), or as one of two or more
// consecutive pipe-edged rows (`| a | b |`) of the same column count. So a line that could open
// a table is held until the next line decides; a sentence quoting a shell pipeline
// (`npm ls | grep react | sort -u`) is prose, visible to the detectors like any other sentence.

import { ArrayPool } from '../../../../src/detect/text/pool.js';

export interface NormalizedSink {
  /** Normalized text: lowercase ASCII, single spaces, no leading space after a boundary. */
  text(piece: string): void;
  /**
   * The same piece as UTF-16 codes in `buf[from, to)`, valid only during the call. A sink that
   * has this is given codes instead of `text`: its consumers read codes anyway, and building a
   * string per line (lowering and collapsing by regex) cost more than all of them.
   */
  codes?(buf: Uint16Array, from: number, to: number): void;
  /** A segment (round, block) ended: a hard sentence break. */
  boundary(): void;
  /**
   * Raw characters of a line (its newline included) or an over-long line's slice, kept or
   * dropped, reported when it is classified and before any of its text: so at every point of
   * the normalized stream the raw count is the same however the input was chunked.
   */
  raw?(chars: number): void;
  /** A line of structure was dropped (issue 54: no connector run spans it). */
  dropped?(): void;
}

/**
 * An unfinished line is classified and committed once it reaches this many characters, so one
 * newline-free megabyte cannot sit unanalyzed in memory. 1024 is long past any markdown marker.
 */
const LINE_SLICE = 1024;

type LineClass = 'keep' | 'drop';

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const SETEXT_UNDERLINE = /^ {0,3}=+[ \t]*$/;
const QUOTE = /^ {0,3}>/;
// Three or more of the same marker with optional spaces and nothing else: "---", "* * *", "___".
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
// A bullet ("-", "*", "+", "•") or an ordered label ("1.", "2)", "a)", "B.") followed by content.
const LIST_ITEM = /^[ \t]*(?:[-*+•]|\d{1,9}[.)]|[A-Za-z][.)])[ \t]+\S/;
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/;
/** Box Drawing and Block Elements (U+2500–U+259F): a line made only of them is a divider. */
const BOX_FIRST = 0x2500;
const BOX_LAST = 0x259f;

/**
 * Whether a line is excluded structure, tables aside (a table row depends on its neighbours: see
 * MarkdownNormalizer). An all-caps sentence is prose.
 */
function classifyLine(line: string): LineClass {
  // Most lines open with a word: after spaces and tabs an ASCII letter not followed by '.' or ')'
  // can start no heading, quote, break, underline or list item (each needs its marker there).
  // Six anchored regex calls per prose line were most of a line.
  let i = 0;
  let c = line.charCodeAt(0);
  while (c === 32 || c === 9) c = line.charCodeAt(++i);
  if (((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) && line.charCodeAt(i + 1) !== 46 && line.charCodeAt(i + 1) !== 41) {
    return 'keep';
  }
  if (c >= BOX_FIRST && c <= BOX_LAST && (isBoxLine(line, i) || isTreeRow(line, i))) return 'drop';
  if (HEADING.test(line) || QUOTE.test(line) || THEMATIC_BREAK.test(line) || SETEXT_UNDERLINE.test(line)) {
    return 'drop';
  }
  if (LIST_ITEM.test(line)) return 'drop';
  return 'keep';
}

/**
 * A directory tree's or a diagram's row: two or more box-drawing characters (spaces between) before
 * its text ("├── src/", "│   └── a.ts", "╭─── build ───╮"); structure, like a list item (issue 54).
 * A panel's "│ text" (one bar) stays prose.
 */
function isTreeRow(line: string, from: number): boolean {
  let boxes = 0;
  for (let i = from; i < line.length && boxes < 2; i++) {
    const c = line.charCodeAt(i);
    if (c === 32 || c === 9 || c === 160) continue;
    if (c < BOX_FIRST || c > BOX_LAST) return false;
    boxes += 1;
  }
  return boxes >= 2;
}

/** Only box-drawing or block characters and spaces from `from` on ("╭─╭─…", "━━━", "▀▀▀"). */
function isBoxLine(line: string, from: number): boolean {
  for (let i = from; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 32 || c === 9 || c === 13) continue;
    if (c < BOX_FIRST || c > BOX_LAST) return false;
  }
  return true;
}

/** How a line with pipes could take part in a table. */
interface RowShape {
  /** Cells, counting the text between unescaped pipes (outer pipes open and close, not cells). */
  cols: number;
  /** The line starts or ends with a pipe: `| a | b |` (rows without a delimiter must be edged). */
  edged: boolean;
  /** A delimiter row: `|---|:--:|`. */
  delimiter: boolean;
}

/** The line's table shape, or null when it holds no unescaped pipe. */
function rowShape(line: string): RowShape | null {
  let pipes = 0;
  for (let at = line.indexOf('|'); at >= 0; at = line.indexOf('|', at + 1)) {
    if (at === 0 || line.charCodeAt(at - 1) !== 92) pipes++;
  }
  if (pipes === 0) return null;
  const t = line.trim();
  const leads = t.charCodeAt(0) === 124;
  const trails = t.length > 1 && t.charCodeAt(t.length - 1) === 124 && t.charCodeAt(t.length - 2) !== 92;
  return {
    cols: pipes + 1 - (leads ? 1 : 0) - (trails ? 1 : 0),
    edged: leads || trails,
    delimiter: TABLE_DELIMITER.test(line),
  };
}

interface Fence {
  ch: string;
  len: number;
}

export class MarkdownNormalizer {
  // Fields are public plain data: a snapshot is a copy of them.
  /** The unfinished raw line. */
  pending = '';
  /** Class of the current line once part of it was committed (over-long line), else null. */
  lineClass: LineClass | null = null;
  fence: Fence | null = null;
  /** A line that may open a table, held until the next line says whether it does. */
  held: string | null = null;
  /** The held line's raw characters, newline included. */
  heldRaw = 0;
  heldCols = 0;
  heldEdged = false;
  /** Inside a table: lines with pipes are its rows until a line without one. */
  inTable = false;
  /** A space is owed before the next non-space output (collapses runs and line breaks). */
  owedSpace = false;
  /** Something was emitted since the last boundary (no leading space after a boundary). */
  emitted = false;
  /** Scratch for `codes` sinks; #private so snapshots (a spread of the fields) skip it. */
  #scratch: Uint16Array;
  readonly #pool: ArrayPool;

  constructor(pool = new ArrayPool()) {
    this.#pool = pool;
    this.#scratch = pool.uint16(256);
  }

  /** Hand the scratch to the pool; this normalizer is not used again. */
  release(): void {
    this.#pool.give(this.#scratch);
  }

  push(raw: string, sink: NormalizedSink): void {
    let start = 0;
    for (;;) {
      const nl = raw.indexOf('\n', start);
      if (nl < 0) break;
      this.pending += raw.slice(start, nl);
      this.endLine(sink);
      start = nl + 1;
    }
    if (start < raw.length) {
      this.pending += raw.slice(start);
      while (this.pending.length >= LINE_SLICE) {
        const head = this.pending.slice(0, LINE_SLICE);
        this.pending = this.pending.slice(LINE_SLICE);
        this.commitPiece(head, sink);
      }
    }
  }

  /** End of a segment: the pending line is complete and an unclosed fence or table closes with it. */
  boundary(sink: NormalizedSink): void {
    if (this.pending.length > 0 || this.lineClass !== null) this.endLine(sink, false);
    // A lone row at the end is a sentence with pipes in it.
    this.flushHeld(sink);
    this.inTable = false;
    this.fence = null;
    this.owedSpace = false;
    this.emitted = false;
    sink.boundary();
  }

  reset(): void {
    this.pending = '';
    this.lineClass = null;
    this.fence = null;
    this.held = null;
    this.heldRaw = 0;
    this.heldCols = 0;
    this.heldEdged = false;
    this.inTable = false;
    this.owedSpace = false;
    this.emitted = false;
  }

  /** Part of a line that is still open (cut at LINE_SLICE): decided from its start, never held. */
  private commitPiece(piece: string, sink: NormalizedSink): void {
    // Not whole, so never 'hold'.
    if (this.lineClass === null) this.lineClass = this.decide(piece, false, sink) as LineClass;
    sink.raw?.(piece.length);
    if (this.lineClass === 'keep') this.emit(piece, sink);
    else sink.dropped?.();
  }

  /** The pending line is complete; `newline`: it ended with one (not at a segment's end). */
  private endLine(sink: NormalizedSink, newline = true): void {
    const line = this.pending;
    this.pending = '';
    const cls = this.lineClass ?? this.decide(line, true, sink);
    this.lineClass = null;
    if (cls === 'hold') {
      this.heldRaw = line.length + (newline ? 1 : 0);
      return;
    }
    sink.raw?.(line.length + (newline ? 1 : 0));
    if (cls === 'drop') sink.dropped?.();
    if (cls === 'keep') this.emit(line, sink);
    // A line break is whitespace: it separates words but is not a sentence end by itself.
    this.owedSpace = this.emitted;
  }

  /**
   * Classify a line from its start, tracking fences (their lines and contents are dropped) and
   * tables. A whole line that could open a table is held ('hold'); the line that follows decides,
   * and a held line that turns out to be prose is emitted before it, so order is kept.
   */
  private decide(line: string, whole: boolean, sink: NormalizedSink): LineClass | 'hold' {
    if (this.fence) {
      const t = line.replace(/^ {0,3}/, '');
      const run = /^(`+|~+)[ \t]*$/.exec(t);
      if (run && run[1]![0] === this.fence.ch && run[1]!.length >= this.fence.len) this.fence = null;
      return 'drop';
    }
    // A fence opens with ` or ~ after at most three spaces: skip the regex for any other start.
    let i = 0;
    while (i < 3 && line.charCodeAt(i) === 32) i++;
    const first = line.charCodeAt(i);
    const open = first === 96 || first === 126 || first === 32 ? FENCE_OPEN.exec(line) : null;
    if (open) {
      this.endTable(sink);
      this.fence = { ch: open[1]![0]!, len: open[1]!.length };
      return 'drop';
    }
    if (classifyLine(line) === 'drop') {
      this.endTable(sink);
      return 'drop';
    }
    const shape = line.indexOf('|') < 0 ? null : rowShape(line);
    if (shape === null) {
      this.endTable(sink);
      return 'keep';
    }
    if (shape.delimiter) {
      // The held line was the header.
      this.dropHeld(sink);
      this.inTable = true;
      return 'drop';
    }
    if (this.inTable) return 'drop';
    if (this.held !== null && this.heldEdged && shape.edged && this.heldCols === shape.cols) {
      this.dropHeld(sink);
      this.inTable = true;
      return 'drop';
    }
    this.flushHeld(sink);
    // An over-long line is decided from its start: it cannot wait for the next line.
    if (!whole) return 'keep';
    this.held = line;
    this.heldCols = shape.cols;
    this.heldEdged = shape.edged;
    return 'hold';
  }

  /** A line that is no table row: the table (if any) ends and a held line was prose. */
  private endTable(sink: NormalizedSink): void {
    this.inTable = false;
    this.flushHeld(sink);
  }

  private flushHeld(sink: NormalizedSink): void {
    const line = this.held;
    if (line === null) return;
    this.held = null;
    sink.raw?.(this.heldRaw);
    this.emit(line, sink);
    this.owedSpace = this.emitted;
  }

  private dropHeld(sink: NormalizedSink): void {
    if (this.held === null) return;
    this.held = null;
    sink.raw?.(this.heldRaw);
    sink.dropped?.();
  }

  private emit(text: string, sink: NormalizedSink): void {
    if (text.length === 0) return;
    if (sink.codes) {
      this.emitCodes(text, sink);
      return;
    }
    // ASCII-only lowering: context-free, so a chunk boundary can never change the result.
    const lower = HAS_UPPER.test(text) ? text.replace(UPPER_RUN, (x) => x.toLowerCase()) : text;
    const collapsed = lower.replace(SPACE_RUN, ' ');
    const leadingSpace = collapsed.charCodeAt(0) === 32;
    const trailingSpace = collapsed.charCodeAt(collapsed.length - 1) === 32;
    const body = collapsed.slice(leadingSpace ? 1 : 0, trailingSpace ? collapsed.length - 1 : collapsed.length);
    if (body.length === 0) {
      if (this.emitted) this.owedSpace = true;
      return;
    }
    const out = (this.owedSpace || leadingSpace) && this.emitted ? ' ' + body : body;
    this.owedSpace = trailingSpace;
    this.emitted = true;
    sink.text(out);
  }

  /** `emit` as one pass over the codes: the same lowering, collapsing and trimming. */
  private emitCodes(text: string, sink: NormalizedSink): void {
    const n = text.length;
    let buf = this.#scratch;
    if (buf.length < n + 1) {
      let size = buf.length * 2;
      while (size < n + 1) size *= 2;
      this.#pool.give(buf);
      buf = this.#scratch = this.#pool.uint16(size);
    }
    // Slot 0 is left for the separating space, so the body is never moved.
    let k = 1;
    let leadingSpace = false;
    let pendingSpace = false;
    let content = false;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (isSpace(c)) {
        if (!content) leadingSpace = true;
        pendingSpace = true;
      } else {
        if (pendingSpace && content) buf[k++] = 32;
        pendingSpace = false;
        content = true;
        buf[k++] = c >= 65 && c <= 90 ? c + 32 : c;
      }
    }
    if (!content) {
      if (this.emitted) this.owedSpace = true;
      return;
    }
    const from = (this.owedSpace || leadingSpace) && this.emitted ? 0 : 1;
    buf[0] = 32;
    this.owedSpace = pendingSpace;
    this.emitted = true;
    sink.codes!(buf, from, k);
  }
}

/** The characters SPACE_RUN matches (\s plus the listed no-break, zero-width and ideographic spaces). */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

const HAS_UPPER = /[A-Z]/;
const UPPER_RUN = /[A-Z]+/g;
/** Whitespace runs, including no-break and ideographic spaces and the Unicode line separators. */
const SPACE_RUN = /[\s\u00a0\u2000-\u200b\u2028\u2029\u3000]+/g;
