// A state that is lost (deleted, or corrupt and started over) at any call of a looping session:
// the guard rebuilds it from the transcript, and its answers are the undisturbed run's, to the
// byte (issue 27: "the guard's verdict unchanged whenever the payload and transcript are
// intact"). The transcript's copy of an answer and the payload's must digest alike for that: a
// loop whose first occurrences were read back from the transcript and whose last came on stdin
// is still one run (src/hook/payload.ts, answerText).

import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scratch } from '../cli/helpers.js';
import { type AgentName, fakeAgent, type HookRun, type ToolUse } from './agents.js';
import { inProcess } from './inprocess.js';

const tmp = scratch('loopledger-hook-start-over-');
afterAll(() => tmp.cleanup());

const SHELL: Record<AgentName, string> = { 'claude-code': 'Bash', gemini: 'run_shell_command', codex: 'Bash' };

/**
 * Varied work, then the same failing call three times: refused before its third run, the turn
 * ended there (what comes after a stop is the agent's, not the guard's). Gemini CLI 0.61 runs a
 * failing shell command as a successful call whose output says "Exit Code: 1" (test/agents).
 */
function steps(agent: AgentName): ToolUse[] {
  const shell = SHELL[agent];
  const error = "src/index.ts(3,1): error TS2304: Cannot find name 'x'.";
  const fail: ToolUse = agent === 'gemini' ? { name: shell, input: { command: 'npm run build' }, output: `${error}\nExit Code: 1` } : { name: shell, input: { command: 'npm run build' }, output: error, error: true };
  return [{ name: shell, input: { command: 'ls src' }, output: 'index.ts\nutil.ts' }, { name: shell, input: { command: 'git status --short' }, output: ' M src/index.ts' }, fail, fail, fail];
}

let n = 0;
async function play(agent: AgentName, loseStateAtCall: number | null): Promise<string[]> {
  n += 1;
  const dir = join(tmp.dir, `${agent}-${n}`);
  mkdirSync(dir);
  const stateDir = join(dir, 'state');
  const session = `start-over-0000-4000-8000-${String(n).padStart(12, '0')}`;
  let calls = 0;
  const runs: HookRun[] = [];
  const runner = async (args: readonly string[], stdin: string): Promise<HookRun> => {
    calls += 1;
    if (calls === loseStateAtCall) rmSync(join(stateDir, `${session}.state.json`), { force: true });
    const run = await inProcess(args, stdin);
    runs.push(run);
    return run;
  };
  const fake = fakeAgent(agent, { dir, session, mode: 'enforce', stateDir, runner });
  fake.user('make the build pass');
  for (const [i, call] of steps(agent).entries()) await fake.round({ text: `Step ${i}.`, calls: [call] });
  return runs.map((r) => r.stdout);
}

describe.each<AgentName>(['claude-code', 'gemini'])('%s: the state lost at any call of a loop', (agent) => {
  it('gives the undisturbed answers, call for call', async () => {
    const reference = await play(agent, null);
    // The loop is refused in the reference, at the last call (else the comparison would prove nothing).
    expect(reference.map((out) => out.includes('refused before it ran'))).toEqual(reference.map((_, i) => i === reference.length - 1));
    for (let at = 2; at <= reference.length; at++) {
      expect(await play(agent, at), `state lost before call ${at}`).toEqual(reference);
    }
  });
});
