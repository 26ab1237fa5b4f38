// The ledger over the real tool-batch detector (the text detectors stay scripted fakes).

import { describe, expect, it } from 'vitest';
import { defaultConfigValues } from '../../src/config/registry.js';
import { createToolBatchDetector, createToolCycleDetector } from '../../src/detect/tool-batch/index.js';
import type { DetectorFactories } from '../../src/ledger/build.js';
import { build, fakeDetectors, type RoundSpec } from './fakes.js';

function realToolBatch(): DetectorFactories {
  const fakes = fakeDetectors();
  return {
    ...fakes.factories,
    toolBatch: (c) => createToolBatchDetector(c.toolBatch),
    toolCycle: (c) => createToolCycleDetector(c.toolBatch),
  };
}

const edit: RoundSpec = { calls: [{ id: 'c', name: 'edit_file', arguments: { path: 'a.ts' } }] };

describe('ledger over the real tool-batch detector', () => {
  it('"max_strikes = 2 allows two identical batches and errors on the third": the third is a stop', () => {
    const { ledger } = build({ factories: realToolBatch() }, [[edit, edit, edit, edit]], defaultConfigValues());
    expect(ledger.entries.map((e) => [e.round, e.kind, e.intervention.enforce, e.after_stop])).toEqual([
      [2, 'repeated_batch', 'noted', false],
      [3, 'repeated_batch', 'stop', false],
      [4, 'repeated_batch', 'none', true],
    ]);
    expect(ledger.entries[1]!.finalization_reason).toBe('loop_detected');
    expect(ledger.outcome.enforce.stops).toEqual([{ turn: 1, round: 3 }]);
  });

  it('"A user turn ends a run explicitly" in both scopes', () => {
    for (const scope of ['turn', 'replay']) {
      const { ledger } = build({ factories: realToolBatch() }, [[edit, edit], [edit, edit]], {
        ...defaultConfigValues(),
        scope,
      });
      expect(ledger.entries.map((e) => e.intervention.enforce)).toEqual(['noted', 'noted']);
      expect(ledger.outcome.enforce.stops).toEqual([]);
    }
  });
});
