// Plain-JSON encoding of detector state: typed arrays and maps become tagged plain values so a
// snapshot survives JSON.stringify/parse and restores to the exact same state.

type Tagged =
  | { $ta: 'i32' | 'u32' | 'f64' | 'u8' | 'u16'; v: number[] }
  | { $map: [unknown, unknown][] };

export function encodeState(v: unknown): unknown {
  if (v instanceof Int32Array) return { $ta: 'i32', v: Array.from(v) };
  if (v instanceof Uint32Array) return { $ta: 'u32', v: Array.from(v) };
  // JSON has no NaN (it writes null): empty slots are NaN, so they travel as null and come back.
  if (v instanceof Float64Array) return { $ta: 'f64', v: Array.from(v, (x) => (Number.isNaN(x) ? null : x)) };
  if (v instanceof Uint8Array) return { $ta: 'u8', v: Array.from(v) };
  if (v instanceof Uint16Array) return { $ta: 'u16', v: Array.from(v) };
  if (v instanceof Map) return { $map: Array.from(v.entries(), ([k, x]) => [encodeState(k), encodeState(x)]) };
  if (Array.isArray(v)) return v.map(encodeState);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = encodeState(x);
    return out;
  }
  return v;
}

export function decodeState(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decodeState);
  if (v !== null && typeof v === 'object') {
    const t = v as Partial<Tagged> & Record<string, unknown>;
    if ('$ta' in t && Array.isArray(t.v)) {
      switch (t.$ta) {
        case 'i32':
          return Int32Array.from(t.v);
        case 'u32':
          return Uint32Array.from(t.v);
        case 'f64':
          return Float64Array.from(t.v as (number | null)[], (x) => (x === null ? Number.NaN : x));
        case 'u8':
          return Uint8Array.from(t.v);
        case 'u16':
          return Uint16Array.from(t.v);
      }
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
