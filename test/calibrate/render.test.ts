import { describe, expect, it } from 'vitest';
import { parseLabels } from '../../src/calibrate/labels.js';
import { parseParam } from '../../src/calibrate/param.js';
import { sweep } from '../../src/calibrate/sweep.js';
import { renderSweep } from '../../src/commands/sweep.js';
import type { ConfigKeySpec, ConfigValues } from '../../src/config/spec.js';
import { session } from './helpers.js';

const SPECS: readonly ConfigKeySpec[] = [{ key: 'tool_batch.max_strikes', type: 'integer', default: 2, min: 0, reason: 'seed 000' }];

const analyze = async (v: ConfigValues) => {
  const m = v['tool_batch.max_strikes'] as number;
  return [
    session('loop', m < 3 ? [{ round: 2, enforce: 'steer' }, { round: 3, enforce: 'stop' }] : [{ round: 2, enforce: 'noted' }], { rounds: 4 }),
    session('poll', m < 2 ? [{ round: 2, enforce: 'stop' }] : [], { rounds: 6 }),
  ];
};

describe('renderSweep', () => {
  it('table without labels: one row per value, sessions / rounds', async () => {
    const r = await sweep({ params: [parseParam('tool_batch.max_strikes=1:3:1', SPECS)], baseValues: {}, analyze });
    const out = renderSweep(r, { format: 'table', color: false });
    expect(out).toContain('sweep of tool_batch.max_strikes: 3 points, 2 sessions, 10 rounds');
    expect(out).toMatch(/tool_batch\.max_strikes\s+FIRED\s+STEERED\s+STOPPED\s+SAVED\s+CUT\n/);
    // The hand-made sessions record no saved or cut rounds: 0 and 0.
    expect(out).toMatch(/\n\s+1\s+2 \/ 3\s+1 \/ 1\s+2 \/ 2\s+0\s+0\n/);
    expect(out).toMatch(/\n\s+3\s+1 \/ 1\s+0 \/ 0\s+0 \/ 0\s+0\s+0\n/);
    expect(out).not.toContain('PRECISION');
    expect(out).not.toContain('recommend');
  });

  it('table with labels: confusion matrix, rates and the recommendation', async () => {
    const r = await sweep({
      params: [parseParam('tool_batch.max_strikes=1:3:1', SPECS)],
      baseValues: {},
      analyze,
      labels: parseLabels({ loop: 'loop', poll: 'clean', gone: 'loop' }),
      maxFpr: 0,
    });
    const out = renderSweep(r, { format: 'table', color: false });
    expect(out).toMatch(/TP\s+FP\s+TN\s+FN\s+PRECISION\s+RECALL\s+FPR/);
    expect(out).toMatch(/\n\s+1\s+2 \/ 3\s+1 \/ 1\s+2 \/ 2\s+0\s+0\s+1\s+1\s+0\s+0\s+0\.500\s+1\.000\s+1\.000\n/);
    expect(out).toMatch(/\n\s+2\s.*1\s+0\s+1\s+0\s+1\.000\s+1\.000\s+0\.000\s+<- recommended\n/);
    expect(out).toMatch(/\n\s+3\s.*0\s+0\s+1\s+1\s+-\s+0\.000\s+0\.000\n/);
    expect(out).toContain('labels: 1 loop, 1 clean; 0 unlabeled sessions');
    expect(out).toContain('labels that matched no session: gone');
    expect(out).toContain('recommended: tool_batch.max_strikes=2 (recall 1.000, FPR 0.000 <= 0, precision 1.000)');
    expect(out).not.toContain('\u001b');
    expect(renderSweep(r, { format: 'table', color: true })).toContain('\u001b[');
  });

  it('json carries the whole result', async () => {
    const r = await sweep({
      params: [parseParam('tool_batch.max_strikes=1:2:1', SPECS)],
      baseValues: {},
      analyze,
      labels: parseLabels({ loop: 'loop', poll: 'clean' }),
      maxFpr: 0.5,
    });
    const json = JSON.parse(renderSweep(r, { format: 'json', color: true }));
    expect(json.schema).toBe('loopledger/sweep/1');
    expect(json.params).toEqual([{ key: 'tool_batch.max_strikes', values: [1, 2] }]);
    expect(json.points[0].metrics).toEqual({ tp: 1, fp: 1, tn: 0, fn: 0, precision: 0.5, recall: 1, fpr: 1, unlabeled_sessions: 0 });
    expect(json.points[0].positive_sessions).toEqual(['loop', 'poll']);
    expect(json.recommended.values).toEqual({ 'tool_batch.max_strikes': 2 });
    expect(json.max_fpr).toBe(0.5);
  });
});
