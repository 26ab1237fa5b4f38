// Seed 002's thinking-detector cases: "adjacent thinking stagnation, identical thinking blocks,
// connector stalling inside thinking, and the reasoning-token usage bypass", and the detector it
// describes: "ThinkingLoopDetector: adjacent-block similarity, connector stalling inside thinking
// blocks and the usage bypass for opaque reasoning, whose confidence is capped so it can only steer."

import { describe, expect, it } from 'vitest';
import {
  THINKING_KEYS,
  ThinkingLoopDetector,
  createThinkingRoundDetector,
  defaultThinkingConfig,
} from '../../../src/detect/thinking/index.js';
import { parseConfig } from '../../../src/config/registry.js';
import { ConfigError } from '../../../src/errors.js';
import type { Round } from '../../../src/model/transcript.js';
import { prose, round } from '../output/corpus.js';

const BLOCK =
  'I need to find out why the integration test fails. The fixture loads the configuration from disk, ' +
  'and the parser rejects the retry key because it expects an integer. Let me check the parser again.';

function thinkingRound(index: number, texts: (string | null)[], usage: Round['usage'] = null, text = 'ok'): Round {
  return round(text, {
    index,
    thinking: texts.map((t) => ({ text: t, opaque: t === null })),
    usage,
  });
}

describe('thinking positives (seed 002 test list)', () => {
  it('adjacent thinking stagnation: the next block restates the previous one with small edits', () => {
    const d = new ThinkingLoopDetector();
    expect(d.feedBlock(BLOCK)).toEqual([]);
    const f = d.feedBlock(BLOCK.replace('Let me check the parser again.', 'Let me check that parser once more.'));
    expect(f.map((x) => x.kind)).toEqual(['thinking_stagnation']);
    expect(f[0]!.evidence['identical']).toBe(false);
    expect(f[0]!.evidence['similarity']).toBeGreaterThanOrEqual(0.85);
    expect(f[0]!.detector).toBe('thinking');
  });

  it('identical thinking blocks: stagnation with identical=true (the seed folds them into adjacent-block similarity)', () => {
    const d = new ThinkingLoopDetector();
    d.feedBlock(BLOCK);
    const f = d.feedBlock(BLOCK);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ kind: 'thinking_stagnation', confidence: 0.95, ambiguous: false });
    expect(f[0]!.evidence).toMatchObject({ identical: true, similarity: 1 });
  });

  it('similarity in the 0.85-0.90 band is ambiguous (the judge is asked)', () => {
    const d = new ThinkingLoopDetector({ similarityStrong: 0.999 });
    d.feedBlock(BLOCK);
    const f = d.feedBlock(BLOCK.replace('integration test', 'unit test'));
    expect(f[0]!.ambiguous).toBe(true);
  });

  it('connector stalling inside thinking: an alternating connector run', () => {
    const d = new ThinkingLoopDetector();
    const f = d.feedBlock('The sum is 12. Wait, but actually, wait, but actually, wait, but actually, it might be 13.');
    expect(f.map((x) => [x.detector, x.kind])).toEqual([['thinking', 'connector_stalling']]);
    expect(f[0]!.evidence).toMatchObject({ pattern: 'run', period_units: 3, repeats: 3 });
  });

  it('connector stalling inside thinking: "Wait," re-opening sentence after sentence', () => {
    const d = new ThinkingLoopDetector();
    const f = d.feedBlock(
      'Wait, the cache is stale. Wait, the key rotated. Wait, that breaks login. Wait, sessions survive. Wait, unless tokens are reused.',
    );
    expect(f[0]).toMatchObject({ kind: 'connector_stalling', detector: 'thinking' });
    expect(f[0]!.evidence['pattern']).toBe('openings');
  });

  it('the reasoning-token bypass: opaque reasoning growing against tiny visible output, capped so it can only steer', () => {
    const det = createThinkingRoundDetector(defaultThinkingConfig());
    const usage = (r: number) => ({ inputTokens: 1000, outputTokens: r + 5, reasoningTokens: r });
    expect(det.observe(thinkingRound(1, [null], usage(6000))).findings).toEqual([]);
    const second = det.observe(thinkingRound(2, [null], usage(12000))).findings;
    expect(second.map((f) => f.kind)).toEqual(['reasoning_runaway']);
    expect(second[0]!.confidence).toBeLessThanOrEqual(0.6);
    expect(second[0]!.evidence).toMatchObject({ opaque: true, streak_rounds: 2, streak_reasoning_tokens: 18000 });
    let last = second;
    for (let i = 3; i <= 12; i++) last = det.observe(thinkingRound(i, [null], usage(20000 + i))).findings;
    expect(last[0]!.confidence).toBe(0.6);
    // No thinking blocks at all while reasoning is billed is opaque too (hidden reasoning).
    const hidden = createThinkingRoundDetector(defaultThinkingConfig());
    hidden.observe(thinkingRound(1, [], usage(9000)));
    expect(hidden.observe(thinkingRound(2, [], usage(9000))).findings.map((f) => f.kind)).toEqual(['reasoning_runaway']);
  });

  it('round adapter: blocks of consecutive rounds are adjacent; a continuing loop reports every round', () => {
    const det = createThinkingRoundDetector(defaultThinkingConfig());
    expect(det.observe(thinkingRound(1, [BLOCK])).findings).toEqual([]);
    for (let i = 2; i <= 4; i++) {
      const obs = det.observe(thinkingRound(i, [BLOCK]));
      expect(obs.findings.map((f) => f.kind)).toEqual(['thinking_stagnation']);
      expect(obs.measurements.some((m) => m.kind === 'thinking_stagnation' && m.statistic === 'similarity')).toBe(true);
    }
  });
});

