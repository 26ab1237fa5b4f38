// Oracle: src/detect/text/tokens.ts as it was on main at fbc8a1f (before the text-speed work), imports
// repointed and two exports nobody here imports made local, otherwise verbatim. test/detect/fast-path.property.test.ts checks the fast path against it.

// Words out of the normalized stream. A word's identity is its core (letters and digits), so
// "actually," and "actually." are the same unit; punctuation only marks sentence ends and
// counter labels ("a)", "3.").

import { FNV_OFFSET, FNV_PRIME, fnvStep } from '../../../../src/detect/text/hash.js';

const COUNTER_NONE = 0;
const COUNTER_NUMBER = 1;
export const COUNTER_LETTER = 2;

/** Numbers longer than this are identifiers or amounts, not counters (years still fit). */
const MAX_COUNTER_DIGITS = 4;

export interface Word {
  /** FNV-1a of the core characters. */
  hash: number;
  /** Absolute offsets in the normalized stream: [start, end). */
  start: number;
  end: number;
  /** First word of a sentence (after . ! ? or a segment boundary). */
  sentenceStart: boolean;
  /** The core holds a digit: a numeric data slot (counts, sizes, times, ids). */
  hasDigit: boolean;
  counterKind: number;
  counterValue: number;
}

export type WordSink = (w: Word) => void;

export class WordTokenizer {
  /** Normalized characters consumed so far (absolute offset of the next one). */
  pos = 0;
  inToken = false;
  start = 0;
  hash = FNV_OFFSET;
  coreLen = 0;
  /** Core so far is digits only, with no punctuation between them. */
  digitsOnly = true;
  hasDigit = false;
  value = 0;
  /** Punctuation seen after some core character (a later core char makes it inner). */
  punctAfterCore = false;
  innerPunct = false;
  /** Closer right after a one-letter core: "a)", "b.", "c:". */
  letterCloser = false;
  terminal = false;
  sentenceStart = true;

  /** One reusable record: consumers copy what they keep. */
  private readonly word: Word = {
    hash: 0,
    start: 0,
    end: 0,
    sentenceStart: false,
    hasDigit: false,
    counterKind: 0,
    counterValue: 0,
  };

  push(piece: string, sink: WordSink): void {
    const codes = new Uint16Array(piece.length);
    for (let i = 0; i < piece.length; i++) codes[i] = piece.charCodeAt(i);
    this.pushCodes(codes, 0, codes.length, sink);
  }

  /**
   * `push` of codes in `buf[from, to)`. The token state lives in locals through the loop and is
   * written back only around a finished word: field traffic per character was most of its cost.
   */
  pushCodes(buf: Uint16Array, from: number, to: number, sink: WordSink): void {
    let pos = this.pos;
    let inToken = this.inToken;
    // Int32 inside the loop (a uint32 above 2^31 would make the loop's hash a double).
    let hash = this.hash | 0;
    let coreLen = this.coreLen;
    let digitsOnly = this.digitsOnly;
    let hasDigit = this.hasDigit;
    let value = this.value;
    let punctAfterCore = this.punctAfterCore;
    let innerPunct = this.innerPunct;
    let letterCloser = this.letterCloser;
    let terminal = this.terminal;
    let start = this.start;
    let sentenceStart = this.sentenceStart;
    for (let i = from; i < to; i++) {
      const c = buf[i]!;
      if (c === 32) {
        if (inToken) {
          // `finish`, on the locals.
          inToken = false;
          if (coreLen > 0) {
            const w = this.word;
            w.hash = hash >>> 0;
            w.start = start;
            w.end = pos;
            w.sentenceStart = sentenceStart;
            w.hasDigit = hasDigit;
            w.counterKind = COUNTER_NONE;
            w.counterValue = 0;
            if (!innerPunct) {
              if (digitsOnly && coreLen <= MAX_COUNTER_DIGITS) {
                w.counterKind = COUNTER_NUMBER;
                w.counterValue = value;
              } else if (coreLen === 1 && letterCloser) {
                w.counterKind = COUNTER_LETTER;
                w.counterValue = letterValue(hash >>> 0);
              }
            }
            sentenceStart = false;
            sink(w);
          }
          if (terminal) sentenceStart = true;
        }
      } else {
        if (!inToken) {
          inToken = true;
          start = pos;
          hash = FNV_OFFSET | 0;
          coreLen = 0;
          digitsOnly = true;
          hasDigit = false;
          value = 0;
          punctAfterCore = false;
          innerPunct = false;
          letterCloser = false;
          terminal = false;
        }
        if ((c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c >= 0xc0) {
          if (punctAfterCore) innerPunct = true;
          punctAfterCore = false;
          hash = Math.imul(hash ^ c, FNV_PRIME);
          coreLen++;
          if (c <= 57) {
            hasDigit = true;
            if (coreLen <= MAX_COUNTER_DIGITS) value = value * 10 + (c - 48);
          } else {
            digitsOnly = false;
          }
          terminal = false;
        } else {
          if (coreLen > 0) {
            punctAfterCore = true;
            if (coreLen === 1 && !innerPunct && (c === 41 || c === 46 || c === 58)) letterCloser = true;
          }
          if (c === 46 || c === 33 || c === 63) terminal = true;
        }
      }
      pos++;
    }
    this.pos = pos;
    this.inToken = inToken;
    this.hash = hash >>> 0;
    this.coreLen = coreLen;
    this.digitsOnly = digitsOnly;
    this.hasDigit = hasDigit;
    this.value = value;
    this.punctAfterCore = punctAfterCore;
    this.innerPunct = innerPunct;
    this.letterCloser = letterCloser;
    this.terminal = terminal;
    this.start = start;
    this.sentenceStart = sentenceStart;
  }

  /** Segment end: the open word completes and the next word starts a sentence. */
  /** Issue 54: the open word completes where structure was dropped after it. */
  endWord(sink: WordSink): void {
    if (this.inToken) this.finish(sink);
  }

  boundary(sink: WordSink): void {
    if (this.inToken) this.finish(sink);
    this.sentenceStart = true;
  }

  private finish(sink: WordSink): void {
    this.inToken = false;
    const terminal = this.terminal;
    if (this.coreLen > 0) {
      const w = this.word;
      w.hash = this.hash;
      w.start = this.start;
      w.end = this.pos;
      w.sentenceStart = this.sentenceStart;
      w.hasDigit = this.hasDigit;
      w.counterKind = COUNTER_NONE;
      w.counterValue = 0;
      if (!this.innerPunct) {
        if (this.digitsOnly && this.coreLen <= MAX_COUNTER_DIGITS) {
          w.counterKind = COUNTER_NUMBER;
          w.counterValue = this.value;
        } else if (this.coreLen === 1 && this.letterCloser) {
          w.counterKind = COUNTER_LETTER;
          w.counterValue = letterValue(this.hash);
        }
      }
      this.sentenceStart = false;
      sink(w);
    }
    if (terminal) this.sentenceStart = true;
  }
}

/** Position of a single ASCII letter in the alphabet from its one-character FNV hash. */
const LETTER_BY_HASH: ReadonlyMap<number, number> = new Map(
  Array.from({ length: 26 }, (_, i) => [fnvStep(FNV_OFFSET, 97 + i), i + 1] as [number, number]),
);

function letterValue(h: number): number {
  return LETTER_BY_HASH.get(h) ?? -1000;
}
