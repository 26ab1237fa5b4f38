// OTLP/JSON's value encodings, decoded once: AnyValue (`stringValue`, `intValue` as a string or a
// number, `kvlistValue`…), trace and span ids in hex, base64 or `0x…`, and the time stamps of every
// container (nanosecond strings, JS SDK `[s, ns]` pairs, ISO strings, Jaeger microseconds).

import { isRec, type Rec } from '../shared/text.js';
import { setOwn } from '../../own-key.js';

/** One OTLP AnyValue as a plain value (objects for kvlists, arrays for arrays); a bare value passes. */
export function anyValue(value: unknown, depth = 0): unknown {
  if (!isRec(value) || depth > 32) return value;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return typeof value.intValue === 'string' ? Number(value.intValue) : value.intValue;
  if ('doubleValue' in value) return typeof value.doubleValue === 'string' ? Number(value.doubleValue) : value.doubleValue;
  if ('arrayValue' in value) {
    const values = isRec(value.arrayValue) ? value.arrayValue.values : null;
    return Array.isArray(values) ? values.map((v) => anyValue(v, depth + 1)) : [];
  }
  if ('kvlistValue' in value) {
    const values = isRec(value.kvlistValue) ? value.kvlistValue.values : null;
    return Array.isArray(values) ? keyValues(values, depth + 1) : {};
  }
  if ('bytesValue' in value) return value.bytesValue;
  // `{}` is an empty AnyValue (a null attribute as the JS exporter writes it).
  return Object.keys(value).length === 0 ? null : value;
}

/** Characters of the string values the last keyValues() call stored: what the held-record bound counts. */
export let keyValuesChars = 0;

/**
 * A list of `{key, value}` pairs (OTLP attributes, Jaeger tags with `type`/`value`) as one object,
 * or a plain attribute map (SDK objects, Python dumps) as it is. A plain object keeps V8's fast
 * properties (a prototype-less one is a slow dictionary, and this runs for every record); a key
 * `__proto__` from a file is defined as an own property, so it never reaches the prototype.
 */
export function keyValues(list: unknown, depth = 0): Rec {
  const out: Rec = {};
  let chars = 0;
  const put = (key: string, value: unknown) => {
    chars += key.length + textChars(value);
    setOwn(out, key, value);
  };
  if (Array.isArray(list)) {
    for (const kv of list) {
      if (!isRec(kv) || typeof kv.key !== 'string') continue;
      put(kv.key, 'type' in kv && !isRec(kv.value) ? jaegerTag(kv) : anyValue(kv.value, depth));
    }
  } else if (isRec(list)) {
    for (const [k, v] of Object.entries(list)) put(k, v);
  }
  keyValuesChars = chars;
  return out;
}

/**
 * Characters of text in `value`, nested arrays and objects (an `arrayValue`, a `kvlistValue`)
 * included, keys too: counted only at the top, 800 spans of nested strings were held to 942 MB
 * with no notice (issue 53, item 13). A walk with its own stack: a parsed value may nest deeply.
 */
function textChars(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 0;
  let chars = 0;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      for (const item of v) {
        if (typeof item === 'string') chars += item.length;
        else if (typeof item === 'object' && item !== null) stack.push(item);
      }
      continue;
    }
    for (const [k, item] of Object.entries(v)) {
      chars += k.length;
      if (typeof item === 'string') chars += item.length;
      else if (typeof item === 'object' && item !== null) stack.push(item);
    }
  }
  return chars;
}

function jaegerTag(tag: Rec): unknown {
  if (tag.type === 'int64' || tag.type === 'float64') return typeof tag.value === 'string' ? Number(tag.value) : tag.value;
  if (tag.type === 'bool') return tag.value === true || tag.value === 'true';
  return tag.value;
}

const HEX = /^[0-9a-f]+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * A trace id (32 hex digits) or span id (16), lowercase, from hex, `0x…` (Python dumps) or base64
 * (protobuf MessageToJson); null for anything else and for the all-zero invalid id.
 */
export function otelId(value: unknown, digits: 16 | 32): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return null;
  let hex = value.startsWith('0x') ? value.slice(2).toLowerCase() : value.toLowerCase();
  if (!(hex.length === digits && HEX.test(hex))) {
    const bytes = digits / 2;
    const base64Length = Math.ceil(bytes / 3) * 4;
    // Python writes ids as hex numbers without leading zeros, Jaeger 64-bit trace ids in 16 digits.
    if (HEX.test(hex) && hex.length < digits && (value.startsWith('0x') || value.length !== base64Length)) hex = hex.padStart(digits, '0');
    else if (value.length === base64Length && BASE64.test(value)) hex = Buffer.from(value, 'base64').toString('hex');
    else return null;
    if (hex.length !== digits) return null;
  }
  return /^0+$/.test(hex) ? null : hex;
}

/** Milliseconds since the epoch from nanoseconds (a decimal string or a number); NaN when absent or zero. */
export function fromNanos(value: unknown): number {
  if (typeof value === 'string' && /^\d{1,25}$/.test(value)) {
    // Split, so that nanoseconds past 2^53 keep their milliseconds.
    const n = value.length > 6 ? Number(value.slice(0, -6)) + Number(value.slice(-6)) / 1e6 : Number(value) / 1e6;
    return n > 0 ? n : NaN;
  }
  if (typeof value === 'number' && value > 0) return value / 1e6;
  return NaN;
}

/** Milliseconds from any time a container writes: `[s, ns]`, an ISO string, or nanoseconds. */
export function anyTime(value: unknown): number {
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number') {
    return value[0] * 1000 + value[1] / 1e6;
  }
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\d[T ]/.test(value)) {
    const t = Date.parse(value);
    return Number.isFinite(t) ? t : NaN;
  }
  return fromNanos(value);
}

/** A string attribute that also accepts numbers (ids written as integers). */
export function str(value: unknown): string | null {
  if (typeof value === 'string') return value.length > 0 ? value : null;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** A count written as a number or, by the JS exporter, as a string; null otherwise. */
export function num(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(value.trim())) return Number(value);
  return null;
}

/** A flag written as a boolean or as `"true"`/`"false"` (any case); null otherwise. */
export function bool(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (v === 'true') return true;
    if (v === 'false') return false;
  }
  return null;
}

/** A value that may arrive as JSON text (arguments, message lists): parsed when it parses, else as is. */
export function jsonish(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const t = value.trimStart();
  if (!(t.startsWith('{') || t.startsWith('[') || t.startsWith('"'))) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
