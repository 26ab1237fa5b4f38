// The live guard in the five 0.4 agents at their pinned releases (issue 55 item 4), each driven by
// the scripted chat server with the guard installed by `loopledger hook install <agent> --user
// --write` as a user would. One agent run per scenario, several expectations on it:
// - the same failing call (three identical failing shell calls, one that succeeds, a closing
//   text): under enforce the third call is refused before it runs and the model reads why; under
//   telemetry nothing is refused; either way the hook's verdicts are those of `analyze --format
//   json` of the store the agent wrote, round for round;
// - a poll whose answer changes (`date +%s%N`): never refused, never steered;
// - a chanted text over varied calls: the steer reaches the model (hook-more-chant.test.ts);
// - a guard that cannot answer (its state folder impossible to create) leaves the agent running.
// Needs the agents: `node test/agents/install-more.mjs <agent>`; skipped, saying why, without one.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { hookDecisions } from './harness.mjs';
import { type Agent, AGENTS, expectSameRounds, REFUSED, REMINDER, run } from './hook-more-live.js';
import { closingTurn } from './record-more.mjs';

const POLL = 'date +%s%N';
const POLLS = 5;
/**
 * Qwen Code and Cline halt the fifth identical call in a row themselves, whatever its answer
 * (../shared/notes/agents-more.md; Qwen's guard cannot be switched off): their poll runs four
 * times, and the guard refused none of the five calls the model asked for.
 */
const OWN_HALT: Partial<Record<Agent, RegExp>> = {
  qwen: /Loop detection halted the run \(consecutive_identical_tool_calls/,
  cline: /Detected 5 consecutive identical calls/,
};

for (const agent of AGENTS) {
  describeWith(`agent:${agent}`, `the live guard in ${agent}`, () => {
    it('enforce: the third identical failing call is refused before it runs, the model reads why, the run goes on to its end; the guard decided as analyze reads the store, round for round', { timeout: 600_000 }, async () => {
      const r = await run(agent, 'enforce');
      expect(r.result.status).toBe(0);
      const first = r.result.bodies.findIndex((b) => REFUSED.test(b));
      expect(first, 'a request after the third call carries the refusal').toBeGreaterThan(0);
      // Qwen Code and Cline would halt the run themselves at the fifth; the guard acted at the third.
      expect(r.result.bodies.slice(0, first).some((b) => REFUSED.test(b))).toBe(false);
      const refusal = hookDecisions(r.ledgers).filter((d) => d.action === 'deny');
      expect(refusal.map((d) => d.entry?.round)).toEqual([3]);
      const rounds = expectSameRounds(r);
      expect(rounds.slice(0, 3)).toEqual([
        'round 1: -',
        'round 2: turn 1 round 2 tool_batch/repeated_batch strike 2 enforce:noted',
        'round 3: turn 1 round 3 tool_batch/repeated_batch strike 3 enforce:stop',
      ]);
    });

    it('telemetry: nothing refused; the guard decided as analyze reads the store, round for round', { timeout: 600_000 }, async () => {
      const r = await run(agent, 'telemetry');
      expect(r.result.status).toBe(0);
      expect(r.result.bodies.some((b) => REFUSED.test(b))).toBe(false);
      expect(hookDecisions(r.ledgers).every((d) => d.action === 'none')).toBe(true);
      const rounds = expectSameRounds(r);
      expect(rounds).toContain('round 3: turn 1 round 3 tool_batch/repeated_batch strike 3 enforce:stop');
    });

    it(`a poll whose answer changes (${POLL}, ${POLLS} times) under enforce: never refused, never steered, every answer reaches the model`, { timeout: 600_000 }, async () => {
      const shell = { calls: [{ role: 'shell', input: { command: POLL } }] };
      const r = await run(agent, 'enforce', { script: (v) => (v.modelTurns < POLLS ? shell : closingTurn(agent, 'Polled.')) });
      const halt = OWN_HALT[agent];
      if (halt) expect(readFileSync(join(r.out, 'run.log'), 'utf8'), 'the agent halted the fifth identical call itself').toMatch(halt);
      else expect(r.result.status).toBe(0);
      expect(hookDecisions(r.ledgers).filter((d) => d.action !== 'none')).toEqual([]);
      expect(r.result.bodies.some((b) => REFUSED.test(b) || b.includes(REMINDER))).toBe(false);
      // The conversation's last request holds every answer the model read, each a different 19-digit
      // time. It is not always the last request of all: a side request (a title, a summary; seen once
      // in Kilo, in a fresh-clone CI run) may come after it.
      const answers = Math.max(...r.result.bodies.map((b) => new Set(b.match(/\b\d{19}\b/g) ?? []).size));
      expect(answers, 'every poll that ran reached the model').toBeGreaterThanOrEqual(halt ? POLLS - 1 : POLLS);
      const rounds = expectSameRounds(r);
      expect(rounds.filter((x) => /enforce:(steer|stop)/.test(x))).toEqual([]);
    });

    it('a guard that cannot answer (its state folder is a file) leaves the agent running every call', { timeout: 600_000 }, async () => {
      const r = await run(agent, 'enforce', {
        stateDir: (home) => {
          writeFileSync(join(home, 'not-a-folder'), '');
          return join(home, 'not-a-folder', 'state');
        },
      });
      expect(r.result.status).toBe(0);
      expect(r.result.bodies.some((b) => REFUSED.test(b))).toBe(false);
    });
  });
}
