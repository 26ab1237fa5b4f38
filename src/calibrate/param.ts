// `--param KEY=FROM:TO:STEP`: the values a sweep tries. Values are computed on scaled integers so
// that a decimal step never drifts (0.80:0.95:0.05 is exactly 0.8, 0.85, 0.9, 0.95, not
// 0.9500000000000001 missing its last point).

import { ConfigError } from '../errors.js';
import { suggestKey } from '../config/load.js';
import { CONFIG_KEYS } from '../config/registry.js';
import type { ConfigKeySpec } from '../config/spec.js';

/** One value a sweep tries: a number, `null` (`none` for a nullable key), or an enum's word. */
export type SweepValue = number | null | string;

export interface SweepParam {
  key: string;
  /** In sweep order; `null` is `none` for a nullable key (list form only); words for an enum key. */
  values: SweepValue[];
}

/** Each point replays the whole corpus, so a typo like 0:10000:1 must not start a day-long run. */
export const MAX_PARAM_VALUES = 1000;
const MAX_GRID_POINTS = 10_000;
/** A grid of two is what a table can show; three keys at once cannot be read off it. */
const MAX_PARAMS = 2;
/** Beyond this many decimals a step is noise in the thresholds we have. */
const MAX_DECIMALS = 12;

const NUMBER_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/** Decimal places needed to write `text` exactly (`1e-3` → 3, `0.050` → 3). */
function decimalsOf(text: string): number {
  const m = NUMBER_TEXT.exec(text);
  const fraction = m?.[3]?.length ?? 0;
  const exponent = Number(m?.[4] ?? 0);
  return Math.max(0, fraction - exponent);
}

function parseNumber(text: string, where: string): number {
  const t = text.trim();
  const m = NUMBER_TEXT.exec(t);
  if (!m || ((m[2] ?? '') === '' && (m[3] ?? '') === '')) throw new ConfigError(`${where}: ${JSON.stringify(text)} is not a number`);
  const n = Number(t);
  if (!Number.isFinite(n)) throw new ConfigError(`${where}: ${JSON.stringify(text)} is not a finite number`);
  return n;
}

function isNumeric(spec: ConfigKeySpec): boolean {
  return spec.type === 'integer' || spec.type === 'number' || spec.type === 'ratio';
}

function bounds(spec: ConfigKeySpec): { min: number | undefined; max: number | undefined } {
  if (spec.type === 'ratio') return { min: Math.max(spec.min ?? 0, 0), max: Math.min(spec.max ?? 1, 1) };
  return { min: spec.min, max: spec.max };
}

/**
 * `KEY=FROM:TO:STEP` (inclusive of TO when a step lands on it), or `KEY=V1,V2,…` for uneven
 * values (`none` allowed for a nullable key). Errors name the parameter and exit 2.
 */
export function parseParam(text: string, specs: readonly ConfigKeySpec[] = CONFIG_KEYS): SweepParam {
  const where = `--param ${JSON.stringify(text)}`;
  const eq = text.indexOf('=');
  if (eq < 0) throw new ConfigError(`${where}: expected KEY=FROM:TO:STEP`);
  const rawKey = text.slice(0, eq).trim();
  const spec = specs.find((s) => s.key === rawKey);
  if (!spec) {
    const hint = suggestKey(rawKey, specs.map((s) => s.key));
    throw new ConfigError(`${where}: unknown configuration key ${JSON.stringify(rawKey)}${hint ? `; did you mean ${hint}?` : ''}`);
  }
  const body = text.slice(eq + 1).trim();
  if (spec.type === 'enum') return { key: spec.key, values: words(body, spec, where) };
  if (!isNumeric(spec)) throw new ConfigError(`${where}: ${spec.key} is a ${spec.type} setting; only numeric thresholds and enum keys can be swept`);
  const values = body.includes(':') ? range(body, spec, where) : list(body, spec, where);

  const { min, max } = bounds(spec);
  for (const v of values) {
    if (v === null) continue;
    if (spec.type === 'integer' && !Number.isInteger(v)) throw new ConfigError(`${where}: ${spec.key} takes whole numbers, not ${v}`);
    // Out-of-range points would be clamped onto the bound and repeat its row: refuse them instead.
    if (min !== undefined && v < min) throw new ConfigError(`${where}: ${v} is below ${spec.key}'s minimum ${min}`);
    if (max !== undefined && v > max) throw new ConfigError(`${where}: ${v} is above ${spec.key}'s maximum ${max}`);
  }
  return { key: spec.key, values };
}

