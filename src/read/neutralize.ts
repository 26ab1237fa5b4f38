// Text that came out of an input file (keys, JSON error snippets, adapter messages) on its way to
// a terminal: control characters and so every escape sequence are made visible, never obeyed.

/**
 * The format characters every human output neutralizes besides the C0/C1 controls: the Unicode
 * line/paragraph separators, the bidirectional marks, embeddings, overrides and isolates that can
 * make a line read differently from what it says ("trojan source"), and the zero-width characters
 * (U+200B–U+200D, U+2060–U+2064, U+FEFF) that hide text or make two different names look equal.
 * One list, shared by every sanitizer (the report's, the diagnostics', the config and sweep tables').
 */
export const INVISIBLE_FORMAT_CHARS = '\\u061c\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';

// C0 controls, DEL, C1 controls (U+009B is a one-character CSI) and the format characters above.
const UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${INVISIBLE_FORMAT_CHARS}]`, 'g');

/** `text` safe to print on one line, cut to at most `max` characters (plus an ellipsis). */
export function neutralize(text: string, max = Infinity): string {
  let cut = text;
  if (text.length > max) {
    // Never split a surrogate pair: half a character would print as garbage.
    const end = max > 0 && /[\ud800-\udbff]/.test(text[max - 1]!) ? max - 1 : max;
    cut = `${text.slice(0, end)}…`;
  }
  return cut.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
