// SPEC 0.2: "`recurring_failure` (tool_batch, session scope, noted only: seed 000 forbids a
// session-wide tally as a verdict): the same tool answered with the same error three or more times
// in one session, across user turns, whatever the arguments." Seed 000: "A session-wide tally made
// any long conversation terminal — a client replays the whole history every turn, so a batch that
// recurred often enough anywhere in the session was rejected on every subsequent request for the
// rest of it."

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfigValues } from '../../../src/config/registry.js';
import type { ConfigValues } from '../../../src/config/spec.js';
import {
  answerDigest,
  answerFailed,
  createRecurringFailureDetector,
  RecurringFailureTracker,
} from '../../../src/detect/tool-batch/index.js';
import type { Finding } from '../../../src/detect/types.js';
import { LedgerBuilder } from '../../../src/ledger/build.js';
import { createDetectorFactories } from '../../../src/ledger/detectors.js';
import type { Round } from '../../../src/model/transcript.js';
import { drive, Rounds, type CallSpec } from './rounds.js';

const DEPLOY = (env: string): CallSpec[] => [['deploy', { env, tag: 'v2.8.1' }]];
const QUOTA = 'quota exceeded: project billing-prod has no remaining deploy slots this hour';

function ledger(rounds: Round[], values: ConfigValues = defaultConfigValues()) {
  const b = new LedgerBuilder({ config: values, factories: createDetectorFactories() });
  b.session({ id: 's', path: 's.jsonl', format: 'canonical', parent: null });
  let turn = 0;
  for (const round of rounds) {
    if (round.turn !== turn) b.turn('s', (turn = round.turn), null);
    b.round('s', round);
  }
  b.end('s');
  return b.sessions()[0]!;
}

/** The case: the same failing call, each time after a user message. */
function acrossTurns(n: number, r = new Rounds()): Round[] {
  const out: Round[] = [];
  for (let i = 0; i < n; i += 1) {
    if (i > 0) r.userTurn();
    out.push(r.batch(DEPLOY('prod'), [QUOTA], true));
    out.push(r.prose('The deploy failed: the project is out of deploy slots.'));
  }
  return out;
}

const kinds = (perRound: Finding[][]) => perRound.map((fs) => fs.map((f) => f.evidence.occurrences));

