// The one sanitizer for every human output (table, markdown, github, junit, html, the `config`,
// `sweep` and `stores` tables, stderr diagnostics, and the reasons the reader records for skipped
// lines). Transcript text (ids, paths, tool names, kinds, evidence strings, excerpts), config
// values and label names are untrusted: they can carry escape sequences that retitle a terminal,
// hide lines, reorder text (bidi "trojan source") or forge CI annotations.
//
// Choice: each unsafe code point becomes a *visible* escape rather than U+FFFD, so a reader
// still sees what was there: ESC -> `\x1b`, BEL -> `\x07`, C1 CSI -> `\x9b`, RLO -> `\u202e`, a tag
// character -> `\u{e0041}`, a lone surrogate -> `\ud800`. Escaping the introducer alone is enough
// to defuse ESC/CSI/OSC sequences: the rest of the sequence is then inert printable text.
// Two different texts never print the same (the escaping is injective): a backslash is left alone
// (Windows paths stay readable) except where what follows could be read as one of our escapes or
// is a backslash itself; there it is doubled. The json format stays the lossless one.

/**
 * What cannot be seen, or acts instead of printing: controls (C0, DEL, C1), format characters
 * (bidi marks, embeddings, overrides and isolates, zero-width characters, soft hyphens, tag
 * characters), line and paragraph separators, every default-ignorable code point (Hangul fillers,
 * variation selectors, the combining grapheme joiner, …), spaces other than U+0020 (they print as
 * one) and the blank Braille pattern. Each makes two different names print alike or hides text.
 * That is `[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]` and those spaces, spelled
 * out (test/sanitize.property.test.ts checks every code point against the properties).
 */
const INVISIBLE = new RegExp(
  '^(?:[\\u0000-\\u001f\\u007f-\\u00a0\\u00ad\\u034f\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u115f\\u1160\\u1680' +
    '\\u17b4\\u17b5\\u180b-\\u180f\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f\\u2800\\u3000\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff0-\\ufffb]' +
    // U+110BD, U+110CD, U+13430-1343F, U+1BCA0-1BCA3, U+1D173-1D17A, U+E0000-E0FFF (tags)
    '|\\ud804[\\udcbd\\udccd]|\\ud80d[\\udc30-\\udc3f]|\\ud82f[\\udca0-\\udca3]|\\ud834[\\udd73-\\udd7a]|[\\udb40-\\udb43][\\udc00-\\udfff])$',
);
/**
 * Candidates, found by one coarse class that V8 scans as fast as plain text (the exact set in one
 * pattern made the JSON ledger's escaping 6x slower); INVISIBLE decides. A high surrogate comes
 * with the low one after it, if any; text without a candidate at all (ANY) is returned as it is.
 */
const COARSE = '\\u007f-\\u00ad\\u034f\\u0600-\\u08ff\\u115f\\u1160\\u1680\\u17b4-\\u180f\\u2000-\\u206f\\u2800\\u3000\\u3164\\ufe00-\\ufeff\\uffa0-\\ufffb';
// (One range of high surrogates: V8 scans a class holding a few single ones 3x slower.)
const JSON_ANY = new RegExp(`[${COARSE}\\ud804-\\udb43]`);
const JSON_CANDIDATES = new RegExp(`[${COARSE}\\ud804-\\udb43][\\udc00-\\udfff]?`, 'g');
const ANY = new RegExp(`[\\u0000-\\u001f\\\\${COARSE}\\ud800-\\udfff]`);
const CANDIDATES = new RegExp(`[\\ud800-\\udbff][\\udc00-\\udfff]?|[\\u0000-\\u001f\\\\${COARSE}\\udc00-\\udfff]`, 'g');
/** After a backslash: text that would read as one of our escapes. */
const ESCAPE_SHAPE = /x[0-9a-f]{2}|u[0-9a-f]{4}|u\{/y;

const isSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdfff;

/** Whether the character at `i` of `s` is shown as an escape: invisible, or half a surrogate pair. */
function escapedAt(s: string, i: number): boolean {
  const unit = s.charCodeAt(i);
  if (!isSurrogate(unit)) return INVISIBLE.test(s[i]!);
  const next = s.charCodeAt(i + 1);
  if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) return INVISIBLE.test(s.slice(i, i + 2));
  return true;
}

/** A backslash is doubled when what follows it could be read as an escape (or is a backslash). */
function backslashAt(s: string, i: number): string {
  if (i + 1 >= s.length) return '\\';
  if (s[i + 1] === '\\' || escapedAt(s, i + 1)) return '\\\\';
  ESCAPE_SHAPE.lastIndex = i + 1;
  return ESCAPE_SHAPE.test(s) ? '\\\\' : '\\';
}

export interface SanitizeOptions {
  /** Keep `\n` and `\t` as they are (multi-line blocks); otherwise they are escaped too, so a
   *  single-line field can never break a table row or an annotation. */
  multiline?: boolean;
  /** Cut the text to at most this many characters (plus an ellipsis) before escaping. */
  max?: number;
}

function visible(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp <= 0xff) return '\\x' + cp.toString(16).padStart(2, '0');
  if (cp <= 0xffff) return '\\u' + cp.toString(16).padStart(4, '0');
  return `\\u{${cp.toString(16)}}`;
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
  if (!ANY.test(s)) return s;
  const whole = s;
  return s.replace(CANDIDATES, (found: string, at: number) => {
    if (found === '\\') return backslashAt(whole, at);
    if (keep && (found === '\n' || found === '\t')) return found;
    // A lone surrogate (a pair is two units) cannot be printed at all.
    if (found.length === 1 && isSurrogate(found.charCodeAt(0))) return visible(found);
    return INVISIBLE.test(found) ? visible(found) : found;
  });
}

/** Re-escape, inside JSON text, what JSON.stringify leaves raw but a terminal may act on or not
 *  show (it escapes C0 and lone surrogates itself), as `\\uXXXX` (a pair of them past U+FFFF).
 *  Lossless: the document parses to the same value, since outside strings JSON is plain ASCII
 *  and they can only occur inside strings. */
export function escapeJsonText(json: string): string {
  if (!JSON_ANY.test(json)) return json;
  return json.replace(JSON_CANDIDATES, (found) => {
    if (!INVISIBLE.test(found)) return found;
    let out = '';
    for (let i = 0; i < found.length; i++) out += '\\u' + found.charCodeAt(i).toString(16).padStart(4, '0');
    return out;
  });
}
