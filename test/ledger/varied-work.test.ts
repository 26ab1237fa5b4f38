// Issue 21: "no text signal should escalate to `stop` in a turn whose tool batches keep changing and
// whose answers keep changing, unless the text itself is a verbatim loop that dominates the round
// (the `ladder.progress_notes_only` idea, extended from repeated batches with new answers to varied,
// answered work)." Chosen: a round's tool work is varied when its batch, with its answers, is new in
// the turn (WorkNovelty); a text finding there may steer, and past three unheeded steers keeps
// steering instead of stopping, unless it is `dominant` (a chant, a re-emitted paragraph, an
// identical thinking block). `ladder.varied_work_steers_only` (default true) switches it off. A
// confident judge may still stop such a finding (test/judge/audit.test.ts: the review template,
// whose rounds all carry varied_work, is stopped at L2 by a confirming judge).

import { describe, expect, it } from 'vitest';
import { defaultConfigValues } from '../../src/config/registry.js';
import { defaultLadderSettings } from '../../src/ladder/config.js';
import { EnforceLadder } from '../../src/ladder/ladder.js';
import { LedgerBuilder } from '../../src/ledger/build.js';
import { createDetectorFactories } from '../../src/ledger/detectors.js';
import type { SessionLedger } from '../../src/ledger/types.js';
import type { Round } from '../../src/model/transcript.js';
import { prose } from '../detect/output/corpus.js';
import { finding } from './fakes.js';

describe('the ladder: varied, answered work caps text at steer unless it dominates', () => {
  const levels = (make: () => ReturnType<typeof finding>, over = {}) => {
    const l = new EnforceLadder({ ...defaultLadderSettings(), ...over });
    return Array.from({ length: 6 }, () => l.decide([make()])[0]!.level);
  };

  it('a non-dominant text finding beside varied work keeps steering', () => {
    expect(levels(() => finding('output', 'exact_block', { variedWork: true, dominant: false }))).toEqual(Array(6).fill('steer'));
    expect(levels(() => finding('thinking', 'thinking_stagnation', { variedWork: true }))).toEqual(Array(6).fill('steer'));
  });

  it('a dominant one (a verbatim loop filling its round) still stops after three unheeded steers', () => {
    expect(levels(() => finding('output', 'exact_block', { variedWork: true, dominant: true }))).toEqual(['steer', 'steer', 'steer', 'stop', 'none', 'none']);
  });

  it('without varied work, or with ladder.varied_work_steers_only off, the ladder is the seed\'s', () => {
    expect(levels(() => finding('output', 'exact_block', { dominant: false }))).toEqual(['steer', 'steer', 'steer', 'stop', 'none', 'none']);
    expect(levels(() => finding('output', 'exact_block', { variedWork: true }), { variedWorkSteersOnly: false })).toEqual([
      'steer',
      'steer',
      'steer',
      'stop',
      'none',
      'none',
    ]);
  });

  it('a tool-batch loop is not text: varied work never holds it back', () => {
    expect(levels(() => finding('tool_batch', 'repeated_batch', { loop: true, variedWork: true }))[0]).toBe('stop');
  });
});

/** One turn through the real detectors: each round's text, tool call and answer. */
function turn(rounds: readonly { text: string; call: string; answer: string; thinking?: string }[], config = {}): SessionLedger {
  const b = new LedgerBuilder({ config: { ...defaultConfigValues(), ...config }, factories: createDetectorFactories() });
  b.session({ id: 'w', path: 'w.jsonl', format: 'canonical', parent: null });
  b.turn('w', 1, 1);
  rounds.forEach((r, i) => {
    const round: Round = {
      turn: 1,
      index: i + 1,
      line: i + 2,
      text: r.text,
      thinking: r.thinking ? [{ text: r.thinking, opaque: false }] : [],
      calls: [{ id: `c${i}`, name: 'search_logs', arguments: { query: r.call } }],
      answers: [{ content: r.answer, isError: false }],
      usage: null,
      model: 'test-model',
      timestamp: null,
    };
    b.round('w', round);
  });
  b.end('w');
  return b.sessions()[0]!;
}

describe('through the ledger and the real detectors', () => {
  const PHRASE = 'the migration script has to run before the service restarts';
  /** Seed 002's "irregular verbatim phrase repetition" inside each round: an exact block, but a small part of its round. */
  const chatty = (i: number) =>
    [prose(10 + i, 180), prose(20 + i, 300), prose(30 + i, 120), prose(40 + i, 240)].map((p) => `${p.trim()} Remember that ${PHRASE}.`).join('\n\n');

  it('text that repeats inside each round while searches and answers change: steers, never stops', () => {
    const s = turn(Array.from({ length: 7 }, (_, i) => ({ text: chatty(i), call: `query ${i}`, answer: `${i} matches` })));
    const text = s.entries.filter((e) => e.detector === 'output');
    expect(text.length).toBeGreaterThanOrEqual(4);
    expect(text.every((e) => e.evidence['varied_work'] === true && e.evidence['dominant'] === false)).toBe(true);
    expect(s.outcome.enforce.steers).toBeGreaterThanOrEqual(4);
    expect(s.outcome.enforce.stops).toEqual([]);
    // Switched off, the same turn stops after three unheeded steers.
    const off = turn(Array.from({ length: 7 }, (_, i) => ({ text: chatty(i), call: `query ${i}`, answer: `${i} matches` })), {
      'ladder.varied_work_steers_only': false,
    });
    expect(off.outcome.enforce.stops).toHaveLength(1);
  });

  it('the same text while the same search keeps getting the same answer is not varied work: it stops', () => {
    const s = turn(Array.from({ length: 7 }, (_, i) => ({ text: chatty(i), call: i % 2 === 0 ? 'timeout' : 'refused', answer: 'no matches' })));
    // An A-B-A-B alternation with answers that repeat: from the third round on nothing is new.
    expect(s.outcome.enforce.stops).toHaveLength(1);
    const stop = s.entries.find((e) => e.intervention.enforce === 'stop')!;
    expect(stop.detector).toBe('output');
    expect(stop.evidence['varied_work']).toBeUndefined();
  });

  it('a paragraph re-emitted whole while the searches change dominates its round: it still stops (loop-chant-export)', () => {
    const para =
      'The nightly export failed because the job could not reach the reporting database before its connection timeout expired, ' +
      'so the export step never started and no files were written to the bucket. I will look through the logs to find where the connection was refused.';
    const s = turn(Array.from({ length: 7 }, (_, i) => ({ text: para, call: `query ${i}`, answer: `${i} lines` })));
    expect(s.outcome.enforce.stops).toHaveLength(1);
    const stop = s.entries.find((e) => e.intervention.enforce === 'stop')!;
    expect(stop.evidence).toMatchObject({ varied_work: true, dominant: true });
  });

  it('an identical thinking block while the calls change is a verbatim loop of the reasoning: it still stops', () => {
    const thought = 'The hit rate falls after each deploy because new pods start cold. I should confirm it with the metrics for the warm-up window before changing anything.';
    const s = turn(Array.from({ length: 6 }, (_, i) => ({ text: '', thinking: thought, call: `window ${i}`, answer: `mean 0.${40 + i}` })));
    expect(s.outcome.enforce.stops).toHaveLength(1);
  });
});