describe('SPEC 0.2: recurring_failure', () => {
  it('"the same tool answered with the same error three or more times in one session, across user turns": noted at the third and every further one', () => {
    const l = ledger(acrossTurns(5));
    const rf = l.entries.filter((e) => e.kind === 'recurring_failure');
    expect(rf.map((e) => [e.turn, e.evidence.occurrences, e.evidence.turns])).toEqual([
      [3, 3, 3],
      [4, 4, 4],
      [5, 5, 5],
    ]);
    expect(rf[0]).toMatchObject({
      detector: 'tool_batch',
      confidence: null,
      strike: null,
      evidence: { tools: 'deploy', threshold: 3, first_turn: 1, first_round: 1 },
    });
    // The run of seed 000 never sees it: each occurrence is alone in its turn.
    expect(l.entries.filter((e) => e.kind !== 'recurring_failure')).toEqual([]);
  });

  it('"noted only": never steers or stops, however often it recurs, in either scope', () => {
    for (const scope of ['turn', 'replay']) {
      const l = ledger(acrossTurns(12), { ...defaultConfigValues(), scope });
      const rf = l.entries.filter((e) => e.kind === 'recurring_failure');
      expect(rf).toHaveLength(10);
      expect(new Set(rf.map((e) => `${e.intervention.telemetry}/${e.intervention.enforce}`))).toEqual(new Set(['noted/noted']));
      expect(l.outcome.enforce).toMatchObject({ steers: 0, stops: [] });
    }
  });

  it('"whatever the arguments": the tool and its error count, not the call', () => {
    const r = new Rounds();
    const rounds = ['prod', 'staging', 'canary', 'dev'].map((env, i) => {
      if (i === 2) r.userTurn();
      return r.batch(DEPLOY(env), [QUOTA], true);
    });
    expect(kinds(drive(createRecurringFailureDetector({ occurrences: 3 }), rounds))).toEqual([[], [], [3], [4]]);
  });

  it('"across user turns": inside one turn the run and tool_cycle read those calls; the note starts once the failure spans two turns', () => {
    const r = new Rounds();
    const d = createRecurringFailureDetector({ occurrences: 3 });
    const sameTurn = ['prod', 'staging', 'canary', 'dev'].map((env) => d.observe(r.batch(DEPLOY(env), [QUOTA], true)));
    expect(sameTurn.map((o) => o.findings)).toEqual([[], [], [], []]);
    // No statistic either: within the turn it is not this detector's to measure.
    expect(sameTurn.map((o) => o.measurements)).toEqual([[], [], [], []]);
    r.userTurn();
    const next = d.observe(r.batch(DEPLOY('prod'), [QUOTA], true));
    expect(next.findings.map((f) => [f.evidence.occurrences, f.evidence.turns])).toEqual([[5, 2]]);
    // The ledger: the within-turn repeats of the migration fixture are repeated_batch's, never
    // recurring_failure's (the fifth, four stale rounds in, is also no_progress: issue 28).
    const l = ledger(Array.from({ length: 5 }, () => r.batch(DEPLOY('prod'), [QUOTA], true)));
    expect(l.entries.map((e) => e.kind)).toEqual(['repeated_batch', 'repeated_batch', 'repeated_batch', 'repeated_batch', 'no_progress']);
  });

  it('another error, another tool, a success or an unknown answer is not the same failure', () => {
    const r = new Rounds();
    const d = createRecurringFailureDetector({ occurrences: 3 });
    const first = r.batch(DEPLOY('prod'), [QUOTA], true);
    r.userTurn();
    const rounds = [
      first,
      r.batch(DEPLOY('prod'), ['quota exceeded: project billing-prod has no remaining deploy slots today'], true),
      r.batch([['release', { env: 'prod' }]], [QUOTA], true),
      r.batch(DEPLOY('prod'), [QUOTA], false), // the same text, not a failure
      r.batch(DEPLOY('prod'), null), // unanswered: unknown, not evidence of anything
      r.batch(DEPLOY('prod'), [QUOTA], true),
    ];
    expect(kinds(drive(d, rounds))).toEqual([[], [], [], [], [], []]);
    expect(d.observe(r.batch(DEPLOY('prod'), [QUOTA], true)).findings.map((f) => f.evidence.occurrences)).toEqual([3]);
  });

  it('a failure without an error flag is told by its opening (Chat Completions tool messages have no flag)', () => {
    const r = new Rounds();
    const book: CallSpec[] = [['book_reservation', { flight: 'HAT136' }]];
    const error = 'Error: payment method credit_card_4421486 was declined';
    const turns = (text: string) =>
      [1, 2, 3].map((i) => {
        if (i > 1) r.userTurn();
        return r.batch(book, [text]);
      });
    expect(kinds(drive(createRecurringFailureDetector({ occurrences: 3 }), turns(error)))).toEqual([[], [], [3]]);
    expect(kinds(drive(createRecurringFailureDetector({ occurrences: 3 }), turns('Errors: 0, warnings: 2')))).toEqual([[], [], []]);
  });

  it('answerFailed: the flag, or an opening that says so', () => {
    const failed = (content: string, isError = false) => answerFailed({ content, isError });
    for (const t of ['Error: x', '  error[E0308]: mismatched types', 'Traceback (most recent call last):\n', 'fatal: not a git repository', 'Failed to compile.', 'FAILED tests/test_a.py::test_x', '{"error": "not found"}', 'ERROR']) {
      expect(failed(t), t).toBe(true);
    }
    for (const t of ['ok', 'Errors: 0', 'error.log\nmain.ts', '{"error": null, "data": 1}', '{"error":false}', 'Build succeeded. 0 errors.', '']) {
      expect(failed(t), t).toBe(false);
    }
    expect(failed('anything', true)).toBe(true);
    // Only the opening is read: an error mentioned far into a long success is not a failure.
    expect(failed(`${'x'.repeat(200)} Error: y`)).toBe(false);
  });

  it('answerFailed: a Gemini CLI shell answer ending in a non-zero exit code (its status says success)', () => {
    const failed = (content: string) => answerFailed({ content, isError: false });
    expect(failed('Output: cat: missing.txt: No such file or directory\nExit Code: 1\n')).toBe(true);
    expect(failed(`Output: ${'line\n'.repeat(500)}Error: (none)\nExit Code: 2\nSignal: (none)`)).toBe(true);
    for (const t of ['Output: done\nExit Code: 0\n', 'Output: (empty)\nExit Code: 0', 'grep says Exit Code: 1 in the middle of a line', `Exit Code: 1\n${'x'.repeat(400)}`]) {
      expect(failed(t), t).toBe(false);
    }
  });

  it('several failures in one batch: one finding per failure, the same call twice counts twice', () => {
    const r = new Rounds();
    const pair: CallSpec[] = [['fetch', { url: 'a' }], ['fetch', { url: 'b' }], ['store', { key: 'k' }]];
    const first = r.batch(pair, ['Error: 503', 'Error: 503', 'Error: disk full']);
    r.userTurn();
    const second = r.batch(pair, ['Error: 503', 'ok', 'Error: disk full']);
    r.userTurn();
    const third = r.batch(pair, ['ok', 'ok', 'Error: disk full']);
    const out = drive(createRecurringFailureDetector({ occurrences: 3 }), [first, second, third]);
    expect(out.map((fs) => fs.map((f) => [f.evidence.tools, f.evidence.occurrences]))).toEqual([[], [['fetch', 3]], [['store', 3]]]);
  });

  it('tool_batch.recurring_failure_occurrences sets the count; none turns it off', () => {
    const rounds = acrossTurns(4);
    expect(ledger(rounds, { ...defaultConfigValues(), 'tool_batch.recurring_failure_occurrences': 4 }).entries.map((e) => e.evidence.occurrences)).toEqual([4]);
    expect(ledger(rounds, { ...defaultConfigValues(), 'tool_batch.recurring_failure_occurrences': null }).entries).toEqual([]);
  });

  it('evidence names the tool and an id of the error, never its text', () => {
    const l = ledger(acrossTurns(3));
    const text = JSON.stringify(l.entries);
    expect(text).not.toMatch(/quota|billing/);
    expect(l.entries[0]!.evidence.error).toMatch(/^[0-9a-f]{12}$/);
  });

  it('memory is bounded: past the capacity the least recently seen failure is forgotten', () => {
    const r = new Rounds();
    const t = new RecurringFailureTracker({ occurrences: 2, capacity: 2 });
    const fail = (tool: string) => {
      r.userTurn();
      return t.observe(r.batch([[tool]], ['Error: x'])).findings.map((f) => f.evidence.occurrences);
    };
    expect([fail('a'), fail('b'), fail('a')]).toEqual([[], [], [2]]);
    // c evicts b (a was seen more recently), so b starts over: its fourth failure counts as its second.
    expect([fail('c'), fail('a'), fail('b'), fail('b')]).toEqual([[], [3], [], [2]]);
  });

  it('property: the same ledger whether answers arrive whole or digested in the reading thread', () => {
    const tools = ['deploy', 'book', 'read'];
    const texts = ['Error: quota', 'ok', 'Error: declined', 'declined', '{"error": "x"}'];
    const spec = fc.array(
      fc.record({ newTurn: fc.boolean(), tool: fc.constantFrom(...tools), text: fc.constantFrom(...texts), flag: fc.boolean() }),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(spec, (steps) => {
        const r = new Rounds();
        const rounds = steps.map((s) => {
          if (s.newTurn) r.userTurn();
          return r.batch([[s.tool, {}]], [s.text], s.flag);
        });
        // What src/run/reader-thread-worker.ts sends: the text dropped, its digest and failure kept.
        const digested = rounds.map((x) => ({
          ...x,
          answers: x.answers!.map((a) => ({ content: '', isError: a.isError, digest: answerDigest(a), failed: answerFailed(a) })),
        }));
        const whole = drive(createRecurringFailureDetector({ occurrences: 3 }), rounds);
        expect(drive(createRecurringFailureDetector({ occurrences: 3 }), digested)).toEqual(whole);
        // And the count is the number of earlier same (tool, text, flag) answers, plus one, once in two turns.
        whole.forEach((fs, i) => {
          const s = steps[i]!;
          const failed = answerFailed({ content: s.text, isError: s.flag });
          const same = rounds.slice(0, i + 1).filter((_, k) => steps[k]!.tool === s.tool && steps[k]!.text === s.text && steps[k]!.flag === s.flag);
          const spans = new Set(same.map((x) => x.turn)).size >= 2;
          expect(fs.map((f) => f.evidence.occurrences)).toEqual(failed && spans && same.length >= 3 ? [same.length] : []);
        });
      }),
    );
  });
  it('property: snapshot (plain JSON) and restore at any round continue exactly, as the live hook does between calls', () => {
    const spec = fc.array(
      fc.record({ newTurn: fc.boolean(), tool: fc.constantFrom('deploy', 'book'), text: fc.constantFrom('Error: quota', 'ok', 'Error: declined') }),
      { minLength: 1, maxLength: 30 },
    );
    fc.assert(
      fc.property(spec, fc.nat(), (steps, cut) => {
        const r = new Rounds();
        const rounds = steps.map((s) => {
          if (s.newTurn) r.userTurn();
          return r.batch([[s.tool, {}]], [s.text]);
        });
        const at = cut % rounds.length;
        const whole = drive(createRecurringFailureDetector({ occurrences: 3 }), rounds);
        const first = createRecurringFailureDetector({ occurrences: 3 });
        const before = drive(first, rounds.slice(0, at));
        const second = createRecurringFailureDetector({ occurrences: 3 });
        second.restore(JSON.parse(JSON.stringify(first.snapshot())));
        expect([...before, ...drive(second, rounds.slice(at))]).toEqual(whole);
      }),
    );
    // Anything else restores to an empty tally, never a throw.
    const d = createRecurringFailureDetector({ occurrences: 3 });
    for (const junk of [null, 42, 'x', [[1, 2]], [['k', null]], [['k', { tool: 1 }]]]) expect(() => d.restore(junk)).not.toThrow();
    expect(d.snapshot()).toEqual([]);
  });
});
