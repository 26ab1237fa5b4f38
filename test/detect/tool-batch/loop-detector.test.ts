// Seed 000 (the LoopDetector doc page), one test per behaviour-fixing sentence, quoted.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  answersDigest,
  batchSignature,
  createToolBatchDetector,
  LoopDetector,
} from '../../../src/detect/tool-batch/index.js';
import type { Round } from '../../../src/model/transcript.js';
import { config, drive, firstLoop, Rounds, stops, type CallSpec } from './rounds.js';

const WRITE: CallSpec[] = [['write_file', { path: 'a.txt', content: 'x' }]];
const BUILD: CallSpec[] = [['bash', { command: 'cargo test' }]];
const SNAPSHOT: CallSpec[] = [['browser_snapshot', {}]];
const SEARCH: CallSpec[] = [['web_search', { q: 'loop' }]];

/** `n` occurrences of one batch; answers identical, changing (`out 1`, `out 2`, …) or unknown. */
function repeat(r: Rounds, calls: CallSpec[], n: number, answers: 'same' | 'changing' | 'unknown'): Round[] {
  return Array.from({ length: n }, (_, i) =>
    r.batch(calls, answers === 'unknown' ? null : calls.map(() => (answers === 'same' ? 'out' : `out ${i + 1}`))),
  );
}

function run(rounds: Round[], overrides: Parameters<typeof config>[0] = {}) {
  return drive(createToolBatchDetector(config(overrides)), rounds);
}

describe('seed 000: the count', () => {
  it('"max_strikes = 2 allows two identical batches and errors on the third"', () => {
    const out = run(repeat(new Rounds(), WRITE, 3, 'same'));
    expect(stops(out)).toEqual([3]);
    const loop = firstLoop(out)!.finding;
    expect(loop.kind).toBe('repeated_batch');
    expect(loop.strike).toEqual({ count: 3, threshold: 2, total: 3, ceiling: 15, read_only: false });
  });

  it('"and max_strikes = 0 rejects the very first occurrence"', () => {
    const out = run(repeat(new Rounds(), WRITE, 1, 'same'), { maxStrikes: 0 });
    expect(stops(out)).toEqual([1]);
    expect(firstLoop(out)!.finding.strike).toMatchObject({ count: 1, threshold: 0 });
  });

  it('"The count is incremented before the comparison" (max_strikes = 1 errors on the second)', () => {
    expect(stops(run(repeat(new Rounds(), WRITE, 2, 'same'), { maxStrikes: 1 }))).toEqual([2]);
  });

  it('every strike is a finding, so a reader sees the run building up', () => {
    const out = run(repeat(new Rounds(), WRITE, 3, 'same'));
    expect(out[0]).toEqual([]);
    expect(out[1]).toHaveLength(1);
    expect(out[1]![0]).toMatchObject({
      detector: 'tool_batch',
      kind: 'repeated_batch',
      loop: false,
      confidence: null,
      ambiguous: false,
      crossed: [],
      excerpts: [],
      strike: { count: 2, threshold: 2, total: 2, ceiling: 15, read_only: false },
    });
    expect(out[2]![0]!.crossed.map((m) => m.statistic)).toEqual(['count']);
  });

  it('evidence carries statistics, never argument values or results', () => {
    const r = new Rounds();
    const calls: CallSpec[] = [['write_file', { path: 'SECRET_PATH', content: 'SECRET_BODY' }]];
    const rounds = [1, 2, 3].map(() => r.batch(calls, ['SECRET_RESULT']));
    const text = JSON.stringify(run(rounds));
    expect(text).not.toMatch(/SECRET/);
    expect(run(rounds.map((x) => ({ ...x })))[2]![0]!.evidence).toMatchObject({ calls: 1, tools: 'write_file' });
  });

  it('near misses: count against the first count that errors, total against the first total past the ceiling', () => {
    const det = createToolBatchDetector(config());
    const r = new Rounds();
    det.observe(r.batch(WRITE, ['a']));
    const obs = det.observe(r.batch(WRITE, ['a']));
    expect(obs.measurements).toEqual([
      { detector: 'tool_batch', kind: 'repeated_batch', statistic: 'count', value: 2, threshold: 3, direction: 'above' },
      { detector: 'tool_batch', kind: 'ceiling', statistic: 'total', value: 2, threshold: 16, direction: 'above' },
    ]);
  });
});

