// SPEC 0.3 "On refusal": "`tool_batch.on_refusal`: `stop` (default, seed 000) or `steer` (the
// ladder stops after unheeded steers)."

import { beforeAll, describe, expect, it } from 'vitest';
import { defaultLadderSettings } from '../../src/ladder/config.js';
import { EnforceLadder } from '../../src/ladder/ladder.js';
import { finding } from '../ledger/fakes.js';
import { ensureBuilt, runCli } from '../cli/helpers.js';

const refused = () => [finding('tool_batch', 'repeated_batch', { loop: true })];

describe('tool_batch.on_refusal', () => {
  it('stop (the default): seed 000 refuses the batch and the turn ends at once', () => {
    expect(defaultLadderSettings().onRefusal).toBe('stop');
    const l = new EnforceLadder(defaultLadderSettings());
    expect(l.decide(refused())[0]).toMatchObject({ level: 'stop', finalizationReason: 'loop_detected' });
  });

  it('steer: each refusal steers, and the one after ladder.max_unheeded_steers unheeded steers stops', () => {
    for (const max of [1, 2, 3]) {
      const l = new EnforceLadder({ ...defaultLadderSettings(), onRefusal: 'steer', maxUnheededSteers: max });
      const levels = Array.from({ length: max + 2 }, () => l.decide(refused())[0]!.level);
      expect(levels).toEqual([...Array<string>(max).fill('steer'), 'stop', 'none']);
      expect(l.unheededSteers).toBe(max);
    }
  });

  it('steer: a refusal is unheeded only when the tool-batch signal shows again in the turn; other rounds do not count', () => {
    const l = new EnforceLadder({ ...defaultLadderSettings(), onRefusal: 'steer' });
    expect(l.decide(refused())[0]!.level).toBe('steer');
    for (let i = 0; i < 10; i++) l.decide([finding('output', 'near_repetition', { confidence: 0.1 })]);
    expect(l.unheededSteers).toBe(0);
    expect(l.stopped).toBe(false);
    expect(l.decide(refused())[0]!.level).toBe('steer');
    expect(l.unheededSteers).toBe(1);
  });

  describe('through the binary', () => {
    beforeAll(() => ensureBuilt());
    const levels = async (...set: string[]) => {
      const r = await runCli(['analyze', 'fixtures/calibration/canonical/loop-migrate-retry.jsonl', '--format', 'json', ...set.flatMap((s) => ['--set', s])]);
      expect(r.code, r.stderr).not.toBe(2);
      const j = JSON.parse(r.stdout) as { sessions: { entries: { round: number; kind: string; intervention: { enforce: string } }[] }[] };
      return j.sessions[0]!.entries.filter((e) => e.kind === 'repeated_batch').map((e) => `${e.round}:${e.intervention.enforce}`);
    };

    it('the migrate retry (refused at round 5) stops there by default; with steer it steers rounds 5-7 and stops at the next with max_unheeded_steers 2', async () => {
      expect(await levels()).toEqual(['4:noted', '5:stop', '6:none', '7:none']);
      expect(await levels('tool_batch.on_refusal=steer')).toEqual(['4:noted', '5:steer', '6:steer', '7:steer']);
      expect(await levels('tool_batch.on_refusal=steer', 'ladder.max_unheeded_steers=2')).toEqual(['4:noted', '5:steer', '6:steer', '7:stop']);
    });

    it('any other value is a usage error (exit 2) naming the key', async () => {
      const r = await runCli(['analyze', 'fixtures/calibration/canonical/loop-migrate-retry.jsonl', '--set', 'tool_batch.on_refusal=maybe']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/tool_batch\.on_refusal/);
    });
  });
});
