// Policy tiers (seed 002): a threshold scale per (profile × model capability), applied to the keys
// whose ConfigKeySpec declares a `tier`. Pure data and pure functions: the detectors keep owning
// their baselines; this only hands them scaled copies.

import type { ConfigKeySpec, ConfigValue, ConfigValues } from '../config/spec.js';
import { CAPABILITIES, type Capability, type LadderConfig, PROFILES, type Profile } from './config.js';

/**
 * Profile scales. Every scale is ≥ 1 so no tier is looser than the seed's initial values: loosening
 * a threshold needs a measured false-positive rate, which nobody has yet.
 */
export const PROFILE_SCALE: Readonly<Record<Profile, number>> = {
  // Tool-using agents: the population the seed's initial thresholds were chosen for.
  agent: 1,
  // Sub-agents run narrow, repetitive-by-design work (bulk edits, polling), so a little more room.
  subagent: 1.1,
  // Chat repeats greetings, recaps and templated answers legitimately. The seed's Conversation
  // tier scale is large enough that multiplying a 0.85 similarity would leave 0..1 (> 1/0.85).
  conversation: 1.2,
};

/**
 * Capability scales: weak models are strictly more conservative (seed 002: "higher thresholds,
 * fewer false positives"), the opposite direction from context compaction. Strong is the baseline.
 */
export const CAPABILITY_SCALE: Readonly<Record<Capability, number>> = {
  // Strong and standard models get the seed's thresholds as they are: an unknown model maps to
  // standard, and the seed's own positives (a block repeated four times) must fire for it.
  strong: 1,
  standard: 1,
  // Weak models drift into legitimate-looking repetition more often: strictly more conservative.
  weak: 1.25,
};

/**
 * The canonical structural exclusion list (seed 002). Carried by every tier unchanged: "no tier
 * may drop an exclusion". The output detector owns applying it; the tier only passes it through.
 */
export const STRUCTURAL_EXCLUSIONS: readonly string[] = [
  'fenced_code',
  'tables',
  'lists',
  'headings',
  'quotes',
  'thematic_breaks',
];

export interface PolicyTier {
  profile: Profile;
  capability: Capability;
  scale: number;
  exclusions: readonly string[];
}

export interface CapabilityPattern {
  pattern: string;
  regex: RegExp;
  capability: Capability;
}

/** `glob=capability` entries; malformed ones are skipped with a warning. */
export function parseCapabilityPatterns(
  entries: readonly string[],
  warn: (m: string) => void = () => {},
): CapabilityPattern[] {
  const out: CapabilityPattern[] = [];
  for (const entry of entries) {
    const eq = entry.lastIndexOf('=');
    const pattern = eq > 0 ? entry.slice(0, eq).trim() : '';
    const cap = eq > 0 ? entry.slice(eq + 1).trim().toLowerCase() : '';
    if (pattern === '' || !(CAPABILITIES as readonly string[]).includes(cap)) {
      warn(`policy.capability_patterns: ignoring ${JSON.stringify(entry)} (expected glob=strong|standard|weak)`);
      continue;
    }
    const source = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    out.push({ pattern, regex: new RegExp(`^${source}$`, 'i'), capability: cap as Capability });
  }
  return out;
}

/**
 * `auto` maps the model name; an unknown or missing model is `standard`, the middle, so an
 * unrecognized model is neither trusted like a flagship nor muted like a small one.
 */
export function resolveCapability(
  setting: unknown,
  model: string | null,
  patterns: readonly CapabilityPattern[],
): Capability {
  if (typeof setting === 'string' && (CAPABILITIES as readonly string[]).includes(setting)) return setting as Capability;
  if (model) for (const p of patterns) if (p.regex.test(model)) return p.capability;
  return 'standard';
}

function resolveProfile(setting: unknown, isSubagent: boolean): Profile {
  if (typeof setting === 'string' && (PROFILES as readonly string[]).includes(setting)) return setting as Profile;
  return isSubagent ? 'subagent' : 'agent';
}

/** Compiles the `policy.*` settings once; `tierFor` is then cheap per turn. */
export class PolicyResolver {
  private readonly patterns: CapabilityPattern[];

  constructor(
    private readonly settings: Pick<LadderConfig, 'profile' | 'modelCapability' | 'capabilityPatterns' | 'scale'>,
    warn: (m: string) => void = () => {},
  ) {
    this.patterns = parseCapabilityPatterns(settings.capabilityPatterns, warn);
  }

  tierFor(model: string | null, isSubagent: boolean): PolicyTier {
    const profile = resolveProfile(this.settings.profile, isSubagent);
    const capability = resolveCapability(this.settings.modelCapability, model, this.patterns);
    // policy.scale's range (0.25..4) is the section's: a set scale replaces the tier table's.
    const scale = this.settings.scale ?? PROFILE_SCALE[profile] * CAPABILITY_SCALE[capability];
    return { profile, capability, scale, exclusions: STRUCTURAL_EXCLUSIONS };
  }
}

/** 'count': multiplied (integers rounded up). 'ratio': 1 - (1 - v) / scale, kept in 0..1. */
export function scaleValue(value: number, kind: 'count' | 'ratio', scale: number, spec?: ConfigKeySpec): number {
  let v: number;
  if (kind === 'ratio') {
    v = Math.min(1, Math.max(0, 1 - (1 - value) / scale));
  } else {
    v = value * scale;
    // Float noise is rounded off before rounding up: 100 × 1.1 is 110.00000000000001 and must stay 110.
    v = Math.round(v * 1e9) / 1e9;
    if (spec?.type === 'integer') v = Math.ceil(v);
  }
  if (spec?.min !== undefined) v = Math.max(spec.min, v);
  if (spec?.max !== undefined) v = Math.min(spec.max, v);
  return v;
}

/**
 * A copy of `values` with every `tier` key scaled; everything else (lists such as exclusions,
 * caps, windows, seed 000's tool-batch numbers) is passed through untouched.
 */
export function applyTier(values: ConfigValues, specs: readonly ConfigKeySpec[], scale: number): ConfigValues {
  if (scale === 1) return values;
  const out: Record<string, ConfigValue> = { ...values };
  for (const spec of specs) {
    if (!spec.tier) continue;
    const v = values[spec.key];
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    out[spec.key] = scaleValue(v, spec.tier, scale, spec);
  }
  return out;
}
