// The configuration is parsed once per run (issue 31, item 5: "The typed `Config` parsed once per
// run (and once per policy tier) and passed down"). What the parse says is how that shows from
// outside: a cross-key repair ("raised to it") is a warning of the parse, so a run that parsed per
// file said it once per file (91 times over fixtures/ before). Once per run, it is said once,
// whatever the number of files, lanes or tiers, and the ledger is the one the values give.

import { beforeAll, describe, expect, it } from 'vitest';
import { audit, defaultConfigValues } from '../../src/index.js';
import { ensureBuilt, runCli } from '../cli/helpers.js';

beforeAll(() => ensureBuilt());

const REPAIRED = 'output.near_repetition_strong (0.5) is below output.near_repetition_ambiguous (0.6); raised to it';
const SETS = ['--set', 'output.near_repetition_strong=0.5', '--set', 'output.near_repetition_ambiguous=0.6'];
const times = (text: string, line: string) => text.split('\n').filter((l) => l.includes(line)).length;

describe('one parse per run', () => {
  it.each([['1'], ['2']])('analyze over 90 files with --jobs %s says a repair of the configuration once', async (jobs) => {
    const r = await runCli(['fixtures', '--format', 'json', '--jobs', jobs, ...SETS]);
    expect(r.code).toBe(0);
    expect(times(r.stderr, REPAIRED)).toBe(1);
    const report = JSON.parse(r.stdout) as { inputs: unknown[]; config: Record<string, unknown> };
    expect(report.inputs.length).toBeGreaterThan(80);
    // The ledger records the values as given, the repair being the parse's.
    expect(report.config['output.near_repetition_strong']).toBe(0.5);
  });

  it('the lanes and this thread give the same ledger from the one parse', async () => {
    const [one, lanes] = await Promise.all([runCli(['fixtures', '--format', 'json', '--jobs', '1', ...SETS]), runCli(['fixtures', '--format', 'json', '--jobs', '2', ...SETS])]);
    expect(lanes.stdout).toBe(one.stdout);
  });

  it('a policy tier (every session scaled) parses silently: still one warning, from the run', async () => {
    const r = await runCli(['fixtures', '--format', 'json', '--jobs', '2', '--profile', 'conversation', '--model-capability', 'weak', ...SETS]);
    expect(r.code).toBe(0);
    expect(times(r.stderr, REPAIRED)).toBe(1);
  });

  it('audit() given a flat configuration parses it once for all its files', async () => {
    const warnings: string[] = [];
    const config = { ...defaultConfigValues(), 'thinking.similarity_strong': 0.5, 'thinking.similarity_ambiguous': 0.6 };
    const report = await audit(['fixtures/claude-code', 'fixtures/codex', 'fixtures/gemini'], { config, jobs: 1, pricing: false, onWarning: (m) => warnings.push(m) });
    expect(report.inputs.length).toBeGreaterThan(5);
    expect(warnings.filter((w) => w.includes('thinking.similarity_strong (0.5) is below thinking.similarity_ambiguous (0.6)'))).toHaveLength(1);
  });
});
