// Transcript text (ids, paths, tool names, kinds, evidence strings, excerpts) is untrusted: a
// recorded session can carry escape sequences that retitle a terminal, hide lines, reorder text
// (bidi "trojan source") or forge CI annotations. Every human format passes such text through
// here before it is printed.
//
// Choice: each unsafe code point becomes a *visible* escape rather than U+FFFD, so a reader
// still sees what was there: ESC -> `\x1b`, BEL -> `\x07`, C1 CSI -> `\x9b`, RLO -> `\u202e`.
// Escaping the introducer alone is enough to defuse ESC/CSI/OSC sequences: the rest of the
// sequence is then inert printable text (`\x1b]0;title\x07`). Lone surrogates cannot be encoded
// as UTF-8 and become U+FFFD. Backslashes are left alone so Windows paths stay readable; the
// escapes are for eyes, not for round-tripping (the json format is the lossless one).

import { INVISIBLE_FORMAT_CHARS } from '../read/neutralize.js';

/** C0, DEL, C1, the bidi and zero-width characters, the line/paragraph separators, lone surrogates. */
const UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${INVISIBLE_FORMAT_CHARS}]|[\\ud800-\\udfff]`, 'gu');

export interface SanitizeOptions {
  /** Keep `\n` and `\t` as they are (multi-line blocks); otherwise they are escaped too, so a
   *  single-line field can never break a table row or an annotation. */
  multiline?: boolean;
}

function visible(ch: string): string {
  const cp = ch.codePointAt(0)!;
  // With the `u` flag a surrogate only matches when unpaired.
  if (cp >= 0xd800 && cp <= 0xdfff) return '\ufffd';
  if (cp <= 0xff) return '\\x' + cp.toString(16).padStart(2, '0');
  return '\\u' + cp.toString(16).padStart(4, '0');
}

export function sanitize(text: unknown, options: SanitizeOptions = {}): string {
  const s = typeof text === 'string' ? text : String(text ?? '');
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

/** Alias kept for callers that read better with it (the CLI's stderr diagnostics). */
export const sanitizeText = sanitize;
