// WorkNovelty: a round's tool work is new in its turn when its batch, with its answers, is (issue
// 21's "a turn whose tool batches keep changing and whose answers keep changing").

import { describe, expect, it } from 'vitest';
import { RoundDigester } from '../../../src/detect/tool-batch/digest.js';
import { createToolBatchDetector } from '../../../src/detect/tool-batch/index.js';
import { WorkNovelty } from '../../../src/detect/tool-batch/novelty.js';
import type { Novelty } from '../../../src/detect/types.js';
import { config, Rounds } from './rounds.js';

/** The answer, asked now where the detector deferred it (it is asked only when a text finding needs it). */
function told(n: Novelty | undefined): boolean | undefined {
  return typeof n === 'function' ? n() : n;
}

function novelties(batches: readonly [string, string | null][]): (boolean | undefined)[] {
  const n = new WorkNovelty();
  const d = new RoundDigester();
  const r = new Rounds();
  return batches.map(([cmd, answer]) => told(n.observe(d.digest(r.batch([['bash', { cmd }]], answer === null ? null : [answer])))));
}

describe('WorkNovelty', () => {
  it('a batch the turn has not run is new; the same batch with the same answer is not', () => {
    expect(novelties([['ls', 'a'], ['cat x', 'b'], ['ls', 'a']])).toEqual([true, true, false]);
  });

  it('the same batch with an answer none of its recent runs got is new (a test run whose failures move)', () => {
    expect(novelties([['npm test', '3 failed'], ['edit', 'ok'], ['npm test', '2 failed'], ['edit 2', 'ok'], ['npm test', '2 failed']])).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it('unknown answers are not evidence of progress', () => {
    expect(novelties([['ls', 'a'], ['ls', null]])).toEqual([true, false]);
    expect(novelties([['ls', null], ['ls', 'a']])).toEqual([true, false]);
  });

  it('a batch last run more than eight batches back is new work again', () => {
    const seq: [string, string][] = [['ls', 'a']];
    for (let i = 0; i < 8; i++) seq.push([`cat ${i}`, 'x']);
    seq.push(['ls', 'a']);
    expect(novelties(seq).at(-1)).toBe(true);
  });

  it('a snapshot restores the same answers to compare with', () => {
    const d = new RoundDigester();
    const r = new Rounds();
    const a = new WorkNovelty();
    a.observe(d.digest(r.batch([['npm test']], ['2 failed'])));
    const b = new WorkNovelty();
    b.restore(JSON.parse(JSON.stringify(a.snapshot())));
    expect(told(b.observe(d.digest(r.batch([['npm test']], ['2 failed']))))).toBe(false);
    expect(told(b.observe(d.digest(r.batch([['npm test']], ['1 failed']))))).toBe(true);
  });

  it('the tool-batch detector reports it per round and forgets it at a new turn', () => {
    const det = createToolBatchDetector(config());
    const r = new Rounds();
    expect(told(det.observe(r.batch([['ls']])).novel)).toBe(true);
    expect(told(det.observe(r.batch([['ls']])).novel)).toBe(false);
    r.userTurn();
    expect(told(det.observe(r.batch([['ls']])).novel)).toBe(true);
    // A round without calls has no tool work.
    expect(det.observe(r.prose()).novel).toBeUndefined();
  });
});

describe('WorkNovelty defers the answer comparison', () => {
  it('a repeated batch hashes no answers until its novelty is asked, and tells the same answer late', () => {
    const n = new WorkNovelty();
    const d = new RoundDigester();
    const r = new Rounds();
    n.observe(d.digest(r.batch([['bash', { cmd: 'make' }]], ['1 failed'])));
    const repeat = n.observe(d.digest(r.batch([['bash', { cmd: 'make' }]], ['2 failed'])));
    expect(typeof repeat).toBe('function');
    // Later rounds (the same batch, answered like the first) do not change what this round was.
    n.observe(d.digest(r.batch([['bash', { cmd: 'make' }]], ['1 failed'])));
    expect(told(repeat)).toBe(true);
  });
});
