// SPEC 0.2 ("What real sessions showed the seeds leave open"): "A batch made only of
// `tool_batch.transparent_tools` (default `think`: a tool whose call is the model thinking aloud)
// is transparent like a prose answer: it neither breaks nor extends a run. Seed 000's reason for
// prose applies." Seed 000: "a prose answer and a role: "tool" result are transparent — load
// bearing, since every call is answered before the next one and a run those could break would
// never reach two."

import { describe, expect, it } from 'vitest';
import { defaultConfigValues } from '../../../src/config/registry.js';
import type { ConfigValues } from '../../../src/config/spec.js';
import { createToolBatchDetector, createToolCycleDetector } from '../../../src/detect/tool-batch/index.js';
import { LedgerBuilder } from '../../../src/ledger/build.js';
import { createDetectorFactories } from '../../../src/ledger/detectors.js';
import type { Round } from '../../../src/model/transcript.js';
import { config, drive, firstLoop, Rounds, stops, type CallSpec } from './rounds.js';

const BOOK: CallSpec[] = [
  ['book_reservation', { user_id: 'mia_li_3668', flight: 'HAT136', date: '2024-05-20', cabin: 'economy', payment_id: 'credit_card_4421486' }],
];
const PAYMENT_ERROR = 'Error: payment method credit_card_4421486 was declined';

/** A think call; `i` numbers the thought (a model thinking aloud rarely repeats itself word for word), null repeats one. */
const think = (r: Rounds, i: number | null, name = 'think'): Round =>
  r.batch([[name, { thought: `Attempt ${i ?? 'again'}: the booking failed; maybe the card needs to be retried.` }]], ['']);

/** The tau-bench-like session: the same booking, each answered with the same payment error, alternating with think. */
function tauBench(r: Rounds, bookings = 5, name = 'think', thoughts: 'different' | 'same' = 'different'): Round[] {
  const out: Round[] = [];
  for (let i = 1; i <= bookings; i += 1) {
    out.push(r.batch(BOOK, [PAYMENT_ERROR]));
    if (i < bookings) out.push(think(r, thoughts === 'same' ? null : i, name));
  }
  return out;
}

function ledger(rounds: Round[], values: ConfigValues = defaultConfigValues()) {
  const b = new LedgerBuilder({ config: values, factories: createDetectorFactories() });
  b.session({ id: 's', path: 's.jsonl', format: 'openai', parent: null });
  let turn = 0;
  for (const round of rounds) {
    if (round.turn !== turn) b.turn('s', (turn = round.turn), null);
    b.round('s', round);
  }
  b.end('s');
  return b.sessions()[0]!;
}

