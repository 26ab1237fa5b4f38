// The one sanitizer for every human output (table, markdown, github, junit, html, the `config`,
// `sweep` and `stores` tables, stderr diagnostics, and the reasons the reader records for skipped
// lines). Transcript text (ids, paths, tool names, kinds, evidence strings, excerpts), config
// values and label names are untrusted: they can carry escape sequences that retitle a terminal,
// hide lines, reorder text (bidi "trojan source") or forge CI annotations.
//
// Choice: each unsafe code point becomes a *visible* escape rather than U+FFFD, so a reader
// still sees what was there: ESC -> `\x1b`, BEL -> `\x07`, C1 CSI -> `\x9b`, RLO -> `\u202e`.
// Escaping the introducer alone is enough to defuse ESC/CSI/OSC sequences: the rest of the
// sequence is then inert printable text (`\x1b]0;title\x07`). Lone surrogates cannot be encoded
// as UTF-8 and become U+FFFD. Backslashes are left alone so Windows paths stay readable; the
// escapes are for eyes, not for round-tripping (the json format is the lossless one).

/**
 * The format characters neutralized besides the C0/C1 controls: the Unicode line/paragraph
 * separators, the bidirectional marks, embeddings, overrides and isolates that can make a line
 * read differently from what it says, and the zero-width characters (U+200B–U+200D,
 * U+2060–U+2064, U+FEFF) that hide text or make two different names look equal.
 */
const INVISIBLE_FORMAT_CHARS = '\\u061c\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';

/** C0 (tab and newline included), DEL, C1 (U+009B is a one-character CSI), the format characters above, lone surrogates. */
const UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${INVISIBLE_FORMAT_CHARS}]|[\\ud800-\\udfff]`, 'gu');

export interface SanitizeOptions {
  /** Keep `\n` and `\t` as they are (multi-line blocks); otherwise they are escaped too, so a
   *  single-line field can never break a table row or an annotation. */
  multiline?: boolean;
  /** Cut the text to at most this many characters (plus an ellipsis) before escaping. */
  max?: number;
}

function visible(ch: string): string {
  const cp = ch.codePointAt(0)!;
  // With the `u` flag a surrogate only matches when unpaired.
  if (cp >= 0xd800 && cp <= 0xdfff) return '\ufffd';
  if (cp <= 0xff) return '\\x' + cp.toString(16).padStart(2, '0');
  return '\\u' + cp.toString(16).padStart(4, '0');
}

export function sanitize(text: unknown, options: SanitizeOptions = {}): string {
  let s = typeof text === 'string' ? text : String(text ?? '');
  const max = options.max;
  if (max !== undefined && s.length > max) {
    // Never split a surrogate pair: half a character would print as garbage.
    const end = max > 0 && /[\ud800-\udbff]/.test(s[max - 1]!) ? max - 1 : max;
    s = `${s.slice(0, end)}…`;
  }
  const keep = options.multiline === true;
  return s.replace(UNSAFE, (ch) => (keep && (ch === '\n' || ch === '\t') ? ch : visible(ch)));
}

/** Characters that JSON.stringify leaves raw but a terminal may still act on. */
const JSON_UNSAFE = new RegExp(`[\\u007f-\\u009f${INVISIBLE_FORMAT_CHARS}]`, 'g');

/** Re-escape such characters as `\uXXXX` inside JSON text. Lossless: the document parses to the
 *  same value, since outside strings JSON is plain ASCII and they can only occur inside strings. */
export function escapeJsonText(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'));
}
