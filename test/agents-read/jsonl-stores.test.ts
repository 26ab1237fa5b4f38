// The JSON-lines stores of the 0.4 agents as their pinned releases wrote them (fixtures/agents/
// <agent>-<version>, laid out as under the agent's home folder), read offline: the counts come
// from the recording script (test/agents/record-more.mjs, the fixtures' READMEs), not from the
// reader. Each store is found with no path through the variable that moves it, and listed by `stores`.

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli } from '../cli/helpers.js';

/** `variable` moves the store (to the fixture's `under` folder, when given); `null`: the store is under HOME only. */
const STORES: readonly { agent: string; dir: string; variable: string | null; under?: string; calls: number; usage?: Record<string, number> }[] = [
  { agent: 'copilot', dir: 'copilot-1.0.102', variable: 'COPILOT_HOME', calls: 4 },
  { agent: 'qwen', dir: 'qwen-0.24.4', variable: null, calls: 4 },
  // Cline's -y mode ends a run only through its submit_and_exit tool: one call more.
  { agent: 'cline', dir: 'cline-3.0.65', variable: null, calls: 5 },
  { agent: 'pi', dir: 'pi-0.73.1', variable: 'PI_CODING_AGENT_DIR', under: '.pi/agent', calls: 4 },
  // Droid keeps no usage per response, only the session's totals in the settings file beside the transcript.
  { agent: 'droid', dir: 'droid-0.225.2', variable: 'FACTORY_HOME_OVERRIDE', calls: 4, usage: { requests: 0 } },
];

beforeAll(() => ensureBuilt());

describe.each(STORES)('the $agent store, read as the run that wrote it', ({ agent, dir, variable, under, calls, usage }) => {
  const home = join(ROOT, 'fixtures/agents', dir);
  const env: Record<string, string> = variable ? { HOME: join(ROOT, '.tmp/no-such-home'), [variable]: join(home, under ?? '') } : { HOME: home };

  it(`one session of 5 rounds and ${calls} calls, the three failing \`cat\` calls a loop noted at 2 and stopped at 3`, async () => {
    const r = await runCli(['--format', 'json'], { env });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.sessions).toHaveLength(1);
    const s = report.sessions[0];
    expect({ format: s.format, agent: s.agent, parent: s.parent, turns: s.turns, rounds: s.rounds, calls: s.tool_calls }).toEqual({
      format: agent,
      agent,
      parent: null,
      turns: 1,
      rounds: 5,
      calls,
    });
    // 1010 + 1020 + 1030 + 1040 + 1050 prompt tokens, 20 completion tokens per request.
    expect(s.usage).toMatchObject(usage ?? { requests: 5, input_tokens: 5150, output_tokens: 100 });
    const verdicts = s.entries.filter((e: { after_stop: boolean }) => !e.after_stop).map((e: { round: number; kind: string; intervention: { enforce: string } }) => `${e.round} ${e.kind} ${e.intervention.enforce}`);
    expect(verdicts).toEqual(['2 repeated_batch noted', '3 repeated_batch stop']);
    // Nothing else in the store is taken for a transcript.
    expect(report.inputs).toHaveLength(1);
  });

  it(`is listed by \`stores\` as found${variable ? ` through ${variable}` : ' under HOME'}`, async () => {
    const r = await runCli(['stores', '--json'], { env });
    const store = JSON.parse(r.stdout).stores.find((s: { agent: string }) => s.agent === agent);
    expect(store).toMatchObject({ found: true, via: variable, sessions: 1, subagents: 0, files: 1 });
  });
});

describe.each([
  { agent: 'pi', dir: 'pi-0.73.1', place: '~/.pi/agent/sessions' },
  { agent: 'droid', dir: 'droid-0.225.2', place: '~/.factory/sessions' },
])('the $agent store with no variable set', ({ agent, dir, place }) => {
  it(`is found at its default place under HOME, ${place}`, async () => {
    const r = await runCli(['stores', '--json'], { env: { HOME: join(ROOT, 'fixtures/agents', dir) } });
    const store = JSON.parse(r.stdout).stores.find((s: { agent: string }) => s.agent === agent);
    expect(store).toMatchObject({ found: true, via: null, sessions: 1, files: 1 });
  });
});