describe('thinking negatives', () => {
  it('progressing thinking blocks are not stagnation', () => {
    const det = createThinkingRoundDetector(defaultThinkingConfig());
    for (let i = 1; i <= 6; i++) {
      const obs = det.observe(thinkingRound(i, [prose(100 + i, 800)]));
      expect(obs.findings).toEqual([]);
    }
  });

  it('short identical blocks ("Okay, next file.") carry too little to compare', () => {
    const d = new ThinkingLoopDetector();
    d.feedBlock('Okay, next file.');
    expect(d.feedBlock('Okay, next file.')).toEqual([]);
  });

  it('readable reasoning is judged by its text, not its usage', () => {
    const det = createThinkingRoundDetector(defaultThinkingConfig());
    const usage = { inputTokens: 1, outputTokens: 30000, reasoningTokens: 30000 };
    for (let i = 1; i <= 4; i++) {
      expect(det.observe(thinkingRound(i, [prose(200 + i, 600)], usage)).findings).toEqual([]);
    }
  });

  it('long reasoning before a substantial visible answer is not runaway', () => {
    const det = createThinkingRoundDetector(defaultThinkingConfig());
    const usage = { inputTokens: 1, outputTokens: 30000, reasoningTokens: 20000 };
    for (let i = 1; i <= 4; i++) {
      expect(det.observe(thinkingRound(i, [null], usage, prose(300 + i, 12000))).findings).toEqual([]);
    }
  });

  it('no usage figures, empty and short blocks: nothing', () => {
    const det = createThinkingRoundDetector(defaultThinkingConfig());
    for (let i = 1; i <= 3; i++) expect(det.observe(thinkingRound(i, ['', 'ok', null])).findings).toEqual([]);
  });
});