describe('seed 000: run-length counting', () => {
  it('"Counting is run-length, not session-wide: only the current unbroken run of one signature is held, and a batch with a different signature discards it" (A,B,A,B never stops)', () => {
    const r = new Rounds();
    const rounds = Array.from({ length: 40 }, (_, i) => r.batch(i % 2 === 0 ? WRITE : BUILD, ['same']));
    expect(stops(run(rounds))).toEqual([]);
  });

  it('"A batch with a different signature resets the run to one" (A,A,B,B,B stops at the fifth, not the third)', () => {
    const r = new Rounds();
    const rounds = [r.batch(WRITE), r.batch(WRITE), r.batch(BUILD), r.batch(BUILD), r.batch(BUILD)];
    const out = run(rounds);
    expect(stops(out)).toEqual([5]);
    expect(out[2]).toEqual([]);
  });

  it('"The run breaks on signature, before answers are ever consulted, so reading them changes nothing about this" (A→A→B repeating never stops)', () => {
    const r = new Rounds();
    const rounds = Array.from({ length: 30 }, (_, i) => r.batch(i % 3 === 2 ? BUILD : WRITE, ['same']));
    expect(stops(run(rounds))).toEqual([]);
  });

  it('"Both call sites skip this method when the batch is empty, so a prose answer and a role: "tool" result are transparent"', () => {
    const r = new Rounds();
    const rounds = [r.batch(WRITE), r.prose(), r.batch(WRITE), r.prose(), r.prose(), r.batch(WRITE)];
    expect(stops(run(rounds))).toEqual([6]);
  });

  it('"A user turn ends a run explicitly" (a user turn between repeats prevents a stop)', () => {
    const r = new Rounds();
    const rounds = [r.batch(WRITE), r.batch(WRITE)];
    r.userTurn();
    rounds.push(r.batch(WRITE), r.batch(WRITE));
    expect(stops(run(rounds))).toEqual([]);
  });

  it('break_run: "Forget the current run, as a user turn does"', () => {
    const det = createToolBatchDetector(config());
    const r = new Rounds();
    det.observe(r.batch(WRITE));
    det.observe(r.batch(WRITE));
    det.breakRun();
    expect(det.observe(r.batch(WRITE)).findings).toEqual([]);
    expect(det.observe(r.batch(WRITE)).findings.some((f) => f.loop)).toBe(false);
    expect(det.observe(r.batch(WRITE)).findings.some((f) => f.loop)).toBe(true);
  });

  it('break_run "Resets the read-only allowance with the strike count"', () => {
    const det = createToolBatchDetector(config());
    const r = new Rounds();
    const first = repeat(r, BUILD, 15, 'changing');
    const second = repeat(r, BUILD, 15, 'changing');
    expect(stops(drive(det, first))).toEqual([]);
    det.breakRun();
    expect(stops(drive(det, second))).toEqual([]);
  });
});

describe('seed 000: result-aware strikes', () => {
  it('"Within a run, an occurrence is a strike only when its answers matched the previous occurrence\'s"', () => {
    const r = new Rounds();
    const out = run([r.batch(WRITE, ['a']), r.batch(WRITE, ['b']), r.batch(WRITE, ['b']), r.batch(WRITE, ['b'])]);
    expect(out[1]).toEqual([]); // changed: not a strike
    expect(out[2]![0]!.strike).toMatchObject({ count: 2, total: 3 });
    expect(stops(out)).toEqual([4]);
  });

  it('"The same call with a different answer is progress that happens to look alike — an agent polling a build for output issues an identical batch every time"', () => {
    const out = run(repeat(new Rounds(), BUILD, 15, 'changing'));
    expect(out.flat()).toEqual([]);
  });

  it('"A changed answer restarts the run" (max_strikes 3: a, a, b, b, b, b stops at the sixth, not the fourth)', () => {
    const r = new Rounds();
    const answers = ['a', 'a', 'b', 'b', 'b', 'b'];
    const out = run(answers.map((a) => r.batch(WRITE, [a])), { maxStrikes: 3 });
    expect(stops(out)[0]).toBe(6);
    expect(firstLoop(out)!.finding.strike).toMatchObject({ count: 4, total: 6 });
  });

  it('the verdict precedes the answers: the third identical-looking batch stops after two matching answers, whatever it gets back', () => {
    const r = new Rounds();
    expect(stops(run([r.batch(WRITE, ['a']), r.batch(WRITE, ['a']), r.batch(WRITE, ['b'])]))).toEqual([3]);
  });

  it('"Unknown answers never rescue a run": three unanswered identical batches stop at the third', () => {
    const out = run(repeat(new Rounds(), WRITE, 3, 'unknown'));
    expect(stops(out)).toEqual([3]);
    expect(firstLoop(out)!.finding.kind).toBe('repeated_batch');
  });

  it('"answers is None when the batch was unanswered or only partly answered": a partly answered batch is unknown', () => {
    const r = new Rounds();
    const calls: CallSpec[] = [['write_file', { p: 1 }], ['bash', { c: 'ls' }]];
    // The transcript model gives null answers for a batch with any call unanswered.
    const rounds = [r.batch(calls, ['a', 'b']), r.batch(calls, null), r.batch(calls, ['c', 'd'])];
    expect(stops(run(rounds))).toEqual([3]);
  });

  it('an unknown answer between two known ones is not evidence of a change either way', () => {
    const r = new Rounds();
    const rounds = [r.batch(WRITE, ['a']), r.batch(WRITE, null), r.batch(WRITE, ['z'])];
    expect(stops(run(rounds))).toEqual([3]);
  });

  it('"It is also what makes a detector that is never told anything behave exactly as it did before it could be" (unknown answers = pure run-length counting)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 40 }), fc.integer({ min: 0, max: 4 }), (seq, maxStrikes) => {
        const r = new Rounds();
        const batches = [WRITE, BUILD, SEARCH];
        const rounds = seq.map((k) => r.batch(batches[k]!, null));
        // The seed's count before results were read: the run length of one signature.
        const expected: number[] = [];
        let len = 0;
        seq.forEach((k, i) => {
          len = i > 0 && seq[i - 1] === k ? len + 1 : 1;
          if (len > maxStrikes) expected.push(i + 1);
        });
        expect(stops(run(rounds, { maxStrikes }))).toEqual(expected);
      }),
    );
  });
});

