// One configuration value checked against its key's spec: the single set of rules for every value,
// whether it comes from `--config` (JSON), `--set` and the dedicated flags (text), or a program
// handing the library a flat configuration. A wrong type or a value outside the documented range
// is a ConfigError (exit 2) naming the key, the value's origin and the range (SPEC: never a silent
// clamp); an unknown enum value degrades to the key's fallback with a warning where it has one.

import { ConfigError } from '../errors.js';
import type { ConfigKeySpec, ConfigSource, ConfigValue } from './spec.js';

/** Where a raw value came from, for messages: `--set`, `--scope`, or the config file's name. */
export interface ValueOrigin {
  label: string;
  source: ConfigSource;
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);
const NONE_WORDS = new Set(['none', 'null']);
/** Decimal or exponent notation only: `Number()` would also take hex, `''` and whitespace. */
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function describe(spec: ConfigKeySpec): string {
  switch (spec.type) {
    case 'integer':
      return 'a whole number';
    case 'number':
      return 'a number';
    case 'ratio':
      return 'a ratio between 0 and 1';
    case 'boolean':
      return 'true or false';
    case 'string':
      return 'a string';
    case 'list':
      return 'a comma-separated list or a JSON array of strings';
    case 'enum':
      return `one of ${(spec.values ?? []).join(', ')}`;
  }
}

function wrongType(spec: ConfigKeySpec, shown: string, origin: ValueOrigin): ConfigError {
  const none = spec.nullable ? ' (or none)' : '';
  return new ConfigError(`${origin.label} ${spec.key}=${shown}: expected ${describe(spec)}${none}`);
}

/**
 * Parse a command-line value (`--set`, a dedicated flag) for one key, then sanitize it. Exported
 * so that the sweep parses its values exactly as `--set` would.
 */
export function parseConfigValue(
  spec: ConfigKeySpec,
  text: string,
  origin: ValueOrigin = { label: '--set', source: 'set' },
  warnings: string[] = [],
): ConfigValue {
  const trimmed = text.trim();
  const shown = JSON.stringify(text);
  if (spec.nullable && NONE_WORDS.has(trimmed.toLowerCase())) return null;
  switch (spec.type) {
    case 'integer':
    case 'number':
    case 'ratio': {
      if (!NUMBER_TEXT.test(trimmed)) throw wrongType(spec, shown, origin);
      return sanitizeNumber(spec, Number(trimmed), shown, origin, warnings);
    }
    case 'boolean': {
      const w = trimmed.toLowerCase();
      if (TRUE_WORDS.has(w)) return true;
      if (FALSE_WORDS.has(w)) return false;
      throw wrongType(spec, shown, origin);
    }
    case 'string':
      return text;
    case 'list': {
      if (trimmed.startsWith('[')) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(trimmed);
        } catch {
          throw wrongType(spec, shown, origin);
        }
        return listFrom(spec, parsed, shown, origin);
      }
      return splitList(trimmed);
    }
    case 'enum':
      return sanitizeEnum(spec, trimmed, shown, origin, warnings);
  }
}

/**
 * A native value (from the JSON file, or a program's flat configuration), or a string read the way
 * `--set` reads it. An already checked value comes back unchanged.
 */
export function checkConfigValue(spec: ConfigKeySpec, raw: unknown, origin: ValueOrigin, warnings: string[]): ConfigValue {
  if (typeof raw === 'string' && spec.type !== 'string' && spec.type !== 'enum') {
    return parseConfigValue(spec, raw, origin, warnings);
  }
  const shown = shortJson(raw);
  if (raw === null) {
    if (spec.nullable) return null;
    throw wrongType(spec, shown, origin);
  }
  switch (spec.type) {
    case 'integer':
    case 'number':
    case 'ratio':
      if (typeof raw !== 'number' || !Number.isFinite(raw)) throw wrongType(spec, shown, origin);
      return sanitizeNumber(spec, raw, shown, origin, warnings);
    case 'boolean':
      if (typeof raw !== 'boolean') throw wrongType(spec, shown, origin);
      return raw;
    case 'string':
      if (typeof raw !== 'string') throw wrongType(spec, shown, origin);
      return raw;
    case 'list':
      return listFrom(spec, raw, shown, origin);
    case 'enum':
      if (typeof raw !== 'string') throw wrongType(spec, shown, origin);
      if (spec.nullable && NONE_WORDS.has(raw.trim().toLowerCase())) return null;
      return sanitizeEnum(spec, raw.trim(), shown, origin, warnings);
  }
}

function shortJson(raw: unknown): string {
  const s = JSON.stringify(raw) ?? String(raw);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function listFrom(spec: ConfigKeySpec, raw: unknown, shown: string, origin: ValueOrigin): string[] {
  if (!Array.isArray(raw) || !raw.every((x) => typeof x === 'string')) throw wrongType(spec, shown, origin);
  return raw.map((s: string) => s.trim()).filter((s) => s !== '');
}

function sanitizeNumber(spec: ConfigKeySpec, n: number, shown: string, origin: ValueOrigin, _warnings: string[]): number {
  if (!Number.isFinite(n)) throw wrongType(spec, shown, origin);
  if (spec.type === 'integer' && !Number.isInteger(n)) throw wrongType(spec, shown, origin);
  // A ratio outside 0..1 is meaningless whatever the spec says.
  const min = spec.type === 'ratio' ? Math.max(spec.min ?? 0, 0) : spec.min;
  const max = spec.type === 'ratio' ? Math.min(spec.max ?? 1, 1) : spec.max;
  // SPEC (Bad input): out of range is a usage error naming key and range, never a silent clamp: a
  // calibration run on a clamped value would measure something other than what was asked.
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
    const none = spec.nullable ? ' (or none)' : '';
    throw new ConfigError(`${origin.label} ${spec.key}=${n} is out of range: ${spec.key} takes ${describeRange(spec, min, max)}${none}`);
  }
  return n;
}

/** `a whole number from 0 to 100`, `a ratio from 0 to 1`, `a number of at least 1`. */
function describeRange(spec: ConfigKeySpec, min: number | undefined, max: number | undefined): string {
  const what = describe(spec).replace(/ between 0 and 1$/, '');
  if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
  if (min !== undefined) return `${what} of at least ${min}`;
  return `${what} of at most ${max}`;
}

function sanitizeEnum(spec: ConfigKeySpec, text: string, shown: string, origin: ValueOrigin, warnings: string[]): string {
  const allowed = spec.values ?? [];
  // The seed spells modes Off/Telemetry/Enforce; the canonical spelling is the registered one.
  const match = allowed.find((v) => v.toLowerCase() === text.toLowerCase());
  if (match !== undefined) return match;
  if (spec.fallback !== undefined) {
    warnings.push(`${origin.label} ${spec.key}=${shown} is not one of ${allowed.join(', ')}; using ${spec.fallback}`);
    return spec.fallback;
  }
  throw wrongType(spec, shown, origin);
}
