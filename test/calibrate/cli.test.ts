// The calibration surface through the built binary, the way a person runs it: `sweep` with labels
// and `--positive`, `--explain` and `--verbose` on analyze. Needs `npx tsc -p tsconfig.json` first.

import { beforeAll, describe, expect, it } from 'vitest';
import type { SweepResult } from '../../src/calibrate/sweep.js';
import { ensureBuilt, runCli } from '../cli/helpers.js';

// It runs or reads the build: the build of src/ as it is now, even when this file runs alone.
beforeAll(() => ensureBuilt());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const cli = (args: readonly string[]): Promise<Run> => runCli(args);

interface Measured {
  detector: string;
  kind: string;
  statistic: string;
  value: number;
  threshold: number;
  direction: 'above' | 'below';
}
interface Ledger {
  sessions: {
    id: string;
    rounds: number;
    entries: { round: number; intervention: { enforce: string }; explain?: Measured[] }[];
    verdicts?: { round: number; enforce: string; near_misses: Measured[] }[];
  }[];
}

const SWEEP = ['sweep', 'fixtures', '--param', 'tool_batch.max_strikes=1:4:1', '--labels', 'fixtures/.labels.json', '--max-fpr', '0.1'];
const LOOP = 'fixtures/calibration/canonical/loop-migrate-retry.jsonl';
const TEMPLATE = 'fixtures/calibration/claude-code/clean-review-template.jsonl';

describe('loopledger sweep (spawned)', { timeout: 60_000 }, () => {
  it('--format json parses, carries every point with metrics, and a recommendation within the bound', async () => {
    const r = await cli([...SWEEP, '--format', 'json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as SweepResult & { schema: string };
    expect(j.schema).toBe('loopledger/sweep/1');
    expect(j.positive).toBe('stop');
    expect(j.max_fpr).toBe(0.1);
    expect(j.points.map((p) => p.values['tool_batch.max_strikes'])).toEqual([1, 2, 3, 4]);
    for (const p of j.points) {
      expect(p.metrics).not.toBeNull();
      // Every labeled session lands in exactly one cell (the corpus itself is counted in fixtures.test.ts).
      expect((p.metrics?.tp ?? 0) + (p.metrics?.fn ?? 0)).toBe(j.labels?.loop);
      expect((p.metrics?.fp ?? 0) + (p.metrics?.tn ?? 0)).toBe(j.labels?.clean);
      expect(j.labels?.loop).toBeGreaterThan(10);
    }
    expect(j.recommended).not.toBeNull();
    expect(j.recommended?.fpr ?? 1).toBeLessThanOrEqual(0.1);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('--positive steer reaches the sweep; a bad level is a usage error', async () => {
    // Four independent sweeps, started together: one after another they passed the test's 60 s
    // on a busy two-core machine.
    const [steer, stopRun, table, bad] = await Promise.all([
      cli([...SWEEP, '--format', 'json', '--positive', 'steer']),
      cli([...SWEEP, '--json']),
      cli([...SWEEP, '--positive', 'steer']),
      cli([...SWEEP, '--positive', 'maybe']),
    ]);
    expect(steer.code).toBe(0);
    const j = JSON.parse(steer.stdout) as SweepResult;
    expect(j.positive).toBe('steer');
    const stop = JSON.parse(stopRun.stdout) as SweepResult;
    expect(j.points.map((p) => p.metrics?.fp)).not.toEqual(stop.points.map((p) => p.metrics?.fp));

    expect(table.code).toBe(0);
    expect(table.stdout).toContain('when it reaches steer under enforce');
    expect(table.stdout).not.toContain('\u001b');

    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
  });
});

describe('--explain and --verbose (spawned)', { timeout: 60_000 }, () => {
  it('--explain: the stopping entry names the statistic and the threshold it crossed', async () => {
    const r = await cli([LOOP, '--format', 'json', '--explain']);
    expect(r.code).toBe(0);
    const s = (JSON.parse(r.stdout) as Ledger).sessions[0];
    const stop = s?.entries.find((e) => e.intervention.enforce === 'stop');
    expect(stop?.round).toBe(5);
    // max_strikes 2: the third identical batch is the first refused.
    expect(stop?.explain).toContainEqual({ detector: 'tool_batch', kind: 'repeated_batch', statistic: 'count', value: 3, threshold: 3, direction: 'above' });
    for (const e of s?.entries ?? []) expect(e.explain).toBeDefined();

    const plain = (JSON.parse((await cli([LOOP, '--format', 'json'])).stdout) as Ledger).sessions[0];
    for (const e of plain?.entries ?? []) expect(e.explain).toBeUndefined();
    expect(plain?.verdicts).toBeUndefined();
  });

  it('--verbose: a verdict per round, with the near misses of a threshold raised just past them', async () => {
    // The templated review thinking steers at the default 0.85; at 0.9 it falls silent, and the
    // near misses show by how little.
    const r = await cli([TEMPLATE, '--format', 'json', '--verbose', '--set', 'thinking.similarity_ambiguous=0.9', '--set', 'thinking.similarity_strong=0.95']);
    expect(r.code).toBe(0);
    const s = (JSON.parse(r.stdout) as Ledger).sessions[0];
    expect(s?.entries).toEqual([]);
    expect(s?.verdicts?.map((v) => v.round)).toEqual([1, 2, 3, 4, 5, 6]);
    const misses = s?.verdicts?.flatMap((v) => v.near_misses) ?? [];
    expect(misses.length).toBeGreaterThanOrEqual(4);
    for (const m of misses) {
      expect(m).toMatchObject({ detector: 'thinking', kind: 'thinking_stagnation', statistic: 'similarity', direction: 'above' });
      expect(m.value).toBeLessThan(m.threshold);
      expect(m.value).toBeGreaterThanOrEqual(m.threshold * 0.9);
    }

    const table = await cli([TEMPLATE, '--verbose', '--set', 'thinking.similarity_ambiguous=0.9', '--set', 'thinking.similarity_strong=0.95']);
    expect(table.stdout).toMatch(/near miss thinking\/thinking_stagnation similarity 0\.8\d+ \(fires at >= 0\.9/);
  });
});