function range(body: string, spec: ConfigKeySpec, where: string): number[] {
  const parts = body.split(':');
  if (parts.length !== 3) throw new ConfigError(`${where}: expected FROM:TO:STEP`);
  const [fromText, toText, stepText] = parts as [string, string, string];
  const from = parseNumber(fromText, where);
  const to = parseNumber(toText, where);
  const step = parseNumber(stepText, where);
  if (step <= 0) throw new ConfigError(`${where}: STEP must be greater than 0`);
  if (from > to) throw new ConfigError(`${where}: FROM (${from}) is greater than TO (${to})`);
  const decimals = Math.max(decimalsOf(fromText.trim()), decimalsOf(toText.trim()), decimalsOf(stepText.trim()));
  if (decimals > MAX_DECIMALS) throw new ConfigError(`${where}: at most ${MAX_DECIMALS} decimal places`);
  const scale = 10 ** decimals;
  const f = Math.round(from * scale);
  const t = Math.round(to * scale);
  const s = Math.round(step * scale);
  const count = Math.floor((t - f) / s) + 1;
  if (count > MAX_PARAM_VALUES) {
    throw new ConfigError(`${where}: ${count} values; at most ${MAX_PARAM_VALUES} (each value replays the whole corpus)`);
  }
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((f + s * i) / scale);
  return out;
}

function list(body: string, spec: ConfigKeySpec, where: string): (number | null)[] {
  const items = body.split(',').map((s) => s.trim());
  if (items.length === 0 || items.some((s) => s === '')) throw new ConfigError(`${where}: expected KEY=FROM:TO:STEP or KEY=V1,V2,…`);
  if (items.length > MAX_PARAM_VALUES) throw new ConfigError(`${where}: at most ${MAX_PARAM_VALUES} values`);
  const out: (number | null)[] = [];
  for (const item of items) {
    if (/^(none|null)$/i.test(item)) {
      if (!spec.nullable) throw new ConfigError(`${where}: ${spec.key} does not accept none`);
      out.push(null);
    } else out.push(parseNumber(item, where));
  }
  return out;
}

/**
 * An enum key's values, listed (`tool_batch.on_refusal=stop,steer`; `all` for every value in the
 * registry's order): a choice has no range, and each word must be one the key accepts.
 */
function words(body: string, spec: ConfigKeySpec, where: string): string[] {
  const allowed = spec.values ?? [];
  const items = /^all$/i.test(body) ? [...allowed] : body.split(',').map((s) => s.trim());
  if (items.length === 0 || items.some((s) => s === '')) throw new ConfigError(`${where}: expected ${spec.key}=${allowed.join(',')} (or all)`);
  for (const item of items) {
    if (!allowed.includes(item)) throw new ConfigError(`${where}: ${JSON.stringify(item)} is not one of ${spec.key}'s values (${allowed.join(', ')})`);
  }
  const twice = items.find((v, i) => items.indexOf(v) !== i);
  if (twice !== undefined) throw new ConfigError(`${where}: ${twice} is given twice`);
  return items;
}

/** Every `--param` of one sweep: at most two, on different keys, and a grid of bounded size. */
export function parseParams(texts: readonly string[], specs: readonly ConfigKeySpec[] = CONFIG_KEYS): SweepParam[] {
  if (texts.length === 0) throw new ConfigError('sweep needs at least one --param KEY=FROM:TO:STEP');
  if (texts.length > MAX_PARAMS) throw new ConfigError(`at most ${MAX_PARAMS} --param (a grid of two); got ${texts.length}`);
  const params = texts.map((t) => parseParam(t, specs));
  const [a, b] = params;
  if (a && b && a.key === b.key) throw new ConfigError(`--param ${a.key} is given twice`);
  const points = params.reduce((n, p) => n * p.values.length, 1);
  if (points > MAX_GRID_POINTS) throw new ConfigError(`the grid has ${points} points; at most ${MAX_GRID_POINTS}`);
  return params;
}

/** Grid points in order: the first parameter varies slowest. */
export function gridPoints(params: readonly SweepParam[]): Record<string, SweepValue>[] {
  let points: Record<string, SweepValue>[] = [{}];
  for (const p of params) points = points.flatMap((pt) => p.values.map((v) => ({ ...pt, [p.key]: v })));
  return params.length === 0 ? [] : points;
}
