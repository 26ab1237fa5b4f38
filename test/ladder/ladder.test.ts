import { describe, expect, it } from 'vitest';
import { defaultLadderSettings, type LadderSettings } from '../../src/ladder/config.js';
import type { JudgePort } from '../../src/ladder/judge.js';
import {
  createTurnLadders,
  EnforceLadder,
  reminderText,
  TelemetryLadder,
} from '../../src/ladder/ladder.js';
import { finding } from '../ledger/fakes.js';

const out = (over = {}) => finding('output', 'near_repetition', over);

function settings(over: Partial<LadderSettings> = {}): LadderSettings {
  return { ...defaultLadderSettings(), ...over };
}

/** Feed the same findings round after round; the decisions' levels of the first finding. */
function levels(ladder: EnforceLadder, rounds: number, make: () => ReturnType<typeof finding>[]) {
  return Array.from({ length: rounds }, () => ladder.decide(make())[0]!.level);
}

describe('off and telemetry', () => {
  it('telemetry notes every finding and never steers or stops', () => {
    const t = new TelemetryLadder();
    for (let i = 0; i < 6; i++) {
      const d = t.decide([out(), finding('tool_batch', 'repeated_batch', { loop: true })]);
      expect(d.map((x) => x.level)).toEqual(['noted', 'noted']);
      expect(d.every((x) => !x.reminder && !x.finalizationReason)).toBe(true);
    }
  });
});

describe('enforce: the ladder', () => {
  it('L1: a steer-worthy finding steers with a recovery reminder that names the source', () => {
    const l = new EnforceLadder(settings());
    expect(l.decide([out()])[0]).toMatchObject({ level: 'steer', reminder: 'OutputLoopRecovery' });
    const l2 = new EnforceLadder(settings());
    expect(l2.decide([finding('thinking', 'thinking_stagnation')])[0]).toMatchObject({
      level: 'steer',
      reminder: 'ThinkingLoopRecovery',
    });
  });

  it('"hard-stops only after 3 unheeded steers (finalization_reason=\\"loop_detected\\")"', () => {
    const l = new EnforceLadder(settings());
    expect(levels(l, 4, () => [out()])).toEqual(['steer', 'steer', 'steer', 'stop']);
    expect(l.stopped).toBe(true);
    expect(l.unheededSteers).toBe(3);
  });

  it('the stop carries loop_detected; rounds after it are after_stop and none', () => {
    const l = new EnforceLadder(settings());
    levels(l, 3, () => [out()]);
    expect(l.decide([out()])[0]).toMatchObject({ level: 'stop', finalizationReason: 'loop_detected' });
    expect(l.decide([out(), out()])).toEqual([
      { level: 'none', afterStop: true },
      { level: 'none', afterStop: true },
    ]);
    expect(l.decide([])).toEqual([]);
  });

  it('a steer is unheeded only when a later round shows its own signal again', () => {
    const l = new EnforceLadder(settings());
    l.decide([out()]); // output steer
    l.decide([]); // a clean round heeds nothing yet
    l.decide([finding('thinking', 'thinking_stagnation')]); // another source: its own steer
    expect(l.unheededSteers).toBe(0);
    l.decide([out()]);
    expect(l.unheededSteers).toBe(1);
  });

  it('a low-confidence finding is only noted and does not count as the signal', () => {
    const l = new EnforceLadder(settings());
    // predictable_drift's default confidence is deliberately low: L0.
    expect(l.decide([finding('output', 'predictable_drift', { confidence: 0.3 })])[0]!.level).toBe('noted');
    l.decide([out()]);
    l.decide([out({ confidence: 0.2 })]);
    expect(l.unheededSteers).toBe(0);
  });

  it('"Capped kinds (predictable drift, reasoning runaway) never hard-stop on heuristics alone"', () => {
    for (const kind of ['predictable_drift', 'reasoning_runaway'] as const) {
      const l = new EnforceLadder(settings());
      const detector = kind === 'reasoning_runaway' ? 'thinking' : 'output';
      const got = levels(l, 10, () => [finding(detector, kind, { confidence: 0.99 })]);
      expect(got).toEqual(Array(10).fill('steer'));
      expect(l.stopped).toBe(false);
    }
  });

  it('the capped list is configuration', () => {
    const l = new EnforceLadder(settings({ cappedKinds: new Set(['near_repetition']) }));
    expect(levels(l, 6, () => [out()])).not.toContain('stop');
  });

  it('"a hard stop only on high confidence": below the strong band (0.88) L2 keeps steering', () => {
    const weak = new EnforceLadder(settings());
    expect(levels(weak, 8, () => [out({ confidence: 0.87 })])).toEqual(Array(8).fill('steer'));
    const strong = new EnforceLadder(settings());
    // "0.88 confidence, no arbitration, hard-stop eligible without a judge"
    expect(levels(strong, 4, () => [out({ confidence: 0.88 })])).toEqual(['steer', 'steer', 'steer', 'stop']);
  });

  it('a finding without a confidence may steer but never stops on heuristics', () => {
    const l = new EnforceLadder(settings());
    expect(levels(l, 6, () => [out({ confidence: null })])).toEqual(Array(6).fill('steer'));
  });

  it('max unheeded steers is configuration', () => {
    const l = new EnforceLadder(settings({ maxUnheededSteers: 1 }));
    expect(levels(l, 2, () => [out()])).toEqual(['steer', 'stop']);
  });
});

