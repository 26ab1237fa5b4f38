// JSON.stringify(value, null, 2), byte for byte, in pieces: the top `splitDepth` levels of objects and
// arrays are walked here and everything deeper is stringified whole. With the ledger's shape
// (report > sessions > session > entries > entry) a depth of 4 keeps the largest piece one entry,
// however many entries there are. Pieces are gathered into chunks of about CHUNK_CHARS.

const INDENT = '  ';
const CHUNK_CHARS = 64 * 1024;

function omitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/** An iterator (a generator of elements) is written as the array it stands for. */
function isStream(v: unknown): v is Iterable<unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}

function walkable(v: unknown, splitDepth: number): v is object {
  return splitDepth > 0 && v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** `value` stringified whole at nesting `indent`. */
function leaf(value: unknown, indent: string): string {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  // Inside JSON text a raw newline is only ever layout (string newlines are escaped as \n).
  return indent === '' ? text : text.replace(/\n/g, '\n' + indent);
}

class Pieces {
  private parts: string[] = [];
  length = 0;
  push(s: string): void {
    this.parts.push(s);
    this.length += s.length;
  }
  take(): string {
    const s = this.parts.join('');
    this.parts = [];
    this.length = 0;
    return s;
  }
}

/** Values (by identity) written by a generator of their own: `(indent) => JSON text in chunks`. */
export type Splices = ReadonlyMap<unknown, (indent: string) => Iterable<string>>;

function* walk(value: object, splitDepth: number, indent: string, out: Pieces, splices: Splices): Generator<string> {
  const inner = indent + INDENT;
  // A child is written in place when it is a leaf (no generator per entry), walked otherwise.
  function* child(v: unknown): Generator<string> {
    const splice = splices.get(v);
    if (splice !== undefined) {
      if (out.length > 0) yield out.take();
      yield* splice(inner);
    } else if (walkable(v, splitDepth - 1)) yield* walk(v, splitDepth - 1, inner, out, splices);
    else out.push(leaf(v, inner));
    if (out.length >= CHUNK_CHARS) yield out.take();
  }
  if (Array.isArray(value) || isStream(value)) {
    // Arrays, and iterators standing for arrays (made one element at a time, never held).
    let first = true;
    for (const v of value as Iterable<unknown>) {
      out.push((first ? '[\n' : ',\n') + inner);
      first = false;
      if (omitted(v)) out.push('null');
      else if (walkable(v, splitDepth - 1) || splices.has(v)) yield* child(v);
      else {
        out.push(leaf(v, inner));
        if (out.length >= CHUNK_CHARS) yield out.take();
      }
    }
    out.push(first ? '[]' : '\n' + indent + ']');
    return;
  }
  const record = value as Record<string, unknown>;
  let first = true;
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (omitted(v)) continue;
    out.push((first ? '{\n' : ',\n') + inner + JSON.stringify(key) + ': ');
    first = false;
    yield* child(v);
  }
  out.push(first ? '{}' : '\n' + indent + '}');
}

/** `value` as pretty JSON, in chunks. `value` must be plain JSON data; values in `splices` (within
 *  the walked levels) are written by their own generators, e.g. an array too long to hold. */
export function* jsonChunks(value: unknown, splitDepth = 4, splices: Splices = new Map(), indent = ''): Generator<string> {
  if (!walkable(value, splitDepth)) {
    yield leaf(value, indent);
    return;
  }
  const out = new Pieces();
  yield* walk(value, splitDepth, indent, out, splices);
  if (out.length > 0) yield out.take();
}
