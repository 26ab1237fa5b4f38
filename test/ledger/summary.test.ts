import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/ledger/summary.js';
import type { InputSummary } from '../../src/formats/input.js';
import { build, fakeDetectors, repeatingOutput, same } from './fakes.js';

/** No rounds prevented (or none of this part): zero in every figure, and no session. */
const ZERO = { rounds: 0, tokens: 0, usd: 0, unpriced_sessions: 0, sessions: 0 };

describe('assembleReport', () => {
  it('wraps sessions in the loopledger/1 envelope with summary counts', () => {
    const stopped = build(fakeDetectors({ output: repeatingOutput() }), [same(6)]).ledger;
    const steered = { ...build(fakeDetectors({ output: repeatingOutput() }), [same(2)]).ledger, id: 's2' };
    const quiet = { ...build(fakeDetectors(), [same(3)]).ledger, id: 's3' };
    const inputs: InputSummary[] = [
      // Only the first skipped lines are kept (SPEC: the first 100); the count is exact.
      { path: 'a.jsonl', format: 'canonical', sessions: 3, lines: 3000, skipped: [{ line: 4, reason: 'malformed JSON' }, { line: 9, reason: 'truncated' }], skipped_lines: 2500 },
      { path: 'b.jsonl', format: 'canonical', sessions: 0, lines: 7, skipped: [{ line: 1, reason: 'malformed JSON' }], skipped_lines: 1 },
    ];
    const report = assembleReport({ version: '1.2.3', config: { 'z.key': 1, mode: 'telemetry' }, inputs, sessions: [stopped, steered, quiet] });
    expect(report.schema).toBe('loopledger/1');
    expect(report.tool).toEqual({ name: 'loopledger', version: '1.2.3' });
    expect(report.config).toEqual({ 'z.key': 1, mode: 'telemetry' });
    expect(report.summary).toEqual({
      sessions: 3,
      rounds: 11,
      entries: stopped.entries.length + steered.entries.length,
      skipped_lines: 2501,
      // The fake rounds record no usage: no session can be priced, and none counts as costing 0.
      enforce: { sessions_stopped: 1, sessions_steered: 2, saved: { rounds: 1, tokens: null, usd: null, unpriced_sessions: 1, sessions: 1 }, cut: ZERO },
      cost: { usd: null, unpriced_sessions: 3 },
      judge: { requests: 0, input_tokens: 0, output_tokens: 0, cached: 0, failed: 0 },
      // One text loop in two sessions: rounds 2-6 of s1 and round 2 of s2 repeat; no usage, so no tokens or dollars.
      loop_shapes: [
        {
          shape: 'near_repetition',
          detector: 'output',
          kind: 'near_repetition',
          sessions: 2,
          rounds: 6,
          tokens: null,
          usd: null,
          example: { id: 's1', path: 'a.jsonl', project: null, rounds: 5, tokens: null, usd: null },
        },
      ],
    });
    expect(report.sessions.map((s) => s.id)).toEqual(['s1', 's2', 's3']);
  });

  it('an empty run is a valid report', () => {
    const report = assembleReport({ version: '0', config: {}, inputs: [], sessions: [] });
    expect(report.summary).toEqual({
      sessions: 0,
      rounds: 0,
      entries: 0,
      skipped_lines: 0,
      enforce: { sessions_stopped: 0, sessions_steered: 0, saved: ZERO, cut: ZERO },
      cost: { usd: 0, unpriced_sessions: 0 },
      judge: { requests: 0, input_tokens: 0, output_tokens: 0, cached: 0, failed: 0 },
      loop_shapes: [],
    });
  });
});
