// The effective configuration: defaults, then `--config FILE`, then `--set KEY=VALUE` and the
// dedicated flags. Unknown keys and values of the wrong type are errors (exit 2) because a typo
// that silently keeps a default would make a calibration run measure the wrong thing; so are values
// outside a key's documented range (SPEC: a usage error naming the key and the range). Cross-key
// repairs (the seed's sanitizing pass) stay warnings.

import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { ConfigError } from '../errors.js';
import { CONFIG_KEYS, type Config } from './registry.js';
import { ResolvedConfig } from './resolved.js';
import type { ConfigKeySpec, ConfigSource, ConfigValue, ConfigValues } from './spec.js';
import { checkConfigValue, parseConfigValue, type ValueOrigin } from './value.js';
import { readSideFile, SideFileTooLarge } from '../side-file.js';
import { isRecord as isPlainObject } from '../is-record.js';

/** A configuration is a few KB: past this, a wrong path. */
const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

export { parseConfigValue } from './value.js';

export interface LoadConfigOptions {
  /** `--config FILE` (JSON). */
  file?: string;
  /** The file's JSON object already in hand (`config --write` checks what it is about to write); `file` names it. */
  fileObject?: Record<string, unknown>;
  /** Every `--set KEY=VALUE`, in command-line order (a later one wins). */
  sets?: readonly string[];
  /** What dedicated flags (`--scope`, `--profile`, …) set: parsed like `--set`, applied after it. */
  overrides?: Readonly<Record<string, string>>;
  /** Defaults to every registered key. */
  specs?: readonly ConfigKeySpec[];
}

export interface LoadedConfig {
  /** Every key of `specs`, defaults filled in. */
  values: ConfigValues;
  sources: Record<string, ConfigSource>;
  /** Enum fallbacks, cross-key repairs, keys given twice: for stderr, never fatal. */
  warnings: string[];
  /** The specs the values were checked against, so `loopledger config` can print defaults and reasons. */
  specs: readonly ConfigKeySpec[];
  /** The values parsed into each section's typed, frozen settings (absent for a caller's own `specs`). */
  config?: Readonly<Config>;
  /** The same with the values, for the run to pass down (and scale per tier) without parsing again. */
  resolved?: ResolvedConfig;
}

/** Over the registered keys, the configuration comes back parsed. */
export interface LoadedRunConfig extends LoadedConfig {
  config: Readonly<Config>;
  resolved: ResolvedConfig;
}

/** Where a run found its configuration file: `--config`, `LOOPLEDGER_CONFIG`, a file found, or none. */
export interface ConfigFileChoice {
  file: string | undefined;
  /** How it was chosen, for `loopledger config`: `--config`, `LOOPLEDGER_CONFIG`, `found`, `--no-config`, `none`. */
  how: '--config' | 'LOOPLEDGER_CONFIG' | 'found' | '--no-config' | 'none';
}

/** A searched place as `loopledger config` names it: `./loopledger.json`, `~/.config/…`, else whole. */
export function shownConfigPath(path: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const home = env['HOME'] || homedir();
  // The nearer of the two folders names it (a home inside the working folder, or the reverse).
  const bases: [string, string][] = [
    [cwd, '.'],
    [home, '~'],
  ];
  const base = bases.filter(([b]) => b !== '' && path.startsWith(b + sep)).sort((a, b) => b[0].length - a[0].length)[0];
  return base === undefined ? path : `${base[1]}${sep}${path.slice(base[0].length + 1)}`;
}

/** The places searched without `--config`, in order (SPEC 0.4 "Config discovery"). */
export function configSearchPath(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const xdg = env['XDG_CONFIG_HOME'];
  const userDir = xdg !== undefined && xdg !== '' ? xdg : join(env['HOME'] || homedir(), '.config');
  return [join(cwd, 'loopledger.json'), join(cwd, '.loopledger.json'), join(userDir, 'loopledger', 'config.json')];
}

/**
 * The file a command loads: `--config` (false: `--no-config`), else `LOOPLEDGER_CONFIG`, else the
 * first of the search path that is a file. A calibrated config written once must keep applying
 * without the flag on every run.
 */
export function chooseConfigFile(flag: string | false | undefined, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): ConfigFileChoice {
  if (flag === false) return { file: undefined, how: '--no-config' };
  if (flag !== undefined) return { file: flag, how: '--config' };
  const fromEnv = env['LOOPLEDGER_CONFIG'];
  if (fromEnv !== undefined && fromEnv !== '') return { file: fromEnv, how: 'LOOPLEDGER_CONFIG' };
  const found = configSearchPath(env, cwd).find(isFile);
  return found !== undefined ? { file: found, how: 'found' } : { file: undefined, how: 'none' };
}

/** A file there; a folder that cannot be searched (another user's, EACCES) holds none for this run. */
function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** The seed keeps these settings under `ai.loop_detection`; a file copied from there should just work. */
const WRAPPER_PREFIXES = ['ai.loop_detection.', 'loop_detection.'] as const;

/** Keys a JSON file may carry that are not settings (editor schema hints). */
const IGNORED_FILE_KEYS = new Set(['$schema', '$comment']);

