// The ladder with a judge that answers: the confidence gate, what each verdict does, the budget,
// carried verdicts, and the port that answers from verdicts in hand (ladder/verdicts.ts).

import { describe, expect, it } from 'vitest';
import { defaultLadderSettings, type LadderSettings } from '../../src/ladder/config.js';
import type { JudgeAnswer, JudgePort, JudgeRequest } from '../../src/ladder/judge.js';
import { evidenceKey, judgeMessages } from '../../src/ladder/judge-prompt.js';
import { EnforceLadder } from '../../src/ladder/ladder.js';
import { VerdictBook, type KnownVerdict } from '../../src/ladder/verdicts.js';
import type { FindingKind } from '../../src/detect/types.js';
import { finding } from '../ledger/fakes.js';

function settings(judge: Partial<LadderSettings['judge']> = {}): LadderSettings {
  const base = defaultLadderSettings();
  return { ...base, judge: { ...base.judge, ...judge } };
}

const amb = (confidence = 0.88, kind: FindingKind = 'thinking_stagnation') =>
  finding('thinking', kind, { ambiguous: true, confidence, evidence: { similarity: confidence }, excerpts: ['next is a.ts'] });

/** A port that answers from a script and records what it was asked. */
function scripted(answers: JudgeAnswer[]): JudgePort & { asked: JudgeRequest[] } {
  const asked: JudgeRequest[] = [];
  return {
    asked,
    arbitrate(r) {
      asked.push(r);
      return answers[asked.length - 1] ?? { verdict: 'indeterminate', confidence: null, unusable: 'timeout', consulted: true };
    },
  };
}

describe('the confidence gate (judge.verdict_confidence_min 0.9)', () => {
  it('"A verdict at or above the gate decides": progress at 0.9 leaves the evidence noted', () => {
    const l = new EnforceLadder(settings(), scripted([{ verdict: 'progress', confidence: 0.9 }]));
    expect(l.decide([amb()], { round: 2 })[0]).toEqual({
      level: 'noted',
      afterStop: false,
      judge: { consulted: true, verdict: 'progress', confidence: 0.9, within_budget: true },
    });
  });

  it('below the gate, or without a usable confidence, the heuristic verdict stands', () => {
    for (const [confidence, why] of [
      [0.89, 'below_gate'],
      [null, 'no_confidence'],
      [1.5, 'no_confidence'],
      [Number.NaN, 'no_confidence'],
    ] as const) {
      const l = new EnforceLadder(settings(), scripted([{ verdict: 'progress', confidence }]));
      const d = l.decide([amb()])[0]!;
      expect(d.level).toBe('steer');
      expect(d.judge).toMatchObject({ consulted: true, verdict: 'indeterminate', unusable: why });
    }
  });

  it('"an answer without usable confidence never escalates": a loop without confidence at L2 keeps steering', () => {
    const port = scripted(Array(6).fill({ verdict: 'loop', confidence: null }));
    const l = new EnforceLadder(settings({ maxVerdictsPerTurn: 10 }), port);
    const levels = Array.from({ length: 6 }, () => l.decide([amb()])[0]!.level);
    expect(levels).toEqual(Array(6).fill('steer'));
  });

  it('a confident loop is "strong, stop-eligible": it stops only once the ladder is at L2', () => {
    const port = scripted(Array(6).fill({ verdict: 'loop', confidence: 0.97 }));
    const l = new EnforceLadder(settings({ maxVerdictsPerTurn: 10, carryVerdicts: false }), port);
    const levels = Array.from({ length: 4 }, () => l.decide([amb()])[0]!.level);
    // "hard-stops only after 3 unheeded steers": three steers, then the judge's loop stops.
    expect(levels).toEqual(['steer', 'steer', 'steer', 'stop']);
  });

  it('every unusable path is Indeterminate: a failed request, an unknown verdict word, a throwing port', () => {
    const failed = new EnforceLadder(settings(), scripted([{ verdict: 'indeterminate', confidence: null, consulted: true, unusable: 'http_429' }]));
    expect(failed.decide([amb()])[0]).toMatchObject({ level: 'steer', judge: { consulted: true, verdict: 'indeterminate', unusable: 'http_429' } });
    const odd = new EnforceLadder(settings(), scripted([{ verdict: 'maybe' as never, confidence: 0.99 }]));
    expect(odd.decide([amb()])[0]).toMatchObject({ level: 'steer', judge: { verdict: 'indeterminate' } });
    const throwing = new EnforceLadder(settings(), {
      arbitrate: () => {
        throw new Error('boom');
      },
    });
    expect(throwing.decide([amb()])[0]).toMatchObject({ level: 'steer', judge: { consulted: false, verdict: 'indeterminate' } });
  });
});

describe('the budget (judge.max_verdicts_per_turn 2)', () => {
  it('at most two arbitrations per turn; a fresh turn has a fresh budget', () => {
    const port = scripted(Array(10).fill({ verdict: 'loop', confidence: 0.5 }));
    const l = new EnforceLadder(settings({ carryVerdicts: false }), port);
    const d = Array.from({ length: 4 }, (_, i) => l.decide([amb(0.88 - i * 0.001)])[0]!);
    expect(port.asked).toHaveLength(2);
    expect(d.map((x) => x.judge?.within_budget)).toEqual([true, true, false, false]);
    expect(d[3]!.judge).toMatchObject({ consulted: false, unusable: 'over_budget' });
    new EnforceLadder(settings(), port).decide([amb()]);
    expect(port.asked).toHaveLength(3);
  });
});

