// Words out of the normalized stream. A word's identity is its core (letters and digits), so
// "actually," and "actually." are the same unit; punctuation only marks sentence ends and
// counter labels ("a)", "3.").

import { FNV_OFFSET, fnvStep } from './hash.js';

export const COUNTER_NONE = 0;
export const COUNTER_NUMBER = 1;
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

function isCore(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c >= 0xc0;
}

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
    for (let i = 0; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      if (c === 32) {
        if (this.inToken) this.finish(sink);
      } else {
        if (!this.inToken) this.begin();
        if (isCore(c)) {
          if (this.punctAfterCore) this.innerPunct = true;
          this.punctAfterCore = false;
          this.hash = fnvStep(this.hash, c);
          this.coreLen++;
          if (c >= 48 && c <= 57) {
            this.hasDigit = true;
            if (this.coreLen <= MAX_COUNTER_DIGITS) this.value = this.value * 10 + (c - 48);
          } else {
            this.digitsOnly = false;
          }
          this.terminal = false;
        } else {
          if (this.coreLen > 0) {
            this.punctAfterCore = true;
            if (this.coreLen === 1 && !this.innerPunct && (c === 41 || c === 46 || c === 58)) this.letterCloser = true;
          }
          if (c === 46 || c === 33 || c === 63) this.terminal = true;
        }
      }
      this.pos++;
    }
  }

  /** Segment end: the open word completes and the next word starts a sentence. */
  boundary(sink: WordSink): void {
    if (this.inToken) this.finish(sink);
    this.sentenceStart = true;
  }

  private begin(): void {
    this.inToken = true;
    this.start = this.pos;
    this.hash = FNV_OFFSET;
    this.coreLen = 0;
    this.digitsOnly = true;
    this.hasDigit = false;
    this.value = 0;
    this.punctAfterCore = false;
    this.innerPunct = false;
    this.letterCloser = false;
    this.terminal = false;
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
