// Reading a detector's keys out of the flat configuration, with the sanitizing pass: a value out
// of its declared range (a ratio above 1, a negative window) is clamped with a warning, a value of
// the wrong type falls back to the default with a warning. Misconfiguration never fails a run.

import type { ConfigKeySpec, ConfigValue } from '../../config/spec.js';

export interface ReadResult<T> {
  config: T;
  warnings: string[];
}

/** One key: coerced, clamped, never throwing. */
function readKey(spec: ConfigKeySpec, raw: unknown, warnings: string[]): ConfigValue {
  if (raw === undefined) return spec.default;
  if (raw === null || raw === 'none') {
    if (spec.nullable) return null;
    warnings.push(`${spec.key}: none is not allowed; using ${String(spec.default)}`);
    return spec.default;
  }
  if (spec.type === 'integer' || spec.type === 'number' || spec.type === 'ratio') {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
    if (!Number.isFinite(n)) {
      warnings.push(`${spec.key}: ${JSON.stringify(raw)} is not a number; using ${String(spec.default)}`);
      return spec.default;
    }
    let v = spec.type === 'integer' ? Math.round(n) : n;
    let lo = spec.min ?? -Infinity;
    let hi = spec.max ?? Infinity;
    if (spec.type === 'ratio') {
      lo = Math.max(lo, 0);
      hi = Math.min(hi, 1);
    }
    if (v < lo || v > hi) {
      const c = Math.min(hi, Math.max(lo, v));
      warnings.push(`${spec.key}: ${n} is outside ${lo}..${hi}; clamped to ${c}`);
      v = c;
    }
    return v;
  }
  if (spec.type === 'boolean') {
    if (typeof raw === 'boolean') return raw;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    warnings.push(`${spec.key}: ${JSON.stringify(raw)} is not a boolean; using ${String(spec.default)}`);
    return spec.default;
  }
  return raw as ConfigValue;
}

/**
 * Build a typed config from `fields` (config field → key spec) and flat values (dotted keys).
 * Values may come from a file, `--set` strings, or a partial object in tests.
 */
export function readFields<T>(
  fields: Readonly<Record<keyof T & string, ConfigKeySpec>>,
  values: Readonly<Record<string, unknown>>,
): ReadResult<T> {
  const warnings: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [field, spec] of Object.entries(fields) as [string, ConfigKeySpec][]) {
    out[field] = readKey(spec, values[spec.key], warnings);
  }
  return { config: out as T, warnings };
}

/** Clamp an already typed config through the same pass (direct construction in tests, tiers). */
export function sanitizeFields<T>(
  fields: Readonly<Record<keyof T & string, ConfigKeySpec>>,
  config: Partial<T>,
): ReadResult<T> {
  const values: Record<string, unknown> = {};
  for (const [field, spec] of Object.entries(fields) as [string, ConfigKeySpec][]) {
    values[spec.key] = (config as Record<string, unknown>)[field];
  }
  return readFields(fields, values);
}