describe('seed 000: the read-only tier and the ceiling', () => {
  it('"Selects the effective threshold by batch classification: if every call matches an observation pattern … max_observation_steps is used"', () => {
    const out = run(repeat(new Rounds(), SNAPSHOT, 3, 'same'));
    expect(stops(out)).toEqual([]);
    expect(out[2]![0]!.strike).toEqual({ count: 3, threshold: 15, total: 3, ceiling: null, read_only: true });
  });

  it('"Otherwise max_strikes": one mutating call makes the batch mutating', () => {
    const calls: CallSpec[] = [['browser_snapshot'], ['write_file', { p: 1 }]];
    expect(stops(run(repeat(new Rounds(), calls, 3, 'same')))).toEqual([3]);
  });

  it('SPEC: observation patterns match "case-insensitively when equal to it or ending with it after a separator"', () => {
    const calls: CallSpec[] = [['mcp__Browser__TAKE_SCREENSHOT'], ['Navigate']];
    const out = run(repeat(new Rounds(), calls, 3, 'same'));
    expect(stops(out)).toEqual([]);
    expect(out[2]![0]!.strike!.read_only).toBe(true);
  });

  it('"Sixteen identical answers in a row to a read-only batch is still a loop by this detector\'s definition"', () => {
    const out = run(repeat(new Rounds(), SNAPSHOT, 16, 'same'));
    expect(stops(out)).toEqual([16]);
    expect(firstLoop(out)!.finding).toMatchObject({ kind: 'repeated_batch', strike: { count: 16, threshold: 15 } });
  });

  it('"Read-only batches are exempt anyway": a read-only batch with changing answers never stops', () => {
    expect(stops(run(repeat(new Rounds(), SNAPSHOT, 100, 'changing')))).toEqual([]);
  });

  it('"except where it changes nothing only here, which is_costly_batch withholds the waiver from": a costly read-only batch with changing answers stops at 16', () => {
    const calls: CallSpec[] = [['paid_api_snapshot', {}]];
    const out = run(repeat(new Rounds(), calls, 20, 'changing'), { costlyTools: ['paid_api_snapshot'] });
    expect(stops(out)[0]).toBe(16);
    expect(firstLoop(out)!.finding).toMatchObject({
      kind: 'ceiling',
      strike: { count: 2, threshold: 15, total: 16, ceiling: 15, read_only: true },
    });
  });

  it('"Everything else keeps a ceiling: a batch that changes something may be carried by changing answers only while the run stays inside the read-only allowance, max_observation_steps" (stops at 16, not 15)', () => {
    const out = run(repeat(new Rounds(), BUILD, 16, 'changing'));
    expect(stops(out)).toEqual([16]);
    // count 2: the count at the verdict, incremented before the comparison and before this
    // occurrence's answers could restart it.
    expect(firstLoop(out)!.finding).toMatchObject({
      kind: 'ceiling',
      loop: true,
      strike: { count: 2, threshold: 2, total: 16, ceiling: 15, read_only: false },
    });
  });

  it('"Reusing that number rather than inventing one is deliberate" (the ceiling follows max_observation_steps)', () => {
    expect(stops(run(repeat(new Rounds(), BUILD, 8, 'changing'), { maxObservationSteps: 5 }))[0]).toBe(6);
  });

  it('"With max_observation_steps: None the tier is off: no batch is exempt, the ceiling collapses to max_strikes … for read-only batches too": the third snapshot stops even with changing answers', () => {
    const out = run(repeat(new Rounds(), SNAPSHOT, 3, 'changing'), { maxObservationSteps: null });
    expect(stops(out)).toEqual([3]);
    expect(firstLoop(out)!.finding).toMatchObject({
      kind: 'ceiling',
      strike: { count: 2, threshold: 2, total: 3, ceiling: 2, read_only: true },
    });
  });

  it('"falling back to max_strikes when None": identical snapshots stop at the third', () => {
    const out = run(repeat(new Rounds(), SNAPSHOT, 3, 'same'), { maxObservationSteps: null });
    expect(firstLoop(out)).toMatchObject({ at: 3, finding: { kind: 'repeated_batch' } });
  });

  it('"since total >= count that subsumes the strike count and leaves behaviour exactly as it was before results were read at all"', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })), { maxLength: 30 }),
        fc.integer({ min: 0, max: 4 }),
        (seq, maxStrikes) => {
          const batches = [WRITE, SNAPSHOT, SEARCH];
          const known = new Rounds();
          const withAnswers = seq.map(([k, a]) => known.batch(batches[k]!, [`answer ${a}`]));
          const blind = new Rounds();
          const withoutAnswers = seq.map(([k]) => blind.batch(batches[k]!, null));
          const opts = { maxStrikes, maxObservationSteps: null };
          expect(stops(run(withAnswers, opts))).toEqual(stops(run(withoutAnswers, opts)));
        },
      ),
    );
  });

  it('"The ceiling is never tighter than max_strikes, so lowering the read-only allowance cannot make the guard refuse a mutating batch earlier than its own threshold says"', () => {
    const opts = { maxObservationSteps: 1, maxStrikes: 3 };
    const changing = run(repeat(new Rounds(), BUILD, 5, 'changing'), opts);
    expect(stops(changing)[0]).toBe(4);
    expect(firstLoop(changing)!.finding).toMatchObject({ kind: 'ceiling', strike: { ceiling: 3, total: 4 } });
    expect(stops(run(repeat(new Rounds(), BUILD, 5, 'same'), opts))[0]).toBe(4);
  });

  it('the lowered allowance still applies to read-only batches themselves (max_observation_steps = 1)', () => {
    expect(stops(run(repeat(new Rounds(), SNAPSHOT, 2, 'same'), { maxObservationSteps: 1, maxStrikes: 3 }))).toEqual([2]);
  });
});

