import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, defaultConfigValues, parseConfig } from '../../src/config/registry.js';
import type { ConfigKeySpec } from '../../src/config/spec.js';
import { CAPABILITIES, PROFILES } from '../../src/ladder/config.js';
import {
  applyTier,
  CAPABILITY_SCALE,
  parseCapabilityPatterns,
  PolicyResolver,
  PROFILE_SCALE,
  resolveCapability,
  scaleValue,
  STRUCTURAL_EXCLUSIONS,
} from '../../src/ladder/policy.js';

// Synthetic tier keys so the properties hold whatever the detectors end up declaring.
const SYNTHETIC: ConfigKeySpec[] = [
  { key: 'x.count', type: 'integer', default: 3, tier: 'count', reason: 'test' },
  { key: 'x.real', type: 'number', default: 2.5, tier: 'count', reason: 'test' },
  { key: 'x.ratio', type: 'ratio', default: 0.85, tier: 'ratio', reason: 'test' },
  { key: 'x.list', type: 'list', default: ['fenced_code'], reason: 'test' },
  { key: 'x.cap', type: 'integer', default: 50, reason: 'test' },
];
const SPECS = [...CONFIG_KEYS, ...SYNTHETIC];

/** The resolver over a flat configuration, parsed as the ledger parses it. */
const resolver = (values: Record<string, unknown>) => new PolicyResolver(parseConfig(values as never).ladder);

function tierValues(profile: string, capability: string): Record<string, unknown> {
  const values = { ...defaultConfigValues(), 'x.count': 3, 'x.real': 2.5, 'x.ratio': 0.85, 'x.list': ['fenced_code'], 'x.cap': 50 };
  const tier = resolver({ ...values, 'policy.profile': profile, 'policy.model_capability': capability }).tierFor(null, false);
  return applyTier(values, SPECS, tier.scale) as Record<string, unknown>;
}

