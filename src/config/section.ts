// A configuration section: the typed settings one module owns, declared next to its code as one
// key spec per field. The flat configuration (dotted key → value) is parsed into each section once,
// with the loader's rules (./value.ts), into a frozen object the module then trusts.

import type { ConfigKeySpec, ConfigValue } from './spec.js';
import { checkConfigValue, type ValueOrigin } from './value.js';

export type SectionFields<T> = { readonly [K in keyof T]-?: ConfigKeySpec };

export interface ConfigSection<T> {
  /** Field → key spec, in the order `loopledger config` lists the keys. */
  readonly fields: SectionFields<T>;
  readonly keys: readonly ConfigKeySpec[];
  /**
   * Relations between keys that no single key's range can express (a strong band below the
   * ambiguous one): the seed's sanitizing pass repairs them in place with a warning, never fails.
   */
  readonly repair?: (config: T, warn: (message: string) => void) => void;
}

export function defineSection<T>(fields: SectionFields<T>, repair?: ConfigSection<T>['repair']): ConfigSection<T> {
  return { fields, keys: Object.values(fields) as ConfigKeySpec[], ...(repair ? { repair } : {}) };
}

/** Values handed over by a program rather than read from a file or the command line. */
const PROGRAM: ValueOrigin = { label: 'configuration', source: 'set' };

/** Objects this module produced: already checked, so handing one back in costs nothing. */
const PARSED = new WeakSet<object>();

function build<T>(section: ConfigSection<T>, raw: (spec: ConfigKeySpec, field: string) => unknown, warn: (m: string) => void): Readonly<T> {
  const out: Record<string, ConfigValue> = {};
  const warnings: string[] = [];
  for (const [field, spec] of Object.entries(section.fields) as [string, ConfigKeySpec][]) {
    const v = raw(spec, field);
    const value = v === undefined ? spec.default : checkConfigValue(spec, v, PROGRAM, warnings);
    out[field] = Array.isArray(value) ? Object.freeze([...value]) : value;
  }
  for (const w of warnings) warn(w);
  section.repair?.(out as T, warn);
  const frozen = Object.freeze(out) as Readonly<T>;
  PARSED.add(frozen);
  return frozen;
}

/** The section's settings from a flat configuration (dotted keys); a missing key takes its default. */
export function readSection<T>(
  section: ConfigSection<T>,
  values: Readonly<Record<string, unknown>>,
  warn: (message: string) => void = () => {},
): Readonly<T> {
  return build(section, (spec) => values[spec.key], warn);
}

/**
 * The section's settings from typed fields, some possibly missing (a detector built by a program or
 * a test): checked and repaired like `readSection`. A parsed section is returned as it is.
 */
export function completeSection<T>(
  section: ConfigSection<T>,
  config: Partial<T>,
  warn: (message: string) => void = () => {},
): Readonly<T> {
  if (PARSED.has(config)) return config as Readonly<T>;
  return build(section, (_spec, field) => (config as Record<string, unknown>)[field], warn);
}

/** Every field at its default. */
export function sectionDefaults<T>(section: ConfigSection<T>): Readonly<T> {
  return readSection(section, {});
}
