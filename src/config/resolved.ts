// One run's configuration, parsed once: the typed Config every stage reads, the same parsed once
// more per policy tier scale (on first use), and the flat map a ledger records (`config`,
// `config_hash`), which is also what a tier scales: scaling before the sections' repairs is what
// every tier has always been, so the flat map stays beside the parse rather than being rebuilt.

import { applyTier } from '../ladder/policy.js';
import { CONFIG_KEYS, type Config, parseConfig } from './registry.js';
import type { ConfigValues } from './spec.js';

export class ResolvedConfig {
  private readonly byScale = new Map<number, Readonly<Config>>();

  private constructor(
    /** As given (a library caller's may lack keys: they take their defaults, unscaled by any tier). */
    readonly values: ConfigValues,
    /** `values` parsed: tier scale 1. */
    readonly config: Readonly<Config>,
  ) {
    this.byScale.set(1, config);
  }

  /** Parse `values` once; the sections' cross-key repairs are reported through `warn`. */
  static parse(values: ConfigValues, warn?: (message: string) => void): ResolvedConfig {
    return new ResolvedConfig(values, parseConfig(values, warn));
  }

  /** `config` already parsed from `values` (the loader's). */
  static of(values: ConfigValues, config: Readonly<Config>): ResolvedConfig {
    return new ResolvedConfig(values, config);
  }

  /**
   * The configuration with a tier's thresholds, parsed on first use. Scaling keeps every key in its
   * range; a repair it makes (a scaled count above its window) is the tier's business, not the
   * user's configuration's, so it is not announced.
   */
  atScale(scale: number): Readonly<Config> {
    let config = this.byScale.get(scale);
    if (!config) {
      config = parseConfig(applyTier(this.values, CONFIG_KEYS, scale));
      this.byScale.set(scale, config);
    }
    return config;
  }
}

/** A flat map (a library caller's, a sweep point's) parsed here; a resolved one as it is. */
export function resolveConfig(config: ConfigValues | ResolvedConfig, warn?: (message: string) => void): ResolvedConfig {
  return config instanceof ResolvedConfig ? config : ResolvedConfig.parse(config, warn);
}

/** The flat map of either, for what cannot hold a parsed one (a message to a thread). */
export function flatConfig(config: ConfigValues | ResolvedConfig | undefined): ConfigValues | undefined {
  return config instanceof ResolvedConfig ? config.values : config;
}
