import { describe, expect, it } from 'vitest';
import { formatConfigValue, renderConfig } from '../../src/commands/config.js';
import { loadConfig } from '../../src/config/load.js';
import type { ConfigKeySpec } from '../../src/config/spec.js';

const SPECS: readonly ConfigKeySpec[] = [
  { key: 'tool_batch.max_strikes', type: 'integer', default: 2, min: 0, reason: 'seed 000: two identical batches are allowed' },
  { key: 'tool_batch.max_observation_steps', type: 'integer', default: 15, nullable: true, min: 0, reason: 'seed 000: read-only allowance' },
  { key: 'tool_batch.observation_tools', type: 'list', default: ['snapshot', 'screenshot'], reason: 'seed 000: browser tools' },
  { key: 'scope', type: 'enum', values: ['turn', 'replay'], default: 'turn', reason: 'per turn' },
];

describe('renderConfig', () => {
  it('table: every key with its value and source, the default under a changed key; no colour codes when colour is off', async () => {
    const loaded = await loadConfig({ specs: SPECS, sets: ['tool_batch.max_observation_steps=none', 'tool_batch.observation_tools=a,\u001b[31mb'] });
    const out = renderConfig(loaded, { format: 'table', color: false });
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^KEY\s+VALUE\s+SOURCE$/);
    expect(out).toMatch(/^tool_batch\.max_strikes\s+2\s+default$/m);
    expect(out).toMatch(/^tool_batch\.max_observation_steps\s+none\s+--set\n {4}default: 15$/m);
    expect(out).toMatch(/^tool_batch\.observation_tools\s+.*--set\n {4}default: snapshot,screenshot$/m);
    expect(out).toMatch(/^scope\s+turn\s+default$/m);
    // Reasons are for --verbose.
    expect(out).not.toContain('two identical batches');
    expect(out).not.toContain('\u001b');
    expect(out).toContain('\\x1b[31mb');
    expect(out).toContain('4 keys: 2 default, 0 from the config file, 2 from --set or flags');
    // columns line up: VALUE starts at the same offset on every row
    const at = lines[0]?.indexOf('VALUE');
    expect(lines[1]?.slice(at).startsWith('2 ')).toBe(true);
  });

  it('--verbose: each reason on its own line under its key, in plain words', async () => {
    const loaded = await loadConfig({ specs: SPECS });
    const out = renderConfig(loaded, { format: 'table', color: false, verbose: true });
    expect(out).toMatch(/^tool_batch\.max_strikes\s+2\s+default\n {4}seed 000: two identical batches are allowed$/m);
    expect(out).toMatch(/^scope\s+turn\s+default\n {4}per turn$/m);
  });

  for (const width of [30, 40, 60, 80, 120, 160]) {
    it(`fits a width of ${width}, with and without --verbose`, async () => {
      const long = { key: 'output.predictable_drift_max_gap_words', type: 'integer' as const, default: 64, min: 0, reason: 'a '.repeat(200).trim() };
      const loaded = await loadConfig({ specs: [...SPECS, long], sets: ['tool_batch.observation_tools=' + 'pattern,'.repeat(30) + 'x'] });
      for (const verbose of [false, true]) {
        const out = renderConfig(loaded, { format: 'table', color: false, width, verbose });
        for (const line of out.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(width);
        // Every key is still there, whole: it is what --set takes.
        for (const s of [...SPECS, long]) expect(out).toContain(width >= s.key.length ? s.key : s.key.slice(0, width));
      }
    });
  }

  it('table with colour marks the changed values', async () => {
    const loaded = await loadConfig({ specs: SPECS, sets: ['tool_batch.max_strikes=3'] });
    expect(renderConfig(loaded, { format: 'table', color: true })).toContain('\u001b[');
  });

  it('json: values, defaults, sources and reasons', async () => {
    const loaded = await loadConfig({ specs: SPECS, sets: ['tool_batch.max_strikes=0'] });
    // Out-of-range values are errors now; a cross-key repair is the kind of warning that remains.
    loaded.warnings.push('output.near_repetition_strong (0.8) is below output.near_repetition_ambiguous; raised');
    const json = JSON.parse(renderConfig(loaded, { format: 'json', color: true }));
    expect(json.config).toEqual({
      'tool_batch.max_strikes': 0,
      'tool_batch.max_observation_steps': 15,
      'tool_batch.observation_tools': ['snapshot', 'screenshot'],
      scope: 'turn',
    });
    expect(json.keys[0]).toEqual({ key: 'tool_batch.max_strikes', type: 'integer', value: 0, default: 2, source: 'set', min: 0, reason: 'seed 000: two identical batches are allowed' });
    expect(json.keys[3].values).toEqual(['turn', 'replay']);
    expect(json.warnings).toEqual(['output.near_repetition_strong (0.8) is below output.near_repetition_ambiguous; raised']);
  });

  it('table abbreviates long lists and json keeps them whole', async () => {
    const items = Array.from({ length: 12 }, (_, i) => `pattern-number-${i}`);
    const loaded = await loadConfig({ specs: SPECS, sets: [`tool_batch.observation_tools=${items.join(',')}`] });
    const out = renderConfig(loaded, { format: 'table', color: false });
    expect(out).toMatch(/pattern-number-0,pattern-number-1,… \(\+10\)/);
    expect(JSON.parse(renderConfig(loaded, { format: 'json', color: false })).config['tool_batch.observation_tools']).toEqual(items);
  });

  it('values print the way --set reads them', () => {
    expect(formatConfigValue(null)).toBe('none');
    expect(formatConfigValue([])).toBe('[]');
    expect(formatConfigValue(['a', 'b'])).toBe('a,b');
    expect(formatConfigValue(0.85)).toBe('0.85');
    expect(formatConfigValue(false)).toBe('false');
  });
});
