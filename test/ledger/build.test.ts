import { describe, expect, it } from 'vitest';
import { isNearMiss, LedgerBuilder } from '../../src/ledger/build.js';
import { build, fakeDetectors, finding, INFO, measurement, repeatingOutput, replay, same } from './fakes.js';

const levels = (entries: { intervention: { enforce: string } }[]) => entries.map((e) => e.intervention.enforce);

describe('LedgerBuilder: the three columns', () => {
  it('a repeating round steers and the turn goes on', () => {
    const fakes = fakeDetectors({ output: repeatingOutput() });
    const { ledger } = build(fakes, [[{ text: 'a' }, { text: 'a' }, { text: 'b' }, { text: 'c' }]]);
    expect(ledger.entries).toHaveLength(1);
    expect(ledger.entries[0]).toMatchObject({
      turn: 1,
      round: 2,
      line: 20,
      detector: 'output',
      kind: 'near_repetition',
      intervention: { off: 'none', telemetry: 'noted', enforce: 'steer' },
      after_stop: false,
      reminder: 'OutputLoopRecovery',
    });
    // The turn went on: later rounds were still observed.
    expect(fakes.created.output[0]!.seen).toEqual([1, 2, 3, 4]);
    expect(ledger.outcome.enforce).toEqual({ steers: 1, stops: [], saved: { rounds: 0, tokens: 0, usd: 0 }, cut: { rounds: 0, tokens: 0, usd: 0 } });
  });

  it('"hard-stops only after 3 unheeded steers (finalization_reason=\\"loop_detected\\")"; later rounds are after_stop', () => {
    const fakes = fakeDetectors({ output: repeatingOutput() });
    const { ledger } = build(fakes, [same(7), same(3)]);
    const turn1 = ledger.entries.filter((e) => e.turn === 1);
    expect(levels(turn1)).toEqual(['steer', 'steer', 'steer', 'stop', 'none', 'none']);
    expect(turn1[3]).toMatchObject({ round: 5, finalization_reason: 'loop_detected', after_stop: false });
    expect(turn1.slice(4).every((e) => e.after_stop && e.intervention.telemetry === 'noted')).toBe(true);
    // "the next user turn starts fresh"
    const turn2 = ledger.entries.filter((e) => e.turn === 2);
    expect(levels(turn2)).toEqual(['steer', 'steer']);
    expect(turn2.every((e) => !e.after_stop)).toBe(true);
    // Rounds 6 and 7 would not have happened; these fake rounds record no usage, so their tokens are unknown.
    // Both repeat the loop (prose only, no new call or answer): saved, none cut.
    expect(ledger.outcome.enforce).toEqual({ steers: 5, stops: [{ turn: 1, round: 5 }], saved: { rounds: 2, tokens: null, usd: null }, cut: { rounds: 0, tokens: 0, usd: 0 } });
  });

  it('"Telemetry reports without injecting": noted, never a steer; off is none everywhere', () => {
    const fakes = fakeDetectors({ output: repeatingOutput() });
    const { ledger } = build(fakes, [same(6)]);
    expect(ledger.entries.every((e) => e.intervention.telemetry === 'noted' && e.intervention.off === 'none')).toBe(true);
  });

  it('"Off never feeds detectors": the Off column is none on every entry, whatever the others decided', () => {
    const { ledger } = build(fakeDetectors({ output: repeatingOutput() }), [same(6)], { mode: 'off' });
    expect(ledger.entries.length).toBeGreaterThan(0);
    expect(ledger.entries.some((e) => e.intervention.enforce !== 'none')).toBe(true);
    expect(ledger.entries.every((e) => e.intervention.off === 'none')).toBe(true);
  });

  it('"Capped kinds (predictable drift, reasoning runaway) never hard-stop on heuristics alone"', () => {
    const fakes = fakeDetectors({ thinking: () => [finding('thinking', 'reasoning_runaway', { confidence: 0.99 })] });
    const { ledger } = build(fakes, [same(8)]);
    expect(levels(ledger.entries)).toEqual(Array(8).fill('steer'));
    expect(ledger.entries[0]!.reminder).toBe('ThinkingLoopRecovery');
    expect(ledger.outcome.enforce.stops).toEqual([]);
  });

  it('a hard stop only at high confidence (the 0.88 strong band)', () => {
    const weak = build(fakeDetectors({ output: () => [finding('output', 'near_repetition', { confidence: 0.8 })] }), [same(6)]);
    expect(levels(weak.ledger.entries)).not.toContain('stop');
    const strong = build(fakeDetectors({ output: () => [finding('output', 'near_repetition', { confidence: 0.88 })] }), [same(6)]);
    expect(levels(strong.ledger.entries)).toEqual(['steer', 'steer', 'steer', 'stop', 'none', 'none']);
  });

  it('ambiguous evidence asks the judge within budget and never stops', () => {
    const fakes = fakeDetectors({ output: () => [finding('output', 'near_repetition', { ambiguous: true, confidence: 0.95 })] });
    const { ledger } = build(fakes, [same(5), same(3)]);
    expect(levels(ledger.entries)).toEqual(Array(8).fill('steer'));
    expect(ledger.entries.map((e) => e.judge?.within_budget)).toEqual([true, true, false, false, false, true, true, false]);
    expect(ledger.entries.every((e) => e.judge?.verdict === 'indeterminate')).toBe(true);
  });

  it('at most one decision per round: the strongest drives, the rest are noted', () => {
    const fakes = fakeDetectors({
      output: () => [finding('output', 'near_repetition', { confidence: 0.7 }), finding('output', 'short_period', { confidence: 0.9 })],
      thinking: () => [finding('thinking', 'thinking_stagnation', { confidence: 0.8 })],
    });
    const { ledger } = build(fakes, [same(1)]);
    expect(ledger.entries.map((e) => [e.kind, e.intervention.enforce])).toEqual([
      ['near_repetition', 'noted'],
      ['short_period', 'steer'],
      ['thinking_stagnation', 'noted'],
    ]);
    expect(ledger.outcome.enforce.steers).toBe(1);
  });

  it('a tool-batch loop is a stop that ends the turn; strikes below the threshold are noted', () => {
    const fakes = fakeDetectors({
      toolBatch: (r) => [finding('tool_batch', 'repeated_batch', { loop: r.index >= 3, strike: { count: r.index, threshold: 2, total: r.index, ceiling: 15, read_only: false } })],
    });
    const { ledger } = build(fakes, [same(4)]);
    expect(levels(ledger.entries)).toEqual(['noted', 'noted', 'stop', 'none']);
    expect(ledger.entries[2]).toMatchObject({ finalization_reason: 'loop_detected', strike: { count: 3, threshold: 2 } });
    expect(ledger.entries[3]!.after_stop).toBe(true);
    expect(ledger.outcome.enforce.stops).toEqual([{ turn: 1, round: 3 }]);
  });

  it('tool_cycle follows tool_batch.cycle_enforce and tool_batch.cycle_enforce_periods', () => {
    let periods = 2;
    const scripts = { toolCycle: () => [finding('tool_batch', 'tool_cycle', { evidence: { period: 2, periods: ++periods } })] };
    const steer = build(fakeDetectors(scripts), [same(3)]).ledger.entries;
    expect(steer.map((e) => [e.evidence.periods, e.intervention.enforce, e.reminder])).toEqual([
      [3, 'noted', undefined],
      [4, 'steer', 'ToolLoopRecovery'],
      [5, 'steer', 'ToolLoopRecovery'],
    ]);
    periods = 2;
    expect(levels(build(fakeDetectors(scripts), [same(2)], { 'tool_batch.cycle_enforce': 'noted' }).ledger.entries)).toEqual(['noted', 'noted']);
    periods = 2;
    expect(levels(build(fakeDetectors(scripts), [same(2)], { 'tool_batch.cycle_enforce_periods': 3 }).ledger.entries)).toEqual(['steer', 'steer']);
  });
});

