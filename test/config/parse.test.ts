// Issue 12: the configuration is validated once into types. One schema per section (declared next
// to the code that owns it), one set of rules (the loader's), one frozen object trusted after.

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { CONFIG_KEYS, defaultConfigValues, parseConfig } from '../../src/config/registry.js';
import { createDetectorFactories } from '../../src/ledger/detectors.js';
import { LedgerBuilder } from '../../src/ledger/build.js';
import { ConfigError } from '../../src/errors.js';

describe('parseConfig', () => {
  it('gives every section typed and frozen, lists included', () => {
    const c = parseConfig(defaultConfigValues());
    expect(Object.isFrozen(c)).toBe(true);
    for (const section of Object.values(c)) expect(Object.isFrozen(section)).toBe(true);
    expect(Object.isFrozen(c.ladder.capabilityPatterns)).toBe(true);
    expect(c.run.scope).toBe('turn');
    expect(c.ladder.mode).toBe('telemetry');
    expect(c.ladder.scale).toBeNull();
    expect(c.toolBatch.maxStrikes).toBe(2);
    expect(c.output.exactBlockMinRepeats).toBe(4);
    expect(c.thinking.similarityStrong).toBe(0.9);
    // Every registered key belongs to exactly one section field.
    const fields = Object.values(c).reduce((n, s) => n + Object.keys(s).length, 0);
    expect(fields).toBe(CONFIG_KEYS.length);
  });

  it('the loader parses once: its typed config is what its values parse to', async () => {
    const loaded = await loadConfig({ sets: ['tool_batch.max_strikes=3', 'judge.timeout_s=2.5', 'scope=replay'] });
    expect(loaded.config).toEqual(parseConfig(loaded.values));
    expect(loaded.config!.toolBatch.maxStrikes).toBe(3);
    expect(loaded.config!.ladder.judgeTimeoutS).toBe(2.5);
    expect(loaded.config!.run.scope).toBe('replay');
  });

  it("a program's flat configuration is held to the loader's contract: an error naming the key, never a silent repair", () => {
    // Before, the same value was an error in the loader, rounded by the text detectors, floored by
    // the tool-batch reader and replaced by its default by the ladder's.
    for (const [key, value] of [
      ['tool_batch.max_strikes', 2.5],
      ['output.exact_block_min_repeats', 2.5],
      ['thinking.runaway_min_rounds', 1.5],
      ['ladder.max_unheeded_steers', 2.5],
    ] as const) {
      expect(() => parseConfig({ [key]: value }), key).toThrow(ConfigError);
      expect(() => parseConfig({ [key]: value }), key).toThrow(`configuration ${key}=${value}: expected a whole number`);
      expect(() => new LedgerBuilder({ config: { [key]: value }, factories: createDetectorFactories() }), key).toThrow(ConfigError);
    }
    expect(() => parseConfig({ 'judge.concurrency': 0 })).toThrow('configuration judge.concurrency=0 is out of range: judge.concurrency takes a whole number from 1 to 64');
  });
});