describe('enforce: tool batch', () => {
  it('a tool-batch loop past its threshold stops at once; strikes below it are noted', () => {
    const l = new EnforceLadder(settings());
    expect(l.decide([finding('tool_batch', 'repeated_batch')])[0]!.level).toBe('noted');
    expect(l.decide([finding('tool_batch', 'repeated_batch', { loop: true })])[0]).toMatchObject({
      level: 'stop',
      finalizationReason: 'loop_detected',
    });
  });

  it('tool_cycle follows tool_batch.cycle_enforce from tool_batch.cycle_enforce_periods full periods (default steer from 4); shorter cycles are noted', () => {
    const cycle = (periods: number) => () => [finding('tool_batch', 'tool_cycle', { evidence: { period: 2, periods } })];
    expect(levels(new EnforceLadder(settings()), 3, cycle(3))).toEqual(Array(3).fill('noted'));
    const steer = new EnforceLadder(settings());
    expect(steer.decide(cycle(4)())[0]).toMatchObject({ level: 'steer', reminder: 'ToolLoopRecovery' });
    // A steer is a reminder, never an escalation: the cycle keeps steering, it does not stop on its own.
    expect(levels(steer, 5, cycle(5))).toEqual(Array(5).fill('steer'));
    expect(new EnforceLadder(settings({ cycleEnforce: 'stop' })).decide(cycle(4)())[0]!.level).toBe('stop');
    expect(new EnforceLadder(settings({ cycleEnforce: 'stop' })).decide(cycle(3)())[0]!.level).toBe('noted');
    expect(new EnforceLadder(settings({ cycleEnforcePeriods: 3 })).decide(cycle(3)())[0]!.level).toBe('steer');
    // none and noted apply whatever the length.
    expect(new EnforceLadder(settings({ cycleEnforce: 'none' })).decide(cycle(9)())[0]!.level).toBe('none');
    expect(new EnforceLadder(settings({ cycleEnforce: 'noted' })).decide(cycle(9)())[0]!.level).toBe('noted');
  });

  it('SPEC 0.2: recurring_failure is "noted only", whatever the settings and however often it shows', () => {
    const rf = () => [finding('tool_batch', 'recurring_failure', { evidence: { occurrences: 50 } })];
    for (const over of [{}, { cycleEnforce: 'stop' as const }, { maxUnheededSteers: 1 }]) {
      expect(levels(new EnforceLadder(settings(over)), 6, rf)).toEqual(Array(6).fill('noted'));
    }
  });
});

describe('enforce: at most one decision per round boundary', () => {
  it('one finding drives the round, the others are noted', () => {
    const l = new EnforceLadder(settings());
    const d = l.decide([out({ confidence: 0.7 }), finding('thinking', 'thinking_stagnation', { confidence: 0.9 })]);
    expect(d.map((x) => x.level)).toEqual(['noted', 'steer']);
    expect(d[1]!.reminder).toBe('ThinkingLoopRecovery');
  });

  it('the strongest drives: a tool-batch loop stop beats an output steer', () => {
    const l = new EnforceLadder(settings());
    const d = l.decide([finding('tool_batch', 'repeated_batch', { loop: true }), out()]);
    expect(d.map((x) => x.level)).toEqual(['stop', 'noted']);
  });

  it('firm evidence drives over ambiguous evidence of the same level', () => {
    const l = new EnforceLadder(settings());
    const d = l.decide([out({ ambiguous: true, confidence: 0.95 }), out({ confidence: 0.6 })]);
    expect(d.map((x) => x.level)).toEqual(['noted', 'steer']);
    expect(d[0]!.judge).toBeUndefined();
  });
});

