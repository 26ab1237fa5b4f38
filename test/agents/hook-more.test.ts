// The live guard in the five 0.4 agents at their pinned releases (issue 55 item 4), each driven by
// the scripted chat server (three identical failing shell calls, one that succeeds, a closing text)
// with the guard installed by `loopledger hook install <agent> --user --write` as a user would:
// under enforce the third call is refused before it runs and the model reads why; under telemetry
// nothing is refused and the hook's verdicts are `analyze`'s of the store the agent wrote; a guard
// that cannot answer (its state folder impossible to create) leaves the agent running.
// Needs the agents: `node test/agents/install-more.mjs <agent>`; skipped, saying why, without one.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { analyze, type Entry, hookDecisions, LOOPLEDGER, verdictKey } from './harness.mjs';
import { record } from './record-more.mjs';

type Agent = 'opencode' | 'kilo' | 'qwen' | 'copilot' | 'cline';
// On a machine at load 30 a hook can pass the agents' 5 s timeout and the run goes on unguarded
// (failing open, as it should): the enforce case then fails, and says so.
const AGENTS: Agent[] = ['qwen', 'opencode', 'kilo', 'copilot', 'cline'];
const REFUSED = /loopledger: refused before it ran\. This tool batch repeats the previous ones/;

async function run(agent: Agent, mode: string, stateDir?: (home: string) => string) {
  const out = mkdtempSync(join(tmpdir(), `loopledger-live-${agent}-`));
  let state = '';
  const result = await record(agent, out, {
    before: ({ home, work, env }) => {
      state = stateDir?.(home) ?? join(home, 'll-state');
      const i = spawnSync(process.execPath, [LOOPLEDGER, 'hook', 'install', agent, '--user', '--write', '--mode', mode, '--state-dir', state], { cwd: work, env, encoding: 'utf8' });
      expect(i.status, i.stderr).toBe(0);
    },
  });
  const ledgers = existsSync(state) ? readdirSync(state).filter((f) => f.endsWith('.ledger.jsonl')).map((f) => join(state, f)) : [];
  return { result, out, ledgers };
}

const verdicts = (entries: Entry[]) => [...new Set(entries.filter((e) => !e.after_stop).map(verdictKey))];

for (const agent of AGENTS) {
  describeWith(`agent:${agent}`, `the live guard in ${agent}`, () => {
    it('enforce: the third identical failing call is refused before it runs, the model reads why, the run goes on to its end', { timeout: 600_000 }, async () => {
      const { result } = await run(agent, 'enforce');
      expect(result.status).toBe(0);
      const first = result.bodies.findIndex((b) => REFUSED.test(b));
      expect(first, 'a request after the third call carries the refusal').toBeGreaterThan(0);
      // Qwen Code and Cline would halt the run themselves at the fifth; the guard acted at the third.
      expect(result.bodies.slice(0, first).some((b) => REFUSED.test(b))).toBe(false);
    });

    it('telemetry: nothing refused; the hook\'s verdicts are analyze\'s of the store the agent wrote', { timeout: 600_000 }, async () => {
      const { result, out, ledgers } = await run(agent, 'telemetry');
      expect(result.status).toBe(0);
      expect(result.bodies.some((b) => REFUSED.test(b))).toBe(false);
      const online = verdicts(hookDecisions(ledgers).map((d) => d.entry).filter((e): e is Entry => e !== undefined));
      const offline = verdicts(analyze([join(out, 'store')]).sessions.flatMap((s: { entries: Entry[] }) => s.entries));
      expect(online).toEqual(offline);
      expect(online).toContain('turn 1 round 3 tool_batch/repeated_batch strike 3 enforce:stop');
    });

    it('a guard that cannot answer (its state folder is a file) leaves the agent running every call', { timeout: 600_000 }, async () => {
      const { result } = await run(agent, 'enforce', (home) => {
        writeFileSync(join(home, 'not-a-folder'), '');
        return join(home, 'not-a-folder', 'state');
      });
      expect(result.status).toBe(0);
      expect(result.bodies.some((b) => REFUSED.test(b))).toBe(false);
    });
  });
}
