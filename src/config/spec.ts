// How a configuration key is declared. Every module that owns thresholds declares its keys next
// to its code (with the reason for each default); the registry collects them, the loader reads
// `--config` and `--set` against them, and `loopledger config` prints them.

type ConfigScalar = number | string | boolean | null;
export type ConfigValue = ConfigScalar | readonly string[];

export interface ConfigKeySpec {
  /** Full dotted key, e.g. `tool_batch.max_strikes`. */
  key: string;
  type: 'integer' | 'number' | 'ratio' | 'boolean' | 'string' | 'list' | 'enum';
  default: ConfigValue;
  /** Accepts `none` (null), e.g. `tool_batch.max_observation_steps=none`. */
  nullable?: boolean;
  /** The documented range: a value outside [min, max] is a usage error (exit 2) naming key and range. */
  min?: number;
  max?: number;
  /** For `enum`. */
  values?: readonly string[];
  /** Unknown enum values degrade to this with a warning instead of failing (e.g. `mode`). */
  fallback?: string;
  /**
   * How a policy tier (profile × model capability) scales this threshold, for thresholds where a
   * larger value is more conservative. `count`: multiplied by the scale (rounded up). `ratio`:
   * scaled in the tolerance domain, 1 - (1 - value) / scale, so it never leaves 0..1.
   * Absent: the tier leaves it alone (caps, windows, strides, seed 000's tool-batch numbers).
   */
  tier?: 'count' | 'ratio';
  /** One line: why this default. Printed by `loopledger config`. */
  reason: string;
}

export type ConfigSource = 'default' | 'file' | 'set';

/** Effective flat configuration: dotted key → value. */
export type ConfigValues = Readonly<Record<string, ConfigValue>>;
