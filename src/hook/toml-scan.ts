// Just enough of TOML (1.0, with 1.1's escapes) to edit Codex's config.toml without a parser
// dependency: every statement (table header or key/value) with the spans of its keys and value,
// strings of all four kinds (a header-looking line inside a multi-line string is no header),
// inline tables and arrays over several lines, comments. Values other than strings and booleans
// are skipped, not checked; what it cannot follow throws, and the caller then edits nothing.

export class TomlScanError extends Error {}

interface KeyPart {
  value: string;
  start: number;
  end: number;
}

export interface Header {
  kind: 'header';
  array: boolean;
  keys: KeyPart[];
  /** The line's first character, and just past its newline. */
  start: number;
  lineEnd: number;
}

export interface KeyVal {
  kind: 'keyval';
  keys: KeyPart[];
  start: number;
  lineEnd: number;
  valueStart: number;
  valueEnd: number;
  value: ScannedValue;
}

type ScannedValue =
  | { type: 'string'; text: string }
  | { type: 'boolean'; value: boolean }
  | { type: 'inline'; members: KeyVal[] }
  | { type: 'array' }
  | { type: 'other' };

export type Statement = Header | KeyVal;

const BARE = /[A-Za-z0-9_-]/;
const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\u001b', '"': '"', '\\': '\\' };

/** C0 controls but tab, and DEL: never raw inside a TOML string or comment. */
function isControl(c: string, newlineOk: boolean): boolean {
  const code = c.charCodeAt(0);
  if (c === '\t' || (newlineOk && (c === '\n' || c === '\r'))) return false;
  return code < 0x20 || code === 0x7f;
}