describe('seed 000: signatures and answers in canonical order', () => {
  it('reordered calls and reordered argument keys are one signature (one run)', () => {
    const r = new Rounds();
    const rounds = [
      r.batch([['write_file', { path: 'a', content: 'b' }], ['bash', { command: 'ls', cwd: '/' }]], ['w', 'l']),
      r.batch([['bash', { cwd: '/', command: 'ls' }], ['write_file', { content: 'b', path: 'a' }]], ['l', 'w']),
      r.batch([['write_file', { content: 'b', path: 'a' }], ['bash', { command: 'ls', cwd: '/' }]], ['w', 'l']),
    ];
    expect(stops(run(rounds))).toEqual([3]);
  });

  it('"a reordered batch with the same answers is the same occurrence", but swapped answers are a change', () => {
    const r = new Rounds();
    const rounds = [
      r.batch([['write_file', { p: 1 }], ['bash', { c: 2 }]], ['w', 'l']),
      // Same calls reordered, answers now belong to the other call: a different answer.
      r.batch([['bash', { c: 2 }], ['write_file', { p: 1 }]], ['w', 'l']),
      r.batch([['bash', { c: 2 }], ['write_file', { p: 1 }]], ['w', 'l']),
    ];
    expect(stops(run(rounds))).toEqual([]);
  });

  it('LoopDetector API: check, record_results, break_run', () => {
    const d = new LoopDetector();
    const calls = [{ id: null, name: 'write_file', arguments: { a: 1 } }];
    const ans = answersDigest(batchSignature(calls), [{ content: 'ok', isError: false }]);
    const first = d.check(calls, 2, ['snapshot'], 15);
    expect(first.loop).toBe(false);
    expect(d.recordResults(first.record, ans)).toBe('first');
    const second = d.check(calls, 2, ['snapshot'], 15);
    expect(d.recordResults(second.record, ans)).toBe('repeated');
    // A record from an earlier occurrence is stale once the run moved on.
    expect(d.recordResults(first.record, 'other')).toBe('stale');
    const third = d.check(calls, 2, ['snapshot'], 15);
    expect(third).toMatchObject({ loop: true, kind: 'repeated_batch' });
    d.breakRun();
    expect(d.check(calls, 2, ['snapshot'], 15).record.count).toBe(1);
  });

  it('an error result differs from the same text as a success', () => {
    const calls = [{ id: null, name: 'bash', arguments: {} }];
    const b = batchSignature(calls);
    expect(answersDigest(b, [{ content: 'x', isError: true }])).not.toBe(answersDigest(b, [{ content: 'x', isError: false }]));
    expect(answersDigest(b, null)).toBeNull();
  });
});
