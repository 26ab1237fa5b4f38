// Text that came out of an input file (keys, JSON error snippets, adapter messages) on its way to
// a terminal: control characters and so every escape sequence are made visible, never obeyed.

// C0 controls, DEL, C1 controls (U+009B is a one-character CSI), line/paragraph separators and
// the bidirectional overrides that can make a message read differently from what it says.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

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