describe('SPEC 0.2: tool_batch.transparent_tools', () => {
  it.each(['different', 'same'] as const)('the tau-bench-like case: five identical failing bookings alternating with `think` (%s thoughts) stop at the third booking under enforce', (thoughts) => {
    const rounds = tauBench(new Rounds(), 5, 'think', thoughts);
    const out = drive(createToolBatchDetector(config()), rounds);
    // Rounds: book 1, think, book 2, think, book 3 …: the third booking is round 5.
    expect(stops(out)).toEqual([5, 7, 9]);
    expect(firstLoop(out)!.finding.strike).toEqual({ count: 3, threshold: 2, total: 3, ceiling: 15, read_only: false });

    const l = ledger(rounds);
    expect(l.outcome.enforce.stops).toEqual([{ turn: 1, round: 5 }]);
    const stop = l.entries.find((e) => e.intervention.enforce === 'stop')!;
    expect(stop).toMatchObject({ detector: 'tool_batch', kind: 'repeated_batch', round: 5, finalization_reason: 'loop_detected' });
    // No cycle is reported: with think transparent the session is one run, not A → think → A.
    expect(l.entries.filter((e) => e.kind === 'tool_cycle')).toEqual([]);
  });

  it('without it (transparent_tools empty), think breaks the run: at best a period-2 cycle shows, never a stop: the miss this fixes', () => {
    const values = { ...defaultConfigValues(), 'tool_batch.transparent_tools': [] };
    const kinds = (thoughts: 'same' | 'different') => {
      const rounds = tauBench(new Rounds(), 5, 'think', thoughts);
      expect(stops(drive(createToolBatchDetector(config({ transparentTools: [] })), rounds))).toEqual([]);
      const l = ledger(rounds, values);
      expect(l.outcome.enforce.stops).toEqual([]);
      // recurring_failure (noted from the third failed booking) is about the session, not the run: aside here.
      return l.entries
        .filter((e) => e.detector === 'tool_batch' && e.kind !== 'recurring_failure')
        .map((e) => [e.kind, e.evidence.periods, e.intervention.enforce]);
    };
    // The same thought every time: book → think is a period-2 cycle, noted at its third period and
    // steered at its fourth (tool_batch.cycle_enforce_periods), by which time all five bookings were sent.
    expect(kinds('same')).toEqual([
      ['tool_cycle', 3, 'noted'],
      ['tool_cycle', 4, 'steer'],
    ]);
    // A new thought every time: not even that.
    expect(kinds('different')).toEqual([]);
  });

  it('"neither breaks … a run": A, think, A, think, A is the same run as A, A, A', () => {
    const r = new Rounds();
    const A: CallSpec[] = [['write_file', { path: 'a.txt' }]];
    const withThink = [r.batch(A, ['x']), think(r, 1), r.batch(A, ['x']), think(r, 2), r.batch(A, ['x'])];
    const plain = [r.batch(A, ['x']), r.batch(A, ['x']), r.batch(A, ['x'])];
    const strikes = (rounds: Round[]) =>
      drive(createToolBatchDetector(config()), rounds)
        .flat()
        .map((f) => f.strike);
    expect(strikes(withThink)).toEqual(strikes(plain));
  });

  it('"… nor extends a run": think calls alone never count, however many and however alike', () => {
    const r = new Rounds();
    const same = Array.from({ length: 10 }, () => r.batch([['think', { thought: 'Let me think.' }]], ['']));
    expect(drive(createToolBatchDetector(config()), same).flat()).toEqual([]);
    expect(drive(createToolCycleDetector(config()), same).flat()).toEqual([]);
    // A think between two different batches does not join them into a run either.
    const mixed = [r.batch([['a']], ['1']), think(r, 1), r.batch([['b']], ['1']), think(r, 2), r.batch([['a']], ['1'])];
    expect(drive(createToolBatchDetector(config()), mixed).flat()).toEqual([]);
  });

  it('"a batch made only of" them: a batch mixing think with a real call is an ordinary batch', () => {
    const r = new Rounds();
    const rounds = [1, 2, 3].map((i) =>
      r.batch([...BOOK, ['think', { thought: `try ${i}` }]], [PAYMENT_ERROR, '']),
    );
    // Each think argument differs, so each batch has its own signature: no run.
    expect(stops(drive(createToolBatchDetector(config()), rounds))).toEqual([]);
  });

  it('the cycle detector skips them too: A → think → B → think → A … is the A → B cycle', () => {
    const r = new Rounds();
    const A: CallSpec[] = [['read_file', { path: 'deploy.yaml' }]];
    const B: CallSpec[] = [['deploy', { dry_run: true }]];
    const rounds: Round[] = [];
    for (let i = 0; i < 3; i += 1) rounds.push(r.batch(A, ['replicas: 0']), think(r, 2 * i), r.batch(B, ['invalid']), think(r, 2 * i + 1));
    const cycles = drive(createToolCycleDetector(config()), rounds).flat();
    expect(cycles.map((f) => [f.kind, f.evidence.period, f.evidence.periods])).toEqual([['tool_cycle', 2, 3]]);
  });

  it('names match as patterns do: `mcp__reasoning__think` is a think, `thinkific_enroll` is not', () => {
    expect(stops(drive(createToolBatchDetector(config()), tauBench(new Rounds(), 5, 'mcp__reasoning__think')))).toEqual([5, 7, 9]);
    expect(stops(drive(createToolBatchDetector(config()), tauBench(new Rounds(), 5, 'thinkific_enroll')))).toEqual([]);
    const custom = config({ transparentTools: ['sequentialthinking'] });
    expect(stops(drive(createToolBatchDetector(custom), tauBench(new Rounds(), 5, 'mcp__st__sequentialthinking')))).toEqual([5, 7, 9]);
  });
});