describe('LedgerBuilder: turn-owned state', () => {
  it('"its detector windows, thinking-block memory, and attempt counters survive the turn\'s rounds without leaking into the next turn"', () => {
    const fakes = fakeDetectors({ output: repeatingOutput() });
    // The same text opens turn 2: a leaked window would fire on its first round.
    const { ledger } = build(fakes, [same(2, 'x'), [{ text: 'x' }, { text: 'y' }], [{ text: 'z' }]]);
    expect(ledger.entries.map((e) => e.round)).toEqual([2]);
    for (const slot of ['toolBatch', 'toolCycle', 'output', 'thinking'] as const) {
      expect(fakes.created[slot].map((d) => d.seen)).toEqual([[1, 2], [3, 4], [5]]);
    }
  });

  it('--scope replay walks one tool-batch detector across the session, breaking its run at user turns', () => {
    const fakes = fakeDetectors();
    build(fakes, [same(2), same(2), same(1)], { scope: 'replay' });
    expect(fakes.created.toolBatch).toHaveLength(1);
    expect(fakes.created.toolBatch[0]!.seen).toEqual([1, 2, 3, 4, 5]);
    // "A user turn ends a run explicitly: see Self::break_run" (turns 2 and 3 arrive after it exists)
    expect(fakes.created.toolBatch[0]!.breaks).toBe(2);
    expect(fakes.created.output).toHaveLength(3);
    expect(fakes.created.toolCycle).toHaveLength(3);
  });

  it('escape hatch: "a mid-turn clear stops detection immediately and drops the detector state"', () => {
    const fakes = fakeDetectors({ output: repeatingOutput() });
    const { ledger } = build(fakes, [same(5), same(3)], { 'ladder.clear_detection': ['s1@1.3'] });
    expect(ledger.entries.map((e) => e.round)).toEqual([2]);
    expect(fakes.created.output.map((d) => d.seen)).toEqual([[1, 2]]);
    expect(ledger.rounds).toBe(8);
  });

  it('a turn\'s detectors are released once, when their turn is over, and never observe again', () => {
    // Released detectors hand their arrays to the next turn's (src/detect/text/pool.ts): a
    // release while the turn goes on, or a second one, would let two detectors share a window.
    const fakes = fakeDetectors({ output: repeatingOutput() });
    const { ledger, warnings } = build(fakes, [same(3), same(2), same(1)]);
    expect(warnings).toEqual([]);
    expect(ledger.entries.map((e) => e.round)).toEqual([2, 3, 5]);
    for (const slot of ['toolBatch', 'toolCycle', 'output', 'thinking'] as const) {
      expect(fakes.created[slot].map((d) => d.released), slot).toEqual([1, 1, 1]);
    }
    // The escape hatch drops the turn's detectors at once: released there, not again at the end.
    const cleared = fakeDetectors({ output: repeatingOutput() });
    build(cleared, [same(2), same(3)], { 'ladder.clear_detection': ['s1@2.4'] });
    expect(cleared.created.output.map((d) => [d.seen, d.released])).toEqual([
      [[1, 2], 1],
      [[3], 1],
    ]);
  });

  it('the escape hatch names its session only, and a turn-level clear starts at that turn', () => {
    const fakes = fakeDetectors({ output: repeatingOutput() });
    const { ledger } = build(fakes, [same(3), same(3)], { 'ladder.clear_detection': ['other@1', 's1@2'] });
    expect(ledger.entries.map((e) => e.round)).toEqual([2, 3]);
    expect(fakes.created.output).toHaveLength(1);
  });

  it('the tier is chosen at each turn from its first round model: weak models get stricter thresholds', () => {
    const fakes = fakeDetectors();
    const warnings: string[] = [];
    const builder = new LedgerBuilder({
      config: { 'output.near_repetition_ambiguous': 0.8, 'output.exact_block_min_repeats': 4 },
      factories: fakes.factories,
      onWarning: (m) => warnings.push(m),
    });
    replay(builder, [[{ model: 'claude-opus-4' }], [{ model: 'claude-haiku-4' }], [{ model: null }]]);
    const seen = fakes.created.output.map((d) => [d.config.output.nearRepetitionAmbiguous, d.config.output.exactBlockMinRepeats]);
    expect(seen[0]).toEqual([0.8, 4]);
    expect(seen[1]![0]).toBeCloseTo(1 - 0.2 / 1.25, 12);
    expect(seen[1]![1]).toBe(5);
    // No model on the round: the session's model (opus) is used.
    expect(seen[2]).toEqual([0.8, 4]);
    expect(warnings).toEqual([]);
  });
});

