import { describe, expect, it } from 'vitest';
import { readToolBatchConfig, TOOL_BATCH_KEYS } from '../../../src/detect/tool-batch/index.js';

describe('tool_batch config', () => {
  it('declares every key with its default and a reason, and no tier on seed 000 numbers', () => {
    const byKey = Object.fromEntries(TOOL_BATCH_KEYS.map((k) => [k.key, k]));
    expect(byKey['tool_batch.max_strikes']).toMatchObject({ type: 'integer', default: 2 });
    expect(byKey['tool_batch.max_observation_steps']).toMatchObject({ type: 'integer', default: 15, nullable: true });
    expect(byKey['tool_batch.observation_tools']!.default).toEqual(['snapshot', 'screenshot', 'read_page', 'navigate', 'click']);
    expect(byKey['tool_batch.costly_tools']!.default).toEqual([]);
    expect(byKey['tool_batch.transparent_tools']).toMatchObject({ type: 'list', default: ['think'] });
    expect(byKey['tool_batch.recurring_failure_occurrences']).toMatchObject({ type: 'integer', default: 3, nullable: true, min: 2 });
    expect(byKey['tool_batch.cycle_enforce']).toMatchObject({ type: 'enum', default: 'steer', fallback: 'noted', values: ['none', 'noted', 'steer', 'stop'] });
    expect(byKey['tool_batch.cycle_enforce_periods']).toMatchObject({ type: 'integer', default: 4, min: 2 });
    expect(byKey['tool_batch.cycle_window']!.default).toBe(24);
    expect(byKey['tool_batch.cycle_repeats']!.default).toBe(3);
    for (const k of TOOL_BATCH_KEYS) {
      expect(k.reason.length).toBeGreaterThan(10);
      expect(k.tier).toBeUndefined();
    }
  });

  it('reads values, none as null, falling back to defaults for missing or malformed ones', () => {
    expect(readToolBatchConfig({})).toEqual({
      maxStrikes: 2,
      maxObservationSteps: 15,
      observationTools: ['snapshot', 'screenshot', 'read_page', 'navigate', 'click'],
      costlyTools: [],
      transparentTools: ['think'],
      recurringFailureOccurrences: 3,
      cycleWindow: 24,
      cycleRepeats: 3,
      cycleEnforce: 'steer',
      cycleEnforcePeriods: 4,
    });
    const c = readToolBatchConfig({
      'tool_batch.max_strikes': 0,
      'tool_batch.max_observation_steps': null,
      'tool_batch.costly_tools': ['paid_search'],
      'tool_batch.cycle_enforce': 'bogus',
      'tool_batch.cycle_repeats': 'x',
    });
    expect(readToolBatchConfig({ 'tool_batch.max_observation_steps': 'none' }).maxObservationSteps).toBeNull();
    expect(readToolBatchConfig({ 'tool_batch.recurring_failure_occurrences': null }).recurringFailureOccurrences).toBeNull();
    expect(readToolBatchConfig({ 'tool_batch.transparent_tools': [] }).transparentTools).toEqual([]);
    expect(c).toMatchObject({ maxStrikes: 0, maxObservationSteps: null, costlyTools: ['paid_search'], cycleEnforce: 'noted', cycleRepeats: 3 });
  });
});
