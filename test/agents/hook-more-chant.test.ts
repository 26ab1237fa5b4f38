// A chanted text in the five 0.4 agents (issue 55 item 4): the model repeats the same paragraph
// round after round over varied shell calls (`echo step N`), under enforce. Seed 002: "Enforce
// steers first — a root-cause-oriented OutputLoopRecovery/ThinkingLoopRecovery internal reminder
// that never echoes the looped text"; its tests "assert that a repeating round injects the
// OutputLoopRecovery reminder into the round's messages". Here: the steer is in the next request
// the scripted server receives, and the guard decided as `analyze` reads the store, round for
// round. Each hook's stdin carries no text: the guard reads it where the agent wrote the response
// before its calls' hooks ran (docs/hook.md, "Five more agents").
// Needs the agents: `node test/agents/install-more.mjs <agent>`; skipped, saying why, without one.

import { expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { hookDecisions } from './harness.mjs';
import { AGENTS, type Agent, expectSameRounds, REMINDER, run } from './hook-more-live.js';
import { closingTurn } from './record-more.mjs';
import { CHANT } from './scenarios.js';

const ROUNDS = 4;
const script = (agent: Agent) => (v: { modelTurns: number }) =>
  v.modelTurns < ROUNDS ? { text: CHANT, calls: [{ role: 'shell', input: { command: `echo step ${v.modelTurns}` } }] } : closingTurn(agent, 'Done.');

for (const agent of AGENTS) {
  describeWith(`agent:${agent}`, `a chanted text in ${agent}`, () => {
    it('enforce: the guard steers, the reminder is in the next request the model receives, and the guard decided as analyze reads the store, round for round', { timeout: 600_000 }, async () => {
      const r = await run(agent, 'enforce', { script: script(agent) });
      expect(r.result.status).toBe(0);
      const steer = hookDecisions(r.ledgers).find((d) => d.action === 'steer');
      expect(steer?.entry?.detector, 'the guard steered the chant').toBe('output');
      const first = r.result.bodies.findIndex((b) => b.includes(`${REMINDER} your visible output`));
      expect(first, 'the recovery reminder reached the model').toBeGreaterThan(0);
      // The reminder names the signal, never the chanted text: the chant is in the request as the model's own words only.
      const rounds = expectSameRounds(r);
      expect(rounds.some((x) => /output\/\w+ .*enforce:steer/.test(x))).toBe(true);
    });
  });
}