describe('policy tiers', () => {
  it('"Weak models are strictly more conservative in this tier (higher thresholds)": weak ≥ standard ≥ strong', () => {
    expect(CAPABILITY_SCALE.weak).toBeGreaterThan(CAPABILITY_SCALE.standard);
    // Standard (what an unknown model maps to) and strong both run the seed's own thresholds.
    expect(CAPABILITY_SCALE.standard).toBeGreaterThanOrEqual(CAPABILITY_SCALE.strong);
    for (const profile of PROFILES) {
      const [strong, standard, weak] = (['strong', 'standard', 'weak'] as const).map((c) => tierValues(profile, c));
      for (const spec of SPECS.filter((s) => s.tier)) {
        const [a, b, c] = [strong![spec.key], standard![spec.key], weak![spec.key]];
        if (typeof a !== 'number') continue;
        expect(b as number).toBeGreaterThanOrEqual(a);
        expect(c as number).toBeGreaterThanOrEqual(b as number);
      }
      expect(weak!['x.ratio'] as number).toBeGreaterThan(strong!['x.ratio'] as number);
    }
  });

  it('a standard model in the agent profile runs the seed\'s thresholds unscaled (a block repeated four times stays a loop)', () => {
    expect(PROFILE_SCALE.agent * CAPABILITY_SCALE.standard).toBe(1);
  });

  it('for every value and scale, a larger scale never lowers a threshold and ratios stay in 0..1', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        (v, s1, extra) => {
          const s2 = s1 + extra;
          const r1 = scaleValue(v, 'ratio', s1);
          const r2 = scaleValue(v, 'ratio', s2);
          expect(r1).toBeGreaterThanOrEqual(0);
          expect(r2).toBeLessThanOrEqual(1);
          expect(r2).toBeGreaterThanOrEqual(r1);
          expect(r1).toBeGreaterThanOrEqual(v - 1e-12);
        },
      ),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.double({ min: 1, max: 4, noNaN: true }), (v, s) => {
        const spec = SYNTHETIC[0];
        const scaled = scaleValue(v, 'count', s, spec);
        expect(Number.isInteger(scaled)).toBe(true);
        expect(scaled).toBeGreaterThanOrEqual(v);
      }),
    );
  });

  it('"Ratio thresholds scale in the tolerance domain": 0.85 under the Conversation tier stays in 0..1', () => {
    // "multiplying a 0.85 similarity by the Conversation tier scale would leave 0.0..=1.0"
    const scale = PROFILE_SCALE.conversation * CAPABILITY_SCALE.weak;
    expect(0.85 * scale).toBeGreaterThan(1);
    expect(scaleValue(0.85, 'ratio', scale)).toBeCloseTo(1 - 0.15 / scale, 12);
  });

  it('counts multiply and round up; float noise does not add one', () => {
    expect(scaleValue(3, 'count', 1.25, SYNTHETIC[0])).toBe(4);
    expect(scaleValue(100, 'count', 1.1, SYNTHETIC[0])).toBe(110);
    expect(scaleValue(2.5, 'count', 1.1, SYNTHETIC[1])).toBeCloseTo(2.75, 12);
  });

  it('"no tier may drop an exclusion": lists and untiered keys pass through every tier untouched', () => {
    for (const profile of PROFILES) {
      for (const capability of CAPABILITIES) {
        const v = tierValues(profile, capability);
        expect(v['x.list']).toEqual(['fenced_code']);
        expect(v['x.cap']).toBe(50);
        for (const spec of CONFIG_KEYS.filter((s) => !s.tier)) expect(v[spec.key]).toEqual(defaultConfigValues()[spec.key]);
        const tier = resolver({ 'policy.profile': profile, 'policy.model_capability': capability }).tierFor(null, false);
        expect(tier.exclusions).toEqual(STRUCTURAL_EXCLUSIONS);
      }
    }
    expect(STRUCTURAL_EXCLUSIONS).toEqual(['fenced_code', 'tables', 'lists', 'headings', 'quotes', 'thematic_breaks']);
  });

  it('auto capability maps model names through configurable patterns; unknown is standard', () => {
    const r = resolver(defaultConfigValues());
    expect(r.tierFor('gpt-5-mini', false).capability).toBe('weak');
    expect(r.tierFor('claude-3-5-haiku-20241022', false).capability).toBe('weak');
    expect(r.tierFor('claude-opus-4-1', false).capability).toBe('strong');
    expect(r.tierFor('gemini-2.5-pro', false).capability).toBe('strong');
    expect(r.tierFor('gemini-2.5-flash', false).capability).toBe('standard');
    expect(r.tierFor(null, false).capability).toBe('standard');
    const custom = resolver({ 'policy.capability_patterns': ['my-*=weak'] });
    expect(custom.tierFor('MY-model', false).capability).toBe('weak');
    expect(custom.tierFor('claude-opus-4', false).capability).toBe('standard');
  });

  it('an explicit capability wins over the model name; malformed patterns are skipped with a warning', () => {
    expect(resolveCapability('weak', 'claude-opus-4', parseCapabilityPatterns(['*opus*=strong']))).toBe('weak');
    const warnings: string[] = [];
    expect(parseCapabilityPatterns(['nope', '*x*=genius', '*y*=weak'], (m) => warnings.push(m))).toHaveLength(1);
    expect(warnings).toHaveLength(2);
  });

  it('auto profile: sub-agent threads get the subagent tier; policy.scale overrides the table', () => {
    const r = resolver({ 'policy.model_capability': 'strong' });
    expect(r.tierFor(null, true)).toMatchObject({ profile: 'subagent', scale: PROFILE_SCALE.subagent });
    expect(r.tierFor(null, false)).toMatchObject({ profile: 'agent', scale: 1 });
    expect(resolver({ 'policy.scale': 2 }).tierFor('x', false).scale).toBe(2);
  });
});