describe('carried verdicts (judge.carry_verdicts)', () => {
  it('a confident progress covers weaker evidence of the same signal in its turn, without asking', () => {
    const port = scripted([{ verdict: 'progress', confidence: 0.95 }]);
    const l = new EnforceLadder(settings(), port);
    const d = [0.889, 0.879, 0.869, 0.869].map((c, i) => l.decide([amb(c)], { round: i + 2 })[0]!);
    expect(d.map((x) => x.level)).toEqual(['noted', 'noted', 'noted', 'noted']);
    expect(port.asked).toHaveLength(1);
    expect(d[2]!.judge).toEqual({ consulted: false, verdict: 'progress', confidence: 0.95, within_budget: true, carried_from: 2 });
  });

  it('stronger evidence, or another signal, is asked again', () => {
    const port = scripted([
      { verdict: 'progress', confidence: 0.95 },
      { verdict: 'loop', confidence: 0.95 },
      { verdict: 'loop', confidence: 0.95 },
    ]);
    const l = new EnforceLadder(settings({ maxVerdictsPerTurn: 5 }), port);
    l.decide([amb(0.87)]);
    expect(l.decide([amb(0.89)])[0]!.judge).toMatchObject({ consulted: true, verdict: 'loop' });
    l.decide([amb(0.86, 'near_repetition')]);
    expect(port.asked.map((r) => [r.kind, r.confidence])).toEqual([
      ['thinking_stagnation', 0.87],
      ['thinking_stagnation', 0.89],
      ['near_repetition', 0.86],
    ]);
  });

  it('a confident loop covers evidence at least as strong: at L2 it stops without a new request', () => {
    const port = scripted([{ verdict: 'loop', confidence: 0.96 }]);
    const l = new EnforceLadder(settings(), port);
    const levels = [0.86, 0.87, 0.88, 0.89].map((c) => l.decide([amb(c)])[0]!.level);
    expect(levels).toEqual(['steer', 'steer', 'steer', 'stop']);
    expect(port.asked).toHaveLength(1);
  });

  it('judge.carry_verdicts=false asks every time (within budget)', () => {
    const port = scripted(Array(3).fill({ verdict: 'progress', confidence: 0.95 }));
    const l = new EnforceLadder(settings({ carryVerdicts: false }), port);
    const d = [0.889, 0.879, 0.869].map((c) => l.decide([amb(c)])[0]!);
    expect(port.asked).toHaveLength(2);
    expect(d.map((x) => x.level)).toEqual(['noted', 'noted', 'steer']);
  });
});

describe('VerdictBook: the port over verdicts in hand', () => {
  const request: JudgeRequest = {
    detector: 'thinking',
    kind: 'thinking_stagnation',
    confidence: 0.88,
    evidence: { similarity: 0.88 },
    excerpts: ['next is src/api/orders.ts'],
    model: 'claude-sonnet-4-5-20250929',
  };
  const keyOf = (r: JudgeRequest, model = 'gpt-4o-mini') => {
    const { model: _m, ...rest } = r;
    return evidenceKey(model, judgeMessages(rest));
  };

  it('answers a known verdict, writes down an unknown one once, and skips speculative evidence', () => {
    const known = new Map<string, KnownVerdict>();
    const book = new VerdictBook({ model: 'gpt-4o-mini', verdicts: known });
    expect(book.arbitrate(request)).toMatchObject({ verdict: 'indeterminate', consulted: false, unusable: 'pending' });
    book.arbitrate(request);
    book.arbitrate({ ...request, confidence: 0.87, speculative: true });
    expect(book.pending().map((p) => p.key)).toEqual([keyOf(request)]);
    expect(book.pending()[0]!.signal).toBe('thinking/thinking_stagnation');

    known.set(keyOf(request), { verdict: 'progress', confidence: 0.93 });
    const again = new VerdictBook({ model: 'gpt-4o-mini', verdicts: known });
    expect(again.arbitrate(request)).toEqual({ verdict: 'progress', confidence: 0.93, consulted: true });
    expect(again.pending()).toEqual([]);
    expect(again.answered()).toEqual([keyOf(request)]);
  });

  it('the key is the judge model and what it is shown, never the monitored model', () => {
    expect(keyOf(request)).toBe(keyOf({ ...request, model: 'some-other-session-model' }));
    expect(keyOf(request)).not.toBe(keyOf(request, 'gpt-4.1-mini'));
    expect(keyOf(request)).not.toBe(keyOf({ ...request, confidence: 0.87 }));
    expect(keyOf(request)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('"skips any candidate that is the monitored turn\'s own model, including a second configuration entry for the same provider model"', () => {
    const book = new VerdictBook({ model: 'anthropic/claude-sonnet-4.5', verdicts: new Map() });
    expect(book.arbitrate(request)).toEqual({ verdict: 'indeterminate', confidence: null, consulted: false, unusable: 'self_arbitration' });
    expect(book.pending()).toEqual([]);
    // An unknown monitored model is not the judge's.
    book.arbitrate({ ...request, model: null });
    expect(book.pending()).toHaveLength(1);
  });

  it('a blocked judge (no API key) asks nothing', () => {
    const book = new VerdictBook({ model: 'gpt-4o-mini', blocked: 'no_api_key', verdicts: new Map() });
    expect(book.arbitrate(request)).toMatchObject({ verdict: 'indeterminate', consulted: false, unusable: 'no_api_key' });
    expect(book.pending()).toEqual([]);
  });

  it('with the ladder: after a pending arbitration, the rest of the turn is speculative', () => {
    const book = new VerdictBook({ model: 'gpt-4o-mini', verdicts: new Map() });
    const l = new EnforceLadder(settings(), book);
    l.decide([amb(0.889)]);
    l.decide([amb(0.879)]);
    expect(book.pending()).toHaveLength(1);
  });
});