describe('enforce: the judge', () => {
  it('ambiguous evidence asks the judge within budget; without one it can steer, never stop', () => {
    const l = new EnforceLadder(settings());
    const d = Array.from({ length: 6 }, () => l.decide([out({ ambiguous: true, confidence: 0.99 })])[0]!);
    expect(d.map((x) => x.level)).toEqual(Array(6).fill('steer'));
    // "Per-session current-turn budget from ai.loop_detection.judge.max_verdicts_per_turn" (2)
    const noJudge = { consulted: false, verdict: 'indeterminate', confidence: null, within_budget: true, unusable: 'no_judge' };
    expect(d.map((x) => x.judge)).toEqual([
      noJudge,
      noJudge,
      ...Array(4).fill({ consulted: false, verdict: 'indeterminate', confidence: null, within_budget: false, unusable: 'over_budget' }),
    ]);
    expect(l.verdictsConsulted).toBe(2);
  });

  it('low-confidence ambiguous evidence is noted and never asks', () => {
    const l = new EnforceLadder(settings());
    expect(l.decide([out({ ambiguous: true, confidence: 0.2 })])[0]).toEqual({ level: 'noted', afterStop: false });
  });

  it('"a disabled judge never consults the model"', () => {
    const calls: unknown[] = [];
    const port: JudgePort = { arbitrate: (r) => (calls.push(r), { verdict: 'loop', confidence: 1 }) };
    const l = new EnforceLadder(settings({ judge: { enabled: false, maxVerdictsPerTurn: 2, verdictConfidenceMin: 0.9, carryVerdicts: true } }), port);
    expect(l.decide([out({ ambiguous: true })])[0]!.judge).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('a plugged judge: a confident loop verdict lets L2 stop; "an answer without usable confidence never escalates"', () => {
    const answers = [
      // L1: even a certain judge cannot stop before three unheeded steers.
      { verdict: 'loop' as const, confidence: 0.99 },
      { verdict: 'loop' as const, confidence: 0.99 },
      { verdict: 'loop' as const, confidence: 0.99 },
      // L2: no usable confidence, then below judge.verdict_confidence_min.
      { verdict: 'loop' as const, confidence: null },
      { verdict: 'loop' as const, confidence: 0.89 },
    ];
    let i = 0;
    const requests: { excerpts: readonly string[] }[] = [];
    const port: JudgePort = {
      arbitrate: (r) => (requests.push(r), answers[i++] ?? { verdict: 'loop', confidence: 0.95 }),
    };
    const l = new EnforceLadder(settings({ judge: { enabled: true, maxVerdictsPerTurn: 10, verdictConfidenceMin: 0.9, carryVerdicts: false } }), port);
    const f = () => [out({ ambiguous: true, confidence: 0.7, excerpts: ['x'.repeat(200), 'b', 'c', 'd'] })];
    expect(levels(l, 5, f)).toEqual(['steer', 'steer', 'steer', 'steer', 'steer']);
    expect(l.decide(f())[0]).toMatchObject({ level: 'stop', judge: { within_budget: true, verdict: 'loop' } });
    // "at most three 80-character excerpts"
    expect(requests[0]!.excerpts.map((e) => e.length)).toEqual([80, 1, 1]);
  });

  it('a confident progress verdict keeps the finding at noted; a throwing judge is Indeterminate', () => {
    const no = new EnforceLadder(settings(), { arbitrate: () => ({ verdict: 'progress', confidence: 0.95 }) });
    expect(no.decide([out({ ambiguous: true })])[0]!.level).toBe('noted');
    const broken = new EnforceLadder(settings(), {
      arbitrate: () => {
        throw new Error('timeout');
      },
    });
    expect(broken.decide([out({ ambiguous: true })])[0]).toMatchObject({
      level: 'steer',
      judge: { within_budget: true, verdict: 'indeterminate' },
    });
  });
});

describe('turn ladders and the reminder', () => {
  it('each turn gets fresh ladders: attempt counters never leak', () => {
    const s = settings();
    const a = createTurnLadders(s);
    for (let i = 0; i < 4; i++) a.enforce.decide([out()]);
    expect(a.enforce.stopped).toBe(true);
    const b = createTurnLadders(s);
    expect(b.enforce.decide([out()])[0]!.level).toBe('steer');
  });

  it('"Steer copy cites the signal and never echoes the repeated text"', () => {
    const looped = 'the same sentence over and over';
    const text = reminderText({ ...out({ excerpts: [looped] }) });
    expect(text).toContain('near_repetition');
    expect(text).not.toContain(looped);
  });
});
