import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/registry.js';
import { ConfigError } from '../../../src/errors.js';
import { TOOL_BATCH_KEYS } from '../../../src/detect/tool-batch/index.js';

// docs/read-only.md, "The defaults": seed 000's browser tools, BashOutput, and the read-only
// prefixes of the shell tools whose failures the live guard sees (not Codex's exec_command or
// shell), written out here, not read from the code under test.
const SHELLS = ['Bash', 'run_shell_command', 'execute_bash', 'bash'];
const PREFIXES = ['cat', 'head', 'tail', 'grep', 'rg', 'ls', 'wc', 'nl', 'find', 'sed', 'git status', 'git log', 'git diff', 'git show'];
const OBSERVATION_DEFAULT = ['snapshot', 'screenshot', 'read_page', 'navigate', 'click', 'BashOutput', ...SHELLS.flatMap((t) => PREFIXES.map((p) => `${t}(${p}:*)`))];

const readToolBatchConfig = (values: Record<string, unknown>) => parseConfig(values as never).toolBatch;

describe('tool_batch config', () => {
  it('declares every key with its default and a reason, and no tier on seed 000 numbers (the browser tools of seed 000, BashOutput and the shell rules but Codex\'s: issue 28 item 2)', () => {
    const byKey = Object.fromEntries(TOOL_BATCH_KEYS.map((k) => [k.key, k]));
    expect(byKey['tool_batch.max_strikes']).toMatchObject({ type: 'integer', default: 2 });
    expect(byKey['tool_batch.max_observation_steps']).toMatchObject({ type: 'integer', default: 15, nullable: true });
    expect(byKey['tool_batch.observation_tools']!.default).toEqual(OBSERVATION_DEFAULT);
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

  it('parses values with the loader\'s rules: none as null, defaults for missing keys, errors for malformed ones', () => {
    expect(readToolBatchConfig({})).toEqual({
      maxStrikes: 2,
      maxObservationSteps: 15,
      observationTools: OBSERVATION_DEFAULT,
      costlyTools: [],
      transparentTools: ['think'],
      recurringFailureOccurrences: 3,
      cycleWindow: 24,
      cycleRepeats: 3,
      cycleEnforce: 'steer',
      cycleEnforcePeriods: 4,
      onRefusal: 'stop',
      noProgressWindow: 12,
      noProgressStaleRounds: 4,
      noProgressReadTools: expect.arrayContaining(['Read', 'Grep', 'Glob', 'LS', 'BashOutput', 'read_file', 'list_directory', 'glob', 'search_file_content', 'Bash(cat:*)', 'shell(rg:*)', 'run_shell_command(tail:*)', 'str_replace_editor(view:*)']),
      // Issue 54: "a steer at the third identical failure or the third same-error attempt".
      repeatedFailureOccurrences: 3,
      sameErrorRounds: 3,
    });
    const warnings: string[] = [];
    const c = parseConfig(
      {
        'tool_batch.max_strikes': 0,
        'tool_batch.max_observation_steps': null,
        'tool_batch.costly_tools': ['paid_search'],
        'tool_batch.cycle_enforce': 'bogus',
      },
      (m) => warnings.push(m),
    ).toolBatch;
    expect(Object.isFrozen(c) && Object.isFrozen(c.costlyTools)).toBe(true);
    // An unknown level degrades to the key's fallback with a warning, as in a config file.
    expect(warnings).toEqual(['configuration tool_batch.cycle_enforce="bogus" is not one of none, noted, steer, stop; using noted']);
    // Where the old reader rounded, floored or fell back, the loader's contract: a usage error naming the key.
    expect(() => readToolBatchConfig({ 'tool_batch.cycle_repeats': 'x' })).toThrow(ConfigError);
    expect(() => readToolBatchConfig({ 'tool_batch.max_strikes': 2.5 })).toThrow(/tool_batch\.max_strikes=2\.5: expected a whole number/);
    expect(() => readToolBatchConfig({ 'tool_batch.cycle_window': 2 })).toThrow(/tool_batch\.cycle_window=2 is out of range: tool_batch\.cycle_window takes a whole number from 4 to 4096/);
    expect(readToolBatchConfig({ 'tool_batch.max_observation_steps': 'none' }).maxObservationSteps).toBeNull();
    expect(readToolBatchConfig({ 'tool_batch.recurring_failure_occurrences': null }).recurringFailureOccurrences).toBeNull();
    expect(readToolBatchConfig({ 'tool_batch.transparent_tools': [] }).transparentTools).toEqual([]);
    expect(c).toMatchObject({ maxStrikes: 0, maxObservationSteps: null, costlyTools: ['paid_search'], cycleEnforce: 'noted', cycleRepeats: 3 });
  });
});
