// The observation_tools rules are compiled once per run, not once per file (issue 30: on a store of
// 2,000 files the ledger's "what a stop cuts" compiled its read list again for every file, ~4% of
// the lane's CPU, and lost its cache of classified commands with it). The classifier a compile
// returns is kept per list object, so the number of distinct classifiers is the number of compiles.

import { afterAll, describe, expect, it, vi } from 'vitest';
import type * as Patterns from '../../src/detect/tool-batch/patterns.js';
import type * as Audit from '../../src/run/audit.js';

const classifiers = new Set<unknown>();

// Unit files share one module cache (isolate: false): the spy is put in place for a fresh copy of
// the modules, imported below, and taken away after.
vi.resetModules();
vi.doMock('../../src/detect/tool-batch/patterns.js', async (importOriginal) => {
  const original = await importOriginal<typeof Patterns>();
  return {
    ...original,
    compileObservationPatterns: (patterns: readonly string[]) => {
      const classifier = original.compileObservationPatterns(patterns);
      classifiers.add(classifier);
      return classifier;
    },
  };
});
const { audit } = (await import('../../src/run/audit.js')) as typeof Audit;

afterAll(() => {
  vi.doUnmock('../../src/detect/tool-batch/patterns.js');
  vi.resetModules();
});

describe('observation rules: one compile per list for the whole run', () => {
  it('auditing many files compiles observation_tools and the no_progress read list once each', async () => {
    const report = await audit(['fixtures/claude-code', 'fixtures/codex', 'fixtures/gemini'], { jobs: 1, pricing: false });
    expect(report.inputs.length).toBeGreaterThan(5);
    // Two lists: observation_tools (the loop detector's read-only tier) and observation_tools +
    // no_progress_read_tools (no_progress and the cut). Per file, it was one more per file.
    expect(classifiers.size).toBe(2);
  });
});