export function scanToml(text: string): Statement[] {
  let i = 0;
  const fail = (what: string): never => {
    throw new TomlScanError(`line ${text.slice(0, i).split('\n').length}: ${what}`);
  };
  const skipSpaces = () => {
    while (text[i] === ' ' || text[i] === '\t') i++;
  };
  const skipComment = () => {
    if (text[i] !== '#') return;
    while (i < text.length && text[i] !== '\n') {
      if (text[i] !== '\r' && isControl(text[i]!, false)) fail('a control character in a comment');
      i++;
    }
  };
  /** Spaces, comments and newlines (inside arrays and inline tables). */
  const skipAll = () => {
    for (;;) {
      skipSpaces();
      skipComment();
      if (text[i] === '\n') i++;
      else if (text[i] === '\r' && text[i + 1] === '\n') i += 2;
      else return;
    }
  };
  const endOfLine = () => {
    skipSpaces();
    skipComment();
    if (i >= text.length) return;
    if (text[i] === '\n') i++;
    else if (text[i] === '\r' && text[i + 1] === '\n') i += 2;
    else fail(`unexpected ${JSON.stringify(text[i])}`);
  };
  const hex = (n: number): string => {
    const digits = text.slice(i, i + n);
    if (!new RegExp(`^[0-9A-Fa-f]{${n}}$`).test(digits)) fail('a bad unicode escape');
    const code = parseInt(digits, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) fail('an escape that is no Unicode scalar value');
    i += n;
    return String.fromCodePoint(code);
  };
  const escape = (): string => {
    const c = text[i++];
    if (c !== undefined && ESCAPES[c] !== undefined) return ESCAPES[c]!;
    if (c === 'u') return hex(4);
    if (c === 'U') return hex(8);
    if (c === 'x') return hex(2);
    return fail('an unknown escape');
  };
  const basic = (): string => {
    i++;
    let out = '';
    for (;;) {
      const c = text[i];
      if (c === undefined || c === '\n') fail('an unterminated string');
      i++;
      if (c === '"') return out;
      if (c === '\\') out += escape();
      else if (isControl(c!, false)) fail('a control character in a string');
      else out += c;
    }
  };
  const literal = (): string => {
    const close = text.indexOf("'", i + 1);
    const body = close < 0 ? null : text.slice(i + 1, close);
    if (body === null || body.includes('\n')) fail('an unterminated string');
    for (const c of body!) if (isControl(c, false)) fail('a control character in a string');
    i = close + 1;
    return body!;
  };
  const multiline = (quote: string): string => {
    i += 3;
    let out = '';
    for (;;) {
      if (i >= text.length) fail('an unterminated multi-line string');
      if (text.startsWith(quote.repeat(3), i)) {
        let n = 3;
        while (text[i + n] === quote) n++;
        if (n > 5) fail('too many quotes closing a multi-line string');
        out += quote.repeat(n - 3);
        i += n;
        return out;
      }
      const c = text[i++]!;
      if (quote === '"' && c === '\\') {
        if (/^[ \t]*\r?\n/.test(text.slice(i, i + 64)) || text[i] === '\n') {
          while (/[ \t\r\n]/.test(text[i] ?? '')) i++;
        } else out += escape();
      } else if (isControl(c, true)) fail('a control character in a string');
      else out += c;
    }
  };
  const key = (): KeyPart[] => {
    const parts: KeyPart[] = [];
    for (;;) {
      skipSpaces();
      const start = i;
      let value: string;
      if (text[i] === '"') value = basic();
      else if (text[i] === "'") value = literal();
      else {
        while (i < text.length && BARE.test(text[i]!)) i++;
        if (i === start) fail('a key expected');
        value = text.slice(start, i);
      }
      parts.push({ value, start, end: i });
      skipSpaces();
      if (text[i] !== '.') return parts;
      i++;
    }
  };
  /** Items between brackets, separated by commas (a trailing one allowed), over lines and comments. */
  const list = (close: string, what: string, item: () => void) => {
    i++;
    skipAll();
    while (text[i] !== close) {
      if (i >= text.length) fail(`an unterminated ${what.replace(/^an? /, '')}`);
      item();
      skipAll();
      if (text[i] === ',') {
        i++;
        skipAll();
      } else if (text[i] !== close) fail(`"," or "${close}" expected in ${what}`);
    }
    i++;
  };
  const value = (): ScannedValue => {
    const c = text[i];
    if (text.startsWith('"""', i)) return { type: 'string', text: multiline('"') };
    if (text.startsWith("'''", i)) return { type: 'string', text: multiline("'") };
    if (c === '"') return { type: 'string', text: basic() };
    if (c === "'") return { type: 'string', text: literal() };
    if (c === '{') {
      const members: KeyVal[] = [];
      list('}', 'an inline table', () => members.push(keyval()));
      return { type: 'inline', members };
    }
    if (c === '[') {
      list(']', 'an array', () => value());
      return { type: 'array' };
    }
    const start = i;
    while (i < text.length && !/[\s,\]}#]/.test(text[i]!)) i++;
    // A date and a time may be separated by a space.
    if (/^\d{4}-\d{2}-\d{2}$/.test(text.slice(start, i)) && /^ \d{2}:/.test(text.slice(i, i + 4))) {
      i++;
      while (i < text.length && !/[\s,\]}#]/.test(text[i]!)) i++;
    }
    const word = text.slice(start, i);
    if (word === '') fail('a value expected');
    if (!/^[A-Za-z0-9_+\-.:]+$/.test(word)) fail(`an unreadable value ${JSON.stringify(word.slice(0, 20))}`);
    return word === 'true' || word === 'false' ? { type: 'boolean', value: word === 'true' } : { type: 'other' };
  };
  function keyval(): KeyVal {
    const start = i;
    const keys = key();
    if (text[i] !== '=') fail('"=" expected after a key');
    i++;
    skipSpaces();
    const valueStart = i;
    const v = value();
    return { kind: 'keyval', keys, start, lineEnd: i, valueStart, valueEnd: i, value: v };
  }

  const out: Statement[] = [];
  for (;;) {
    skipAll();
    if (i >= text.length) return out;
    const start = text.lastIndexOf('\n', i - 1) + 1;
    if (text[i] === '[') {
      const array = text[i + 1] === '[';
      i += array ? 2 : 1;
      const keys = key();
      if (!text.startsWith(array ? ']]' : ']', i)) fail('"]" expected after a table name');
      i += array ? 2 : 1;
      endOfLine();
      out.push({ kind: 'header', array, keys, start, lineEnd: i });
    } else {
      const kv = keyval();
      kv.start = start;
      endOfLine();
      kv.lineEnd = i;
      out.push(kv);
    }
  }
}

/** A key as a TOML basic string: every control character and DEL escaped. */
export function tomlString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) throw new TomlScanError('a lone surrogate cannot be written in TOML');
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