describe('thinking invariants', () => {
  const blocks = [BLOCK, prose(7, 500), 'Wait, but actually, wait, but actually, wait, but actually.', BLOCK, BLOCK];

  it('identical verdicts for repeated runs', () => {
    const run = () => {
      const d = new ThinkingLoopDetector();
      return blocks.flatMap((b) => d.feedBlock(b));
    };
    expect(run()).toEqual(run());
  });

  it('snapshot/resume through JSON and reset', () => {
    const a = new ThinkingLoopDetector();
    const whole = blocks.flatMap((b) => a.feedBlock(b));
    const b = new ThinkingLoopDetector();
    const before = blocks.slice(0, 2).flatMap((x) => b.feedBlock(x));
    before.push(...b.observeUsage({ reasoningTokens: 9000, visibleTokens: 2, opaque: true }));
    const c = new ThinkingLoopDetector();
    c.restore(JSON.parse(JSON.stringify(b.snapshot())));
    const after = blocks.slice(2).flatMap((x) => c.feedBlock(x));
    expect([...before, ...after]).toEqual(whole);
    // The usage streak survived the snapshot.
    const d = new ThinkingLoopDetector();
    d.observeUsage({ reasoningTokens: 9000, visibleTokens: 2, opaque: true });
    const e = new ThinkingLoopDetector();
    e.restore(JSON.parse(JSON.stringify(d.snapshot())));
    expect(e.observeUsage({ reasoningTokens: 9000, visibleTokens: 2, opaque: true }).map((f) => f.kind)).toEqual(['reasoning_runaway']);
    e.reset();
    expect(e.observeUsage({ reasoningTokens: 9000, visibleTokens: 2, opaque: true })).toEqual([]);
    expect(e.feedBlock(BLOCK)).toEqual([]);
  });

  it("misconfiguration: out of range is the loader's error naming the key; relations between keys are repaired with a warning", () => {
    expect(() => new ThinkingLoopDetector({ similarityAmbiguous: 3 })).toThrow(ConfigError);
    expect(() => new ThinkingLoopDetector({ runawayConfidenceCap: -1 })).toThrow(/thinking\.runaway_confidence_cap=-1 is out of range/);
    expect(() => new ThinkingLoopDetector({ minBlockChars: -10 })).toThrow(/thinking\.min_block_chars/);
    expect(() => parseConfig({ 'thinking.runaway_min_rounds': 'x' })).toThrow(/thinking\.runaway_min_rounds="x": expected a whole number/);
    const warnings: string[] = [];
    const c = parseConfig({ 'thinking.similarity_strong': 0.5 }, (w) => warnings.push(w)).thinking;
    expect(c.similarityStrong).toBe(c.similarityAmbiguous);
    expect(warnings).toEqual(['thinking.similarity_strong (0.5) is below thinking.similarity_ambiguous (0.85); raised to it']);
    expect(new ThinkingLoopDetector({ similarityStrong: 0.5 }).configWarnings()).toHaveLength(1);
  });

  it('every key has a reason and a default inside its range; the runaway cap is not tier-scaled', () => {
    for (const k of THINKING_KEYS) {
      expect(k.key.startsWith('thinking.')).toBe(true);
      expect(k.reason.length).toBeGreaterThan(10);
      if (typeof k.default === 'number' && k.min !== undefined) expect(k.default).toBeGreaterThanOrEqual(k.min);
      if (typeof k.default === 'number' && k.max !== undefined) expect(k.default).toBeLessThanOrEqual(k.max);
    }
    expect(THINKING_KEYS.find((k) => k.key === 'thinking.runaway_confidence_cap')!.tier).toBeUndefined();
    expect(THINKING_KEYS.find((k) => k.key === 'thinking.similarity_ambiguous')!.tier).toBe('ratio');
    const values = Object.fromEntries(THINKING_KEYS.map((k) => [k.key, k.default]));
    expect(parseConfig(values).thinking).toEqual(defaultThinkingConfig());
  });

  it('findings carry statistics, not the looped text, and at most three short excerpts', () => {
    const d = new ThinkingLoopDetector();
    const all = blocks.flatMap((b) => d.feedBlock(b));
    expect(all.length).toBeGreaterThan(0);
    for (const f of all) {
      expect(f.excerpts.length).toBeLessThanOrEqual(3);
      for (const e of f.excerpts) expect(e.length).toBeLessThanOrEqual(80);
      for (const v of Object.values(f.evidence)) if (typeof v === 'string') expect(['run', 'openings']).toContain(v);
    }
  });
});