export async function loadConfig(options?: LoadConfigOptions & { specs?: undefined }): Promise<LoadedRunConfig>;
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig>;
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const specs = options.specs ?? CONFIG_KEYS;
  const byKey = new Map(specs.map((s) => [s.key, s] as const));
  const values: Record<string, ConfigValue> = {};
  const sources: Record<string, ConfigSource> = {};
  const warnings: string[] = [];
  for (const spec of specs) {
    values[spec.key] = spec.default;
    sources[spec.key] = 'default';
  }

  const assign = (key: string, value: ConfigValue, origin: ValueOrigin) => {
    values[key] = value;
    sources[key] = origin.source;
  };

  if (options.file !== undefined) {
    const origin: ValueOrigin = { label: options.file, source: 'file' };
    const raw = options.fileObject ?? (await readConfigFile(options.file));
    const seen = new Set<string>();
    for (const [path, rawValue] of flattenFile(raw, byKey, options.file)) {
      const spec = lookup(path, byKey, specs, `${options.file}: unknown configuration key`);
      if (seen.has(spec.key)) warnings.push(`${options.file}: ${spec.key} is given more than once; the last one wins`);
      seen.add(spec.key);
      assign(spec.key, checkConfigValue(spec, rawValue, origin, warnings), origin);
    }
  }

  const setOrigin: ValueOrigin = { label: '--set', source: 'set' };
  for (const item of options.sets ?? []) {
    const eq = item.indexOf('=');
    if (eq < 0) throw new ConfigError(`--set ${JSON.stringify(item)}: expected KEY=VALUE`);
    const key = item.slice(0, eq).trim();
    if (key === '') throw new ConfigError(`--set ${JSON.stringify(item)}: the key before '=' is empty`);
    const spec = lookup(key, byKey, specs, '--set: unknown configuration key');
    assign(spec.key, parseConfigValue(spec, item.slice(eq + 1), setOrigin, warnings), setOrigin);
  }

  for (const [key, text] of Object.entries(options.overrides ?? {})) {
    const spec = lookup(key, byKey, specs, 'unknown configuration key');
    const origin: ValueOrigin = { label: `--${flagName(spec.key)}`, source: 'set' };
    assign(spec.key, parseConfigValue(spec, text, origin, warnings), origin);
  }

  // The values are parsed into typed sections once, here; the sections' cross-key repairs (a strong
  // band below the ambiguous one, …) are announced with the loader's warnings.
  // (Only over the real registry: a caller with its own key list has other keys.)
  if (options.specs !== undefined) return { values, sources, warnings, specs };
  const resolved = ResolvedConfig.parse(values, (w) => {
    if (!warnings.includes(w)) warnings.push(w);
  });
  return { values, sources, warnings, specs, config: resolved.config, resolved };
}

/** `policy.model_capability` → `model-capability`: how a dedicated flag names itself in messages. */
function flagName(key: string): string {
  return (key.split('.').pop() ?? key).replaceAll('_', '-');
}

export async function readConfigFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readSideFile(file, MAX_CONFIG_BYTES);
  } catch (e) {
    if (e instanceof SideFileTooLarge) throw new ConfigError(`config file ${file}: ${e.message}`);
    throw new ConfigError(`cannot read config file ${file}: ${(e as Error).message}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw new ConfigError(`config file ${file} must hold a JSON object of settings`);
  return parsed;
}

function stripWrapper(path: string): string {
  for (const prefix of WRAPPER_PREFIXES) if (path.startsWith(prefix)) return path.slice(prefix.length);
  return path;
}

/**
 * Flat dotted keys, nested sections and the `loop_detection` wrapper all reduce to
 * (dotted key, raw value) pairs. A path that names a key stops the descent even when its value is
 * an object, so that a wrong type is reported as such rather than as an unknown key.
 */
function flattenFile(
  root: Record<string, unknown>,
  byKey: ReadonlyMap<string, ConfigKeySpec>,
  file: string,
): [string, unknown][] {
  const out: [string, unknown][] = [];
  const walk = (obj: Record<string, unknown>, prefix: string, depth: number) => {
    // A config file is a few sections deep; anything deeper is not one.
    if (depth > 16) throw new ConfigError(`config file ${file}: sections nested too deep at ${prefix}`);
    for (const [k, v] of Object.entries(obj)) {
      if (prefix === '' && IGNORED_FILE_KEYS.has(k)) continue;
      const path = prefix === '' ? k : `${prefix}.${k}`;
      const key = stripWrapper(path);
      if (!byKey.has(key) && isPlainObject(v)) walk(v, path, depth + 1);
      else out.push([key, v]);
    }
  };
  walk(root, '', 0);
  return out;
}

function lookup(
  key: string,
  byKey: ReadonlyMap<string, ConfigKeySpec>,
  specs: readonly ConfigKeySpec[],
  what: string,
): ConfigKeySpec {
  const spec = byKey.get(stripWrapper(key));
  if (spec) return spec;
  const hint = suggestKey(stripWrapper(key), specs.map((s) => s.key));
  throw new ConfigError(`${what} ${JSON.stringify(key)}${hint ? `; did you mean ${hint}?` : ''}`);
}

/**
 * The nearest known key, or null when nothing is close. A bare last segment (`max_strikes`)
 * finds its section; otherwise edit distance, allowing about a third of the key to differ.
 */
export function suggestKey(key: string, known: readonly string[]): string | null {
  const wanted = key.toLowerCase();
  const exactCase = known.find((k) => k.toLowerCase() === wanted);
  if (exactCase) return exactCase;
  const bySuffix = known.filter((k) => k.toLowerCase().endsWith(`.${wanted}`));
  if (bySuffix.length === 1) return bySuffix[0] ?? null;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const k of known) {
    const lower = k.toLowerCase();
    const last = lower.slice(lower.lastIndexOf('.') + 1);
    const d = Math.min(levenshtein(wanted, lower), levenshtein(wanted, last) + (wanted.includes('.') ? 2 : 0));
    if (d < bestDistance) {
      bestDistance = d;
      best = k;
    }
  }
  if (best === null) return null;
  return bestDistance <= Math.max(2, Math.floor(wanted.length / 3)) ? best : null;
}

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}
