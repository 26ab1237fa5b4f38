// tool_cycle: the gap seed 000 names — "A cycle of tool batches, at any period of two or more —
// A → B → A → B, and equally A → A → B repeating."

import { describe, expect, it } from 'vitest';
import { createToolBatchDetector, createToolCycleDetector } from '../../../src/detect/tool-batch/index.js';
import type { Finding } from '../../../src/detect/types.js';
import type { Round } from '../../../src/model/transcript.js';
import { config, createToolBatchDetectors, drive, Rounds, type CallSpec } from './rounds.js';

const BATCHES: Record<string, CallSpec[]> = {
  A: [['edit_file', { path: 'a.ts' }]],
  B: [['bash', { command: 'npm test' }]],
  C: [['read_file', { path: 'b.ts' }]],
  D: [['grep', { q: 'x' }]],
  E: [['ls', {}]],
  F: [['cat', { f: 1 }]],
  G: [['cat', { f: 2 }]],
  H: [['cat', { f: 3 }]],
};

/** Rounds for a pattern like 'ABAB'; answers identical per letter, or changing every round. */
function pattern(r: Rounds, letters: string, answers: 'same' | 'changing' | 'unknown' = 'same'): Round[] {
  return [...letters].map((l, i) =>
    r.batch(BATCHES[l]!, answers === 'unknown' ? null : [answers === 'same' ? `answer ${l}` : `answer ${l} ${i}`]),
  );
}

/** 1-based rounds that reported a tool_cycle, with the period. */
function cycles(out: Finding[][]): Array<[number, number]> {
  const res: Array<[number, number]> = [];
  out.forEach((fs, i) => fs.filter((f) => f.kind === 'tool_cycle').forEach((f) => res.push([i + 1, f.evidence['period'] as number])));
  return res;
}

const run = (rounds: Round[], overrides = {}) => drive(createToolCycleDetector(config(overrides)), rounds);

describe('tool_cycle', () => {
  it('period 2 with identical answers is found when the third full period completes', () => {
    const out = run(pattern(new Rounds(), 'ABABAB'));
    expect(cycles(out)).toEqual([[6, 2]]);
    expect(out[5]![0]).toMatchObject({
      detector: 'tool_batch',
      kind: 'tool_cycle',
      loop: false,
      ambiguous: false,
      confidence: null,
      strike: null,
      excerpts: [],
      evidence: { period: 2, periods: 3, span: 6, distinct_batches: 2, tools: 'edit_file>bash' },
      crossed: [{ statistic: 'cycle_periods', value: 3, threshold: 3 }],
    });
  });

  it('--explain states the enforce line (tool_batch.cycle_enforce_periods) once a cycle reaches it, and only while cycle_enforce acts', () => {
    const crossed = (overrides = {}) =>
      run(pattern(new Rounds(), 'ABABABAB'), overrides)
        .flat()
        .map((f) => f.crossed.map((m) => [m.statistic, m.value, m.threshold]));
    expect(crossed()).toEqual([
      [['cycle_periods', 3, 3]],
      [
        ['cycle_periods', 4, 3],
        ['cycle_periods_enforced', 4, 4],
      ],
    ]);
    expect(crossed({ cycleEnforce: 'noted' })).toEqual([[['cycle_periods', 3, 3]], [['cycle_periods', 4, 3]]]);
  });

  it('period 2 with changing answers is silent (progress in a loop-shaped workflow)', () => {
    expect(cycles(run(pattern(new Rounds(), 'ABABABABABAB', 'changing')))).toEqual([]);
  });

  it('period 3 with identical answers is found', () => {
    expect(cycles(run(pattern(new Rounds(), 'ABCABCABC')))).toEqual([[9, 3]]);
  });

  it('period 3 with changing answers is silent', () => {
    expect(cycles(run(pattern(new Rounds(), 'ABCABCABCABC', 'changing')))).toEqual([]);
  });

  it('A → A → B repeating is found at period 3', () => {
    expect(cycles(run(pattern(new Rounds(), 'AABAABAAB')))).toEqual([[9, 3]]);
  });

  it('period 8 is found within the default window', () => {
    expect(cycles(run(pattern(new Rounds(), 'ABCDEFGH'.repeat(3))))).toEqual([[24, 8]]);
  });

  it('dedup: reported when the repeat count is first reached, then at every further full period only', () => {
    expect(cycles(run(pattern(new Rounds(), 'AB'.repeat(6))))).toEqual([
      [6, 2],
      [8, 2],
      [10, 2],
      [12, 2],
    ]);
  });

  it('a longer multiple of a cycle is not reported again as its own period', () => {
    const out = cycles(run(pattern(new Rounds(), 'AB'.repeat(12))));
    expect(out.every(([, p]) => p === 2)).toBe(true);
  });

  it('one batch repeated is LoopDetector\'s business, not a cycle', () => {
    expect(cycles(run(pattern(new Rounds(), 'AAAAAAAAAA')))).toEqual([]);
  });

  it('a broken stretch starts counting again', () => {
    expect(cycles(run(pattern(new Rounds(), 'ABABA' + 'C' + 'ABABAB')))).toEqual([[12, 2]]);
  });

  it('two repetitions are allowed (repeat count 3); the count is a setting', () => {
    expect(cycles(run(pattern(new Rounds(), 'ABAB')))).toEqual([]);
    expect(cycles(run(pattern(new Rounds(), 'ABAB'), { cycleRepeats: 2 }))).toEqual([[4, 2]]);
  });

  it('the window bounds the periods seen: repeats × period must fit in it', () => {
    const rounds = pattern(new Rounds(), 'ABCDE'.repeat(3));
    expect(cycles(run(rounds, { cycleWindow: 12 }))).toEqual([]);
    expect(cycles(run(rounds, { cycleWindow: 15 }))).toEqual([[15, 5]]);
  });

  it('unknown answers never rescue a cycle', () => {
    expect(cycles(run(pattern(new Rounds(), 'ABABAB', 'unknown')))).toEqual([[6, 2]]);
  });

  it('prose rounds are transparent; a user turn ends the window', () => {
    const r = new Rounds();
    const rounds = [...pattern(r, 'ABA'), r.prose(), ...pattern(r, 'BAB')];
    expect(cycles(run(rounds))).toEqual([[7, 2]]);
    const t = new Rounds();
    const split = pattern(t, 'ABAB');
    t.userTurn();
    split.push(...pattern(t, 'AB'));
    expect(cycles(run(split))).toEqual([]);
  });

  it('leaves LoopDetector untouched: A,B,A,B gives no tool_batch findings', () => {
    const rounds = pattern(new Rounds(), 'AB'.repeat(10));
    expect(drive(createToolBatchDetector(config()), rounds).flat()).toEqual([]);
    const both = createToolBatchDetectors(config());
    const seen = rounds.map((x) => [...both.batch.observe(x).findings, ...both.cycle.observe(x).findings]);
    expect(seen.flat().every((f) => f.kind === 'tool_cycle')).toBe(true);
    expect(cycles(seen).length).toBeGreaterThan(0);
  });

  it('near misses: the strongest period\'s full periods against the repeat count', () => {
    const det = createToolCycleDetector(config());
    const obs = pattern(new Rounds(), 'ABAB').map((x) => det.observe(x).measurements);
    expect(obs[0]).toEqual([]);
    expect(obs[3]).toEqual([
      { detector: 'tool_batch', kind: 'tool_cycle', statistic: 'cycle_periods', value: 2, threshold: 3, direction: 'above' },
    ]);
  });
});
