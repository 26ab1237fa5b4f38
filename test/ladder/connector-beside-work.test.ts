// Issue 28, item 3: "A numbered plan, a list of steps or "Let me …" narration between varied,
// answered tool calls is not connector stalling. Keep the seed's connector cases firing."
// Issue 54, item 5: "Connector and opening patterns in reasoning beside varied, answered tool calls
// never steer on their own; identical reasoning steers only when it repeats while nothing new
// comes back from the tools. Keep every seed 002 case firing".

import { beforeAll, describe, expect, it } from 'vitest';
import { defaultLadderSettings } from '../../src/ladder/config.js';
import { EnforceLadder } from '../../src/ladder/ladder.js';
import { finding } from '../ledger/fakes.js';
import { ensureBuilt, runCli } from '../cli/helpers.js';

const openings = (over = {}) => finding('output', 'connector_stalling', { confidence: 0.8, evidence: { pattern: 'openings', openings: 7 }, ...over });

describe('connector openings beside varied, answered work', () => {
  it('are noted, however often; without that work they steer as before', () => {
    const beside = new EnforceLadder(defaultLadderSettings());
    expect(Array.from({ length: 6 }, () => beside.decide([openings({ variedWork: true })])[0]!.level)).toEqual(Array(6).fill('noted'));
    const alone = new EnforceLadder(defaultLadderSettings());
    expect(alone.decide([openings()])[0]!.level).toBe('steer');
  });

  it('a run made only of connectors ("wait, wait, wait") still steers beside work in visible text', () => {
    const l = new EnforceLadder(defaultLadderSettings());
    expect(l.decide([finding('output', 'connector_stalling', { confidence: 0.8, evidence: { pattern: 'run' }, variedWork: true })])[0]!.level).toBe('steer');
  });

  it('issue 54 item 5: in reasoning beside varied, answered work a run is noted, however often; without that work it steers (seed 002)', () => {
    const run = (over = {}) => finding('thinking', 'connector_stalling', { confidence: 0.85, evidence: { pattern: 'run', repeats: 3 }, ...over });
    const beside = new EnforceLadder(defaultLadderSettings());
    expect(Array.from({ length: 6 }, () => beside.decide([run({ variedWork: true })])[0]!.level)).toEqual(Array(6).fill('noted'));
    expect(beside.unheededSteers).toBe(0);
    const alone = new EnforceLadder(defaultLadderSettings());
    expect(Array.from({ length: 2 }, () => alone.decide([run()])[0]!.level)).toEqual(['steer', 'steer']);
  });

  it('issue 54: "connector and opening patterns in reasoning beside varied, answered tool calls never steer on their own"', () => {
    const t = new EnforceLadder(defaultLadderSettings());
    const thinking = (over = {}) => finding('thinking', 'connector_stalling', { confidence: 0.8, evidence: { pattern: 'openings', openings: 9 }, ...over });
    expect(Array.from({ length: 6 }, () => t.decide([thinking({ variedWork: true })])[0]!.level)).toEqual(Array(6).fill('noted'));
    expect(new EnforceLadder(defaultLadderSettings()).decide([thinking()])[0]!.level).toBe('steer');
  });

  it('issue 54: openings carried over from earlier rounds are noted even where the round itself has no tool work (its closing summary)', () => {
    for (const detector of ['output', 'thinking'] as const) {
      const carried = finding(detector, 'connector_stalling', { confidence: 0.8, evidence: { pattern: 'openings', openings: 6, carried: true } });
      expect(new EnforceLadder(defaultLadderSettings()).decide([carried])[0]!.level).toBe('noted');
      const own = finding(detector, 'connector_stalling', { confidence: 0.8, evidence: { pattern: 'openings', openings: 6 } });
      expect(new EnforceLadder(defaultLadderSettings()).decide([own])[0]!.level).toBe('steer');
    }
  });

  describe('through the binary', () => {
    beforeAll(() => ensureBuilt());
    it('the plan fixture (seven "Then …" openings beside new reads and writes) is noted; the seed\'s "Wait," case still steers', async () => {
      const r = await runCli(['analyze', 'fixtures/calibration/canonical/clean-plan-beside-work.jsonl', 'fixtures/canonical/kinds.jsonl', '--format', 'json']);
      expect(r.code, r.stderr).not.toBe(2);
      const j = JSON.parse(r.stdout) as { sessions: { id: string; entries: { kind: string; evidence: Record<string, unknown>; intervention: { enforce: string } }[] }[] };
      const plan = j.sessions.find((s) => s.id === 'clean-plan-beside-work')!;
      const found = plan.entries.filter((e) => e.kind === 'connector_stalling');
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((e) => e.evidence.varied_work === true && e.intervention.enforce === 'noted')).toBe(true);
      const wait = j.sessions.find((s) => s.id === 'kinds-connector-output')!;
      expect(wait.entries.filter((e) => e.kind === 'connector_stalling').map((e) => e.intervention.enforce)).toContain('steer');
    });

    it('issue 54: "wait" three times in a row in reasoning, each round reading a new file, is noted; the seed\'s "wait, but actually" in thinking still steers', async () => {
      const r = await runCli(['analyze', 'fixtures/canonical/clean-think-wait-beside-work.jsonl', 'fixtures/canonical/kinds.jsonl', '--format', 'json']);
      expect(r.code, r.stderr).not.toBe(2);
      const j = JSON.parse(r.stdout) as { sessions: { id: string; entries: { kind: string; detector: string; evidence: Record<string, unknown>; intervention: { enforce: string } }[] }[] };
      const beside = j.sessions.find((s) => s.id === 'clean-think-wait-beside-work')!;
      const found = beside.entries.filter((e) => e.kind === 'connector_stalling');
      expect(found.map((e) => [e.detector, e.evidence.pattern, e.evidence.varied_work, e.intervention.enforce])).toEqual([['thinking', 'run', true, 'noted']]);
      expect(beside.entries.every((e) => e.intervention.enforce === 'noted')).toBe(true);
      const seed = j.sessions.find((s) => s.id === 'kinds-connector-thinking')!;
      expect(seed.entries.filter((e) => e.kind === 'connector_stalling').map((e) => e.intervention.enforce)).toEqual(['steer']);
    });
  });
});
