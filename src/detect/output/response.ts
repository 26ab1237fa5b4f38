// `repeated_response` (SPEC 0.2): text-only responses of one turn, identical after normalization,
// N in a row (default three), whatever their length. Exact blocks need four copies of eight words
// or more, so a plan re-sent three times or a short status line said over and over ("I'm doing
// well, thanks for asking." ×3) went unseen; a whole response repeated is the plainest loop there
// is. Normalization is the detectors' word identity: letters and digits, ASCII lowercased, so case,
// spacing and punctuation do not tell two responses apart. Structure is not excluded here: a
// response that is the same table or code block every time is repeated all the same.

import type { Round } from '../../model/transcript.js';
import { clip, finding } from '../text/finding.js';
import type { Finding, Measurement } from '../types.js';
import type { OutputConfig } from './config.js';

/** The third identical response is as sure as a verbatim block at its minimum count. */
const BASE_CONFIDENCE = 0.9;
/** Each further identical response adds this much, capped below certainty. */
const PER_EXTRA = 0.02;
const MAX_CONFIDENCE = 0.99;

/** Word cores of `text` (letters and digits, ASCII lowercased), joined by single spaces. */
export function responseKey(text: string): string {
  const words: string[] = [];
  for (const token of text.split(/\s+/)) {
    // Most words are their own core; the others are cut down by two passes over the token, not a
    // string grown a character at a time (a rope, which made a 50 MB response cost gigabytes).
    const core = PLAIN_CORE.test(token) ? token : token.replace(NOT_CORE, '').replace(ASCII_UPPER, (u) => u.toLowerCase());
    if (core.length > 0) words.push(core);
  }
  return words.join(' ');
}

/** A token that is already a word core: ASCII lowercase letters and digits only. */
const PLAIN_CORE = /^[0-9a-z]+$/;
/** What a core drops: all but ASCII letters and digits and every code unit from U+00C0 up. */
const NOT_CORE = /[^0-9A-Za-z\u00c0-\uffff]+/g;
const ASCII_UPPER = /[A-Z]+/g;

/**
 * The most of one round's text the output detector reads: its windows and the response key grow
 * with the text, and a 50 MB response cost 72 s and 1 GB (issue 53, item 11). The rest of a
 * longer text is not analysed; a repeat is still judged on its whole length (below). Far
 * above any real response: a model's longest visible output is a few hundred KB.
 */
export const MAX_ANALYSED_CHARS = 4 * 1024 * 1024;

/** `round.text` up to MAX_ANALYSED_CHARS. */
export function analysedText(text: string): string {
  return text.length > MAX_ANALYSED_CHARS ? text.slice(0, MAX_ANALYSED_CHARS) : text;
}

export class RepeatedResponses {
  private last = '';
  private streak = 0;

  constructor(private readonly config: Pick<OutputConfig, 'repeatedResponseMin'>) {}

  /** Plain JSON state: the last response's key and the streak it ends. */
  snapshot(): { last: string; streak: number } {
    return { last: this.last, streak: this.streak };
  }

  restore(state: unknown): void {
    const o = (state ?? {}) as { last?: unknown; streak?: unknown };
    this.last = typeof o.last === 'string' ? o.last : '';
    this.streak = typeof o.streak === 'number' && Number.isInteger(o.streak) && o.streak >= 0 ? o.streak : 0;
  }

  /** The finding for this round, if it completes or extends a streak of identical responses. */
  observe(round: Round): { finding: Finding | null; measurement: Measurement | null } {
    // A text past what is analysed is keyed by its analysed part and its whole length.
    const analysed = analysedText(round.text);
    const key = round.calls.length !== 0 ? '' : analysed === round.text ? responseKey(analysed) : `${responseKey(analysed)} ${round.text.length}`;
    if (key === '') {
      // A round with tool calls, or with no words, is not a text-only response: the run ends.
      this.last = '';
      this.streak = 0;
      return { finding: null, measurement: null };
    }
    this.streak = key === this.last ? this.streak + 1 : 1;
    this.last = key;
    const min = this.config.repeatedResponseMin;
    const measurement: Measurement = {
      detector: 'output',
      kind: 'repeated_response',
      statistic: 'repeats',
      value: this.streak,
      threshold: min,
      direction: 'above',
    };
    if (this.streak < min) return { finding: null, measurement };
    const f = finding(
      'output',
      'repeated_response',
      Math.min(MAX_CONFIDENCE, BASE_CONFIDENCE + PER_EXTRA * (this.streak - min)),
      { repeats: this.streak, response_words: key.split(' ').length, response_chars: round.text.length },
      [measurement],
      [clip(key)],
    );
    // The whole response is the repetition.
    f.dominant = true;
    return { finding: f, measurement };
  }
}
