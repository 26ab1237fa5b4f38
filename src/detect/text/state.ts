// Plain-JSON encoding of detector state: typed arrays and maps become tagged plain values so a
// snapshot survives JSON.stringify/parse and restores to the exact same state.

type TypedKind = 'i32' | 'u32' | 'f64' | 'u8' | 'u16';

type Tagged =
  | { $ta: TypedKind; v?: (number | null)[]; b64?: string }
  | { $map: [unknown, unknown][] };

const CONSTRUCTORS = {
  i32: Int32Array,
  u32: Uint32Array,
  f64: Float64Array,
  u8: Uint8Array,
  u16: Uint16Array,
} as const;

/**
 * Typed arrays travel as base64 of their bytes: windows of hashes and positions run to hundreds
 * of thousands of elements, and the live hook saves and loads them on every call, where a JSON
 * array of numbers cost ten times as long to write and read back. (Bytes keep NaN slots exact.)
 */
function typed(kind: TypedKind, v: ArrayBufferView): Tagged {
  return { $ta: kind, b64: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
}

export function encodeState(v: unknown): unknown {
  if (v instanceof Int32Array) return typed('i32', v);
  if (v instanceof Uint32Array) return typed('u32', v);
  if (v instanceof Float64Array) return typed('f64', v);
  if (v instanceof Uint8Array) return typed('u8', v);
  if (v instanceof Uint16Array) return typed('u16', v);
  if (v instanceof Map) return { $map: Array.from(v.entries(), ([k, x]) => [encodeState(k), encodeState(x)]) };
  if (Array.isArray(v)) return v.map(encodeState);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = encodeState(x);
    return out;
  }
  return v;
}

function decodeTyped(kind: TypedKind, t: { v?: (number | null)[]; b64?: string }): unknown {
  const Ctor = CONSTRUCTORS[kind];
  if (typeof t.b64 === 'string') {
    const bytes = Buffer.from(t.b64, 'base64');
    // A fresh, aligned buffer: the decoded bytes may sit at any offset of a pooled one.
    const copy = new Uint8Array(bytes.byteLength);
    copy.set(bytes);
    return new Ctor(copy.buffer, 0, Math.floor(copy.byteLength / Ctor.BYTES_PER_ELEMENT));
  }
  // The earlier encoding: plain numbers, NaN written as null.
  const values = (t.v ?? []).map((x) => (x === null ? Number.NaN : x));
  return Ctor.from(values);
}

function decodeState(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decodeState);
  if (v !== null && typeof v === 'object') {
    const t = v as Partial<Tagged> & Record<string, unknown>;
    if ('$ta' in t && typeof t.$ta === 'string' && t.$ta in CONSTRUCTORS && (Array.isArray(t.v) || typeof t.b64 === 'string')) {
      return decodeTyped(t.$ta as TypedKind, t as { v?: (number | null)[]; b64?: string });
    }
    if ('$map' in t && Array.isArray(t.$map)) {
      return new Map((t.$map as [unknown, unknown][]).map(([k, x]) => [decodeState(k), decodeState(x)]));
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(t)) out[k] = decodeState(x);
    return out;
  }
  return v;
}

/** Copy every own data field of `from` (decoded) onto `target`: restores a component in place. */
export function assignState<T extends object>(target: T, saved: unknown): T {
  return Object.assign(target, decodeState(saved) as Partial<T>);
}