describe('LedgerBuilder: counters and options', () => {
  it('counts turns, rounds and tool calls; model is the first non-null round model', () => {
    const fakes = fakeDetectors();
    const call = { id: 'c', name: 'read', arguments: {} };
    const { ledger } = build(fakes, [[{ model: null, calls: [call, call] }, { model: 'm1' }], [{ model: 'm2', calls: [call] }]]);
    expect(ledger).toMatchObject({ id: 's1', path: 'a.jsonl', format: 'canonical', parent: null, model: 'm1', turns: 2, rounds: 3, tool_calls: 3 });
    expect(ledger.verdicts).toBeUndefined();
  });

  it('explain and excerpts only when asked; excerpts bounded to three of 80 characters', () => {
    const crossed = [measurement({ value: 0.9 })];
    const f = finding('output', 'near_repetition', { crossed, excerpts: ['a'.repeat(100), 'b', 'c', 'd'] });
    const plain = build(fakeDetectors({ output: () => [f] }), [same(1)]).ledger.entries[0]!;
    expect(plain).not.toHaveProperty('explain');
    expect(plain).not.toHaveProperty('excerpts');
    const rich = build(fakeDetectors({ output: () => [f] }), [same(1)], {}, { explain: true, excerpts: true }).ledger.entries[0]!;
    expect(rich.explain).toEqual(crossed);
    expect(rich.excerpts!.map((e) => e.length)).toEqual([80, 1, 1]);
  });

  it('verbose: one verdict per round with near misses within 10% of their threshold', () => {
    const near = measurement({ value: 0.8, threshold: 0.85 });
    const far = measurement({ value: 0.5, threshold: 0.85 });
    const fired = measurement({ value: 0.9, threshold: 0.85 });
    const below = measurement({ direction: 'below', value: 1.05, threshold: 1 });
    const fakes = fakeDetectors({
      output: (r) => ({ findings: r.index === 2 ? [finding('output', 'near_repetition')] : [], measurements: [near, far, fired, below] }),
    });
    const { ledger } = build(fakes, [same(2)], {}, { verbose: true });
    expect(ledger.verdicts).toEqual([
      { turn: 1, round: 1, line: 10, enforce: 'none', after_stop: false, near_misses: [near, below] },
      { turn: 1, round: 2, line: 20, enforce: 'steer', after_stop: false, near_misses: [near, below] },
    ]);
    expect(isNearMiss(measurement({ direction: 'below', value: 1.2, threshold: 1 }))).toBe(false);
  });

  it('near misses on counts: one whole step short of an integer threshold counts, two steps do not', () => {
    expect(isNearMiss(measurement({ value: 4, threshold: 5 }))).toBe(true);
    expect(isNearMiss(measurement({ value: 3, threshold: 5 }))).toBe(false);
    expect(isNearMiss(measurement({ value: 5, threshold: 5 }))).toBe(false);
    expect(isNearMiss(measurement({ value: 0.8, threshold: 1 }))).toBe(false);
  });

  it('sessions come back in the order they were announced, each with its own state', () => {
    const fakes = fakeDetectors({ output: repeatingOutput() });
    const builder = new LedgerBuilder({ config: {}, factories: fakes.factories });
    builder.session(INFO);
    builder.session({ ...INFO, id: 's2', parent: 's1' });
    const round = (index: number) => ({ turn: 1, index, line: null, text: 't', thinking: [], calls: [], answers: [], usage: null, model: null, timestamp: null });
    builder.round('s2', round(1));
    builder.round('s1', round(1));
    builder.round('s2', round(2));
    builder.end('s2');
    builder.end('s1');
    const [a, b] = builder.sessions();
    expect([a!.id, b!.id]).toEqual(['s1', 's2']);
    expect(a!.entries).toEqual([]);
    expect(b!.entries).toHaveLength(1);
    expect(b!.parent).toBe('s1');
  });
});

describe('LedgerBuilder: robustness', () => {
  it('a detector that throws is skipped for the rest of its turn with a warning; the others go on', () => {
    const fakes = fakeDetectors({
      toolBatch: (r) => {
        if (r.index === 2) throw new Error('boom');
        return [];
      },
      output: repeatingOutput(),
    });
    const { ledger, warnings } = build(fakes, [same(3), same(2)]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('boom');
    expect(fakes.created.toolBatch.map((d) => d.seen)).toEqual([[1, 2], [4, 5]]);
    expect(ledger.entries.map((e) => e.round)).toEqual([2, 3, 5]);
  });
});
