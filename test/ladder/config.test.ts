import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { CONFIG_KEYS, defaultConfigValues, parseConfig } from '../../src/config/registry.js';
import { ConfigError } from '../../src/errors.js';
import { clearedAt, parseClearDetection } from '../../src/ladder/clear.js';
import { LADDER_KEYS, ladderSettings, type LadderSettings } from '../../src/ladder/config.js';

/** The settings from a flat configuration, parsed as the ledger parses it. */
function readLadderSettings(values: Record<string, unknown>, warn?: (m: string) => void): LadderSettings {
  const c = parseConfig(values as never, warn);
  return ladderSettings(c.ladder, c.toolBatch);
}

const parseMode = (value: unknown, warn?: (m: string) => void) => parseConfig(value === undefined ? {} : { mode: value as string }, warn).ladder.mode;
const parseCycleLevel = (value: unknown, warn?: (m: string) => void) =>
  readLadderSettings(value === undefined ? {} : { 'tool_batch.cycle_enforce': value }, warn).cycleEnforce;

describe('mode', () => {
  it('"an unknown mode string from a newer build degrades to Telemetry instead of failing"', () => {
    const warnings: string[] = [];
    expect(parseMode('autopilot', (m) => warnings.push(m))).toBe('telemetry');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('autopilot');
  });

  it('known modes parse, case-insensitively; absent is the telemetry default', () => {
    expect(parseMode('off')).toBe('off');
    expect(parseMode('Enforce')).toBe('enforce');
    expect(parseMode(' telemetry ')).toBe('telemetry');
    expect(parseMode(undefined)).toBe('telemetry');
  });

  it('through the config loader, an unknown mode degrades to telemetry with a warning', async () => {
    const loaded = await loadConfig({ sets: ['mode=autopilot'] });
    expect(loaded.values['mode']).toBe('telemetry');
    expect(loaded.warnings.join('\n')).toContain('autopilot');
    expect((await loadConfig({ sets: ['mode=Enforce'] })).values['mode']).toBe('enforce');
  });

  it('the ladder keys round-trip through --set', async () => {
    const loaded = await loadConfig({
      sets: ['ladder.clear_detection=s1@2,s2@1.3', 'policy.scale=none', 'policy.model_capability=weak', 'judge.max_verdicts_per_turn=0'],
    });
    expect(loaded.values['ladder.clear_detection']).toEqual(['s1@2', 's2@1.3']);
    expect(loaded.values['policy.scale']).toBeNull();
    expect(ladderSettings(loaded.config!.ladder, loaded.config!.toolBatch).judge.maxVerdictsPerTurn).toBe(0);
  });

  it('the mode key declares the telemetry default and fallback for the loader', () => {
    const mode = LADDER_KEYS.find((k) => k.key === 'mode')!;
    expect(mode).toMatchObject({ type: 'enum', default: 'telemetry', fallback: 'telemetry' });
    expect(mode.values).toEqual(['off', 'telemetry', 'enforce']);
  });
});

describe('ladder keys', () => {
  it('every key is registered, has a reason and a default of its type', () => {
    const registered = new Set(CONFIG_KEYS.map((k) => k.key));
    for (const spec of LADDER_KEYS) {
      expect(registered.has(spec.key)).toBe(true);
      expect(spec.reason.length).toBeGreaterThan(10);
      if (spec.type === 'enum') expect(spec.values).toContain(spec.default);
      if (spec.type === 'list') expect(Array.isArray(spec.default)).toBe(true);
      if (spec.type === 'ratio') expect(spec.default).toBeGreaterThanOrEqual(0);
    }
  });

  it('defaults are the seed numbers', () => {
    const s = readLadderSettings(defaultConfigValues());
    expect(s.maxUnheededSteers).toBe(3);
    expect(s.stopConfidenceMin).toBe(0.88);
    expect(s.judge).toEqual({ enabled: true, maxVerdictsPerTurn: 2, verdictConfidenceMin: 0.9, carryVerdicts: true });
    expect([...s.cappedKinds]).toEqual(['predictable_drift', 'reasoning_runaway']);
    expect(s.cycleEnforce).toBe('steer');
    expect(s.cycleEnforcePeriods).toBe(4);
  });

  it("the loader's rules: a list may be comma-separated text; a wrong type or a ratio above 1 is an error naming the key", () => {
    expect([...readLadderSettings({ 'ladder.capped_kinds': 'a, b' }).cappedKinds]).toEqual(['a', 'b']);
    expect(() => readLadderSettings({ 'ladder.max_unheeded_steers': 'three' })).toThrow(ConfigError);
    expect(() => readLadderSettings({ 'ladder.max_unheeded_steers': 'three' })).toThrow(/ladder\.max_unheeded_steers="three": expected a whole number/);
    expect(() => readLadderSettings({ 'ladder.stop_confidence_min': 1.5 })).toThrow(/ladder\.stop_confidence_min=1\.5 is out of range: ladder\.stop_confidence_min takes a ratio from 0 to 1/);
  });

  it('tool_batch.cycle_enforce is read with a fallback when absent or unknown', () => {
    // Absent: the tool-batch default (calibrated in docs/calibrating.md); unknown: the cautious `noted`.
    const warnings: string[] = [];
    expect(parseCycleLevel(undefined)).toBe('steer');
    expect(parseCycleLevel('stop')).toBe('stop');
    expect(parseCycleLevel('panic', (m) => warnings.push(m))).toBe('noted');
    expect(warnings).toHaveLength(1);
  });

  it('tool_batch.cycle_enforce_periods: a whole number of at least 2, else an error naming the key', () => {
    const periods = (v: unknown) => readLadderSettings(v === undefined ? {} : { 'tool_batch.cycle_enforce_periods': v }).cycleEnforcePeriods;
    expect(periods(undefined)).toBe(4);
    expect(periods(6)).toBe(6);
    for (const bad of [1, 2.5, 'four', -3]) expect(() => periods(bad)).toThrow(/tool_batch\.cycle_enforce_periods/);
  });
});

describe('ladder.clear_detection', () => {
  it('parses <session>@<turn> and <session>@<turn>.<round>; ids may contain @', () => {
    const warnings: string[] = [];
    const m = parseClearDetection(['s1@2', 'a@b@3.17', 'bad', 's2@0', 's3@x'], (w) => warnings.push(w));
    expect(m.get('s1')).toEqual({ turn: 2, round: null });
    expect(m.get('a@b')).toEqual({ turn: 3, round: 17 });
    expect(warnings).toHaveLength(3);
  });

  it('the earliest clear point of a session wins', () => {
    expect(parseClearDetection(['s@3', 's@2.9', 's@2.12']).get('s')).toEqual({ turn: 2, round: 9 });
  });

  it('clears from the point on, never before', () => {
    const p = { turn: 2, round: 5 };
    expect(clearedAt(p, 1, 3)).toBe(false);
    expect(clearedAt(p, 2, 4)).toBe(false);
    expect(clearedAt(p, 2, 5)).toBe(true);
    expect(clearedAt(p, 3, 1)).toBe(true);
    expect(clearedAt({ turn: 2, round: null }, 2, 1)).toBe(true);
    expect(clearedAt(undefined, 9, 9)).toBe(false);
  });
});
