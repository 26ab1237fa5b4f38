// The live guard in the agents of issue 58 that can veto a call (item 3), each at its pinned
// release, driven by the scripted chat server (three identical failing shell calls, one that
// succeeds, a closing text) with the guard installed by `loopledger hook install <agent> --user
// --write` as a user would. One run per mode and agent, shared by the expectations on it:
// under enforce the third call is refused before it runs, the model reads why and the run goes on;
// under telemetry nothing is refused and the hook's verdicts are `analyze`'s of the store the agent
// wrote; a guard that cannot answer (its state folder impossible to create) leaves the agent running.
// Needs the agents: `node test/agents/install-more.mjs droid pi`; skipped, saying why, without.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { hookDecisions, liveAndStoreVerdicts } from './harness.mjs';
import { recordGuarded } from './record-more.mjs';

type Agent = 'droid' | 'pi';
const AGENTS: Agent[] = ['droid', 'pi'];
const REFUSED = /loopledger: refused before it ran\. This tool batch repeats the previous ones/;
const CASE = { timeout: 60_000 };
const CHANT = 'I will check the file again now to be sure that nothing has changed since the last time. '.repeat(8);

/** The tool answers' texts in the order the agent's store records them (Droid: tool_result blocks; pi: toolResult messages). */
function toolAnswers(agent: Agent, store: string): string[] {
  const files = readdirSync(store, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl'));
  expect(files, `${agent}: one session file`).toHaveLength(1);
  type Message = { role?: string; content?: unknown };
  const messages = readFileSync(join(store, files[0]!), 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { message?: Message }).message ?? {});
  const text = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c));
  return messages.flatMap((m) => {
    if (m.role === 'toolResult') return [text(m.content)];
    const blocks = Array.isArray(m.content) ? (m.content as { type?: string; content?: unknown }[]) : [];
    return blocks.filter((b) => b.type === 'tool_result').map((b) => text(b.content));
  });
}

type Run = Awaited<ReturnType<typeof recordGuarded>>;

const refusedAt = (bodies: string[]) => bodies.findIndex((b) => REFUSED.test(b));

for (const agent of AGENTS) {
  describeWith(`agent:${agent}`, `the live guard in ${agent}`, () => {
    const runs: Partial<Record<'enforce' | 'telemetry' | 'broken' | 'hooksJson' | 'chant', Run>> = {};
    beforeAll(async () => {
      runs.enforce = await recordGuarded(agent, 'enforce');
      runs.telemetry = await recordGuarded(agent, 'telemetry');
      runs.broken = await recordGuarded(agent, 'enforce', {
        stateDir: (home) => {
          writeFileSync(join(home, 'not-a-folder'), '');
          return join(home, 'not-a-folder', 'state');
        },
      });
      // Droid's docs say settings.json's `hooks` are read "if hooks.json is absent": a user with a hooks.json of their own, then.
      if (agent === 'droid') {
        runs.hooksJson = await recordGuarded(agent, 'enforce', { after: ({ home }) => writeFileSync(join(home, '.factory', 'hooks.json'), JSON.stringify({ Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] })) });
        // The same text chanted over varied work (the old agents' scenario): Droid's transcript carries the text to the guard.
        runs.chant = await recordGuarded(agent, 'enforce', { script: (v) => (v.modelTurns < 4 ? { text: CHANT, calls: [{ role: 'shell', input: { command: `echo step ${v.modelTurns}` } }] } : { text: 'Done.' }) });
      }
    }, 300_000);

    it('enforce: the third identical failing call is refused before it runs, the model reads why, the run goes on to its end', CASE, () => {
      const r = runs.enforce!;
      expect(r.status).toBe(0);
      const first = refusedAt(r.bodies);
      // Requests 0–2 answer the calls before; the request after the third call carries the refusal.
      expect(first, 'a request after the third call carries the refusal').toBe(3);
      expect(r.requests, 'the run went on: the succeeding call and the closing text were asked for').toBe(5);
      // The agent's own record of the answers: the failing command ran twice; the third answer is the refusal.
      const answers = toolAnswers(agent, join(r.out, 'store'));
      expect(answers.filter((a) => a.includes('No such file or directory'))).toHaveLength(2);
      expect(answers[2]).toMatch(REFUSED);
    });

    it("telemetry: nothing refused; the hook's verdicts are analyze's of the store the agent wrote", CASE, () => {
      const r = runs.telemetry!;
      expect(r.status).toBe(0);
      expect(r.bodies.some((b) => REFUSED.test(b))).toBe(false);
      const { live: online, stored: offline } = liveAndStoreVerdicts(r.ledgers, join(r.out, 'store'));
      expect(online).toEqual(offline);
      expect(online).toContain('turn 1 round 3 tool_batch/repeated_batch strike 3 enforce:stop');
    });

    it('a guard that cannot answer (its state folder is a file) leaves the agent running every call', CASE, () => {
      const r = runs.broken!;
      expect(r.status).toBe(0);
      expect(r.requests).toBe(5);
      expect(r.bodies.some((b) => REFUSED.test(b))).toBe(false);
    });

    if (agent === 'droid') {
      it('Droid 0.225.2 with the user\'s own ~/.factory/hooks.json beside settings.json: the guard there still runs and refuses the third call', CASE, () => {
        const r = runs.hooksJson!;
        expect(r.status).toBe(0);
        expect(refusedAt(r.bodies)).toBe(3);
      });

      it('Droid: the same text chanted over varied work gets a steer that reaches the model in a later request; analyze of the store steers it too', CASE, () => {
        const r = runs.chant!;
        expect(r.status).toBe(0);
        expect(hookDecisions(r.ledgers).some((d) => d.action === 'steer'), 'the hook steered').toBe(true);
        expect(r.bodies.findIndex((b) => b.includes('Loop detection: your visible output')), 'the reminder reached the model').toBeGreaterThan(0);
        const offline = liveAndStoreVerdicts(r.ledgers, join(r.out, 'store')).stored;
        expect(offline.some((v) => /output\/\w+ .*enforce:steer/.test(v))).toBe(true);
      });
    }
  });
}
