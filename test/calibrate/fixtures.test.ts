// The sweep over the bundled fixture corpus through the real pipeline (issue 7: "sweep over
// tool_batch.max_strikes=1:4:1 on a fixture corpus gives monotone stop counts").

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSweep } from '../../src/commands/sweep-run.js';
import { loadConfig } from '../../src/config/load.js';
import type { SweepResult } from '../../src/calibrate/sweep.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures', import.meta.url));
const LABELS = fileURLToPath(new URL('./fixture-labels.json', import.meta.url));

async function run(params: string[], extra: { labels?: string; maxFpr?: string } = {}): Promise<SweepResult> {
  const warnings: string[] = [];
  const out = await runSweep([FIXTURES], {
    loaded: await loadConfig({ sets: ['mode=enforce'] }),
    params,
    format: 'json',
    color: false,
    inputFormat: 'auto',
    onWarning: (m) => warnings.push(m),
    ...extra,
  });
  expect(warnings.filter((w) => w.includes('matched no session'))).toEqual([]);
  return JSON.parse(out) as SweepResult;
}

describe('sweep over the fixture corpus', () => {
  it('tool_batch.max_strikes=1:4:1: stop counts never increase with the threshold, and the tightest value stops something', async () => {
    const r = await run(['tool_batch.max_strikes=1:4:1']);
    expect(r.points.map((p) => p.values['tool_batch.max_strikes'])).toEqual([1, 2, 3, 4]);
    const sessions = r.points.map((p) => p.stopped.sessions);
    const rounds = r.points.map((p) => p.stopped.rounds);
    for (let i = 1; i < r.points.length; i++) {
      expect(sessions[i]).toBeLessThanOrEqual(sessions[i - 1] as number);
      expect(rounds[i]).toBeLessThanOrEqual(rounds[i - 1] as number);
    }
    expect(sessions[0]).toBeGreaterThan(0);
    expect(new Set(r.points.map((p) => p.sessions)).size).toBe(1);
  });

  it('with the hand labels: the confusion matrix covers every label at every value', async () => {
    const r = await run(['tool_batch.max_strikes=1:4:1'], { labels: LABELS, maxFpr: '0' });
    expect(r.labels).toEqual({ loop: 3, clean: 3, unmatched: [] });
    for (const p of r.points) {
      const m = p.metrics;
      expect(m).not.toBeNull();
      if (!m) continue;
      expect(m.tp + m.fn).toBe(3);
      expect(m.fp + m.tn).toBe(3);
      expect(m.recall).toBeCloseTo(m.tp / 3, 12);
      expect(m.fpr).toBeCloseTo(m.fp / 3, 12);
    }
    const recalls = r.points.map((p) => p.metrics?.recall ?? 0);
    for (let i = 1; i < recalls.length; i++) expect(recalls[i]).toBeLessThanOrEqual(recalls[i - 1] as number);
  });
});
