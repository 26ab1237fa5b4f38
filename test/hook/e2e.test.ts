// The live guard end to end: a growing transcript in each agent's format, the built binary called
// as each agent calls it. Issue #15's "done means": identical failing batches are denied at the
// third under enforce and the turn ended; polls with changing output and varied work are never
// denied; telemetry and off never block; garbage fails open.

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, runCli, scratch } from '../cli/helpers.js';
import { type AgentName, context, denied, ended, fakeAgent, type HookRun, runHook, runHookProcess, type ToolUse } from './agents.js';

const AGENTS: AgentName[] = ['claude-code', 'codex', 'gemini'];
/** Each agent's shell tool, as its hook sees it. */
const SHELL: Record<AgentName, string> = { 'claude-code': 'Bash', codex: 'Bash', gemini: 'run_shell_command' };

// Every hook call is a Node process: on a loaded 2-core machine a test of twenty calls, run beside
// two others, takes longer than the suite's default minute.
vi.setConfig({ testTimeout: 300_000 });

const tmp = scratch('loopledger-hook-e2e-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

let sessions = 0;
function setup(agent: AgentName, mode: 'off' | 'telemetry' | 'enforce', transcript: 'ahead' | 'behind' = 'ahead') {
  sessions += 1;
  const session = `0000000${sessions}-aaaa-4bbb-8ccc-${String(sessions).padStart(12, '0')}`;
  const stateDir = join(tmp.dir, `state-${sessions}`);
  const fake = fakeAgent(agent, { dir: tmp.dir, session, mode, stateDir, transcript });
  return { fake, stateDir, session };
}

const failing = (agent: AgentName): ToolUse => ({
  name: SHELL[agent],
  input: { command: 'npm run build' },
  output: "src/index.ts(3,1): error TS2304: Cannot find name 'x'.",
  error: true,
});

function silent(runs: readonly HookRun[]): boolean {
  return runs.every((r) => r.code === 0 && r.stdout === '');
}

function ledgerOf(stateDir: string): Record<string, unknown>[] {
  const file = readdirSync(stateDir).find((f) => f.endsWith('.ledger.jsonl'));
  if (!file) return [];
  return readFileSync(join(stateDir, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// The agents' sessions are independent: their tests run side by side.
describe.concurrent.each(AGENTS)('loopledger hook %s', (agent) => {
  it('under enforce, refuses the third identical failing batch before it runs and ends the turn', async () => {
    const { fake, stateDir } = setup(agent, 'enforce');
    fake.user('fix the build');
    const first = await fake.round({ text: 'Running the build.', calls: [failing(agent)] });
    const second = await fake.round({ text: 'Running the build again.', calls: [failing(agent)] });
    // Seed 000: "max_strikes = 2 allows two identical batches and errors on the third".
    expect(first.calls[0]!.post).not.toBeNull();
    expect(second.calls[0]!.post).not.toBeNull();
    expect(silent(fake.runs)).toBe(true);

    const third = await fake.round({ text: 'One more time.', calls: [failing(agent)] });
    const pre = third.calls[0]!.pre;
    expect(pre.code).toBe(0);
    expect(denied(pre, agent)).toBe(true);
    expect(third.calls[0]!.post).toBeNull();
    if (agent === 'codex') {
      // Codex rejects continue:false at PreToolUse (and would then run the call): the deny goes
      // alone, and whatever the agent tries next in this turn is refused and the turn ended.
      expect(ended(pre)).toBe(false);
      const next = await fake.round({ text: 'Trying something else.', calls: [{ name: 'Bash', input: { command: 'ls' }, output: 'src' }] });
      expect(denied(next.calls[0]!.pre, agent)).toBe(true);
    } else {
      expect(ended(pre)).toBe(true);
    }
    const decisions = ledgerOf(stateDir).filter((r) => r.type === 'decision');
    const refusal = decisions.find((d) => d.action === 'deny');
    expect(refusal).toMatchObject({ refused: true, mode: 'enforce', entry: { kind: 'repeated_batch', strike: { count: 3, threshold: 2 } } });
    expect(readdirSync(stateDir)).not.toContain('errors.log');
  });

  it('never refuses a poll whose output changes, nor varied work', async () => {
    const { fake, stateDir } = setup(agent, 'enforce');
    fake.user('wait for the deploy, then check the other services');
    for (let i = 1; i <= 6; i++) {
      await fake.round({
        text: i === 1 ? 'Watching the rollout.' : undefined,
        calls: [{ name: SHELL[agent], input: { command: 'kubectl rollout status deploy/web' }, output: `Waiting for rollout: ${i} of 10 updated replicas are available...` }],
      });
    }
    for (const svc of ['api', 'worker', 'db']) {
      await fake.round({ calls: [{ name: SHELL[agent], input: { command: `kubectl logs deploy/${svc} --tail=5` }, output: `${svc}: ok` }] });
    }
    await fake.finish('The rollout finished and every service is healthy.');
    expect(silent(fake.runs)).toBe(true);
    expect(readdirSync(stateDir)).not.toContain('errors.log');
  });

  it('under telemetry never changes the agent, and records what enforce would have done', async () => {
    const { fake, stateDir } = setup(agent, 'telemetry');
    fake.user('fix the build');
    for (let i = 0; i < 3; i++) await fake.round({ text: 'Running the build.', calls: [failing(agent)] });
    await fake.finish('I could not fix it.');
    expect(silent(fake.runs)).toBe(true);
    const decisions = ledgerOf(stateDir).filter((r) => r.type === 'decision') as { action: string; entry: { kind: string; intervention: { telemetry: string; enforce: string } } }[];
    expect(decisions.every((d) => d.action === 'none')).toBe(true);
    expect(decisions.some((d) => d.entry.kind === 'repeated_batch' && d.entry.intervention.enforce === 'stop' && d.entry.intervention.telemetry === 'noted')).toBe(true);
  });

  it('under off runs nothing and writes nothing', async () => {
    const { fake, stateDir } = setup(agent, 'off');
    fake.user('fix the build');
    for (let i = 0; i < 3; i++) await fake.round({ calls: [failing(agent)] });
    expect(silent(fake.runs)).toBe(true);
    expect(existsSync(stateDir)).toBe(false);
  });
});

describe('loopledger hook fails open', () => {
  const stateDir = join(tmp.dir, 'garbage');
  const errors = () => (existsSync(join(stateDir, 'errors.log')) ? readFileSync(join(stateDir, 'errors.log'), 'utf8').trim().split('\n') : []);
  const call = (agent: AgentName, stdin: string) => runHook([agent, '--mode', 'enforce', '--state-dir', stateDir], stdin);

  it.each([
    ['not JSON', '{"session_id": '],
    ['empty', ''],
    ['an array', '[1, 2, 3]'],
    ['no session', '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}'],
    ['binary', '\u0000\u0001\u0002\u00ff'],
  ])('stdin %s: exit 0, nothing on stdout, one line in errors.log', async (_what, stdin) => {
    const before = errors().length;
    for (const agent of AGENTS) {
      const r = await call(agent, stdin);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
    }
    expect(errors().length).toBe(before + AGENTS.length);
    expect(errors().at(-1)).toMatch(/bad stdin/);
  });

  it('a transcript that does not exist, a corrupt state file and a replaced transcript', async () => {
    const payload = (transcript: string) =>
      JSON.stringify({ session_id: 'fo-1', transcript_path: transcript, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' });
    let before = errors().length;
    const missing = await call('claude-code', payload(join(tmp.dir, 'nope.jsonl')));
    expect([missing.code, missing.stdout]).toEqual([0, '']);
    expect(errors().length).toBe(before + 1);

    const transcript = tmp.write('fo.jsonl', JSON.stringify({ type: 'user', sessionId: 'fo-1', uuid: 'u1', message: { role: 'user', content: 'hi' } }) + '\n');
    expect((await call('claude-code', payload(transcript))).stdout).toBe('');
    writeFileSync(join(stateDir, 'fo-1.state.json'), '{"v":1, "truncated');
    before = errors().length;
    const corrupt = await call('claude-code', payload(transcript));
    expect([corrupt.code, corrupt.stdout]).toEqual([0, '']);
    expect(errors().length).toBe(before + 1);
    expect(errors().at(-1)).toMatch(/corrupt state/);

    // Started over: the next call works again, then the transcript is replaced by a shorter one.
    expect((await call('claude-code', payload(transcript))).stdout).toBe('');
    writeFileSync(transcript, '');
    before = errors().length;
    const rotated = await call('claude-code', payload(transcript));
    expect([rotated.code, rotated.stdout]).toEqual([0, '']);
    expect(errors().at(-1)).toMatch(/replaced or truncated/);
  });

  it('a usage error in the agent settings still exits 0', async () => {
    const r = await runHook(['cursor', '--state-dir', stateDir], '{}');
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toMatch(/unknown agent cursor/);
  });
});

describe('loopledger hook, parallel batches (Claude Code)', () => {
  const pair = (cmd: string): ToolUse[] => [
    { name: 'Bash', input: { command: cmd }, output: 'FAIL test/a.test.ts', error: true },
    { name: 'Read', input: { file_path: '/repo/test/a.test.ts' }, output: 'import { it } from "vitest";' },
  ];

  it('with the transcript ahead: the whole third batch is refused before any of it runs', async () => {
    const { fake } = setup('claude-code', 'enforce', 'ahead');
    fake.user('make the tests pass');
    await fake.round({ calls: pair('npm test') });
    await fake.round({ calls: pair('npm test') });
    expect(silent(fake.runs)).toBe(true);
    const third = await fake.round({ calls: pair('npm test') });
    expect(third.calls.map((c) => denied(c.pre, 'claude-code'))).toEqual([true, true]);
    expect(ended(third.calls[0]!.pre)).toBe(true);
  });

  it('with the transcript behind: refused at the call that makes the third batch whole', async () => {
    const { fake } = setup('claude-code', 'enforce', 'behind');
    fake.user('make the tests pass');
    await fake.round({ calls: pair('npm test') });
    await fake.round({ calls: pair('npm test') });
    expect(silent(fake.runs)).toBe(true);
    const third = await fake.round({ calls: pair('npm test') });
    // The first call alone is another batch: it runs. The second joins it while it runs, and
    // the batch as it stands then is the third identical one: refused, and the turn ended.
    expect(third.calls.map((c) => denied(c.pre, 'claude-code'))).toEqual([false, true]);
    expect(ended(third.calls[1]!.pre)).toBe(true);
  });

  it('serializes the concurrent hooks of one batch: every call is counted once, in one round', async () => {
    const { fake, stateDir, session } = setup('claude-code', 'telemetry', 'ahead');
    fake.user('read the sources');
    const files = ['a', 'b', 'c', 'd', 'e', 'f'];
    const ids = files.map((f) => `toolu_par_${f}`);
    const lines = files.map((f, i) => ({
      parentUuid: null, isSidechain: false, type: 'assistant', sessionId: session, uuid: `par-${f}`,
      message: { model: 'claude-sonnet-4-5', id: 'msg_par', role: 'assistant', content: [{ type: 'tool_use', id: ids[i], name: 'Read', input: { file_path: `/repo/${f}.ts` } }] },
    }));
    writeFileSync(fake.transcript, readFileSync(fake.transcript, 'utf8') + lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const base = { session_id: session, transcript_path: fake.transcript, tool_name: 'Read' };
    const args = ['claude-code', '--mode', 'telemetry', '--state-dir', stateDir];
    const pres = await Promise.all(files.map((f, i) => runHookProcess(args, JSON.stringify({ ...base, hook_event_name: 'PreToolUse', tool_input: { file_path: `/repo/${f}.ts` }, tool_use_id: ids[i] }))));
    const posts = await Promise.all(
      files.map((f, i) => runHookProcess(args, JSON.stringify({ ...base, hook_event_name: 'PostToolUse', tool_input: { file_path: `/repo/${f}.ts` }, tool_use_id: ids[i], tool_response: { file: f } }))),
    );
    expect(silent([...pres, ...posts])).toBe(true);
    const rounds = ledgerOf(stateDir).filter((r) => r.type === 'assistant') as { tool_calls?: { id: string }[] }[];
    expect(rounds).toHaveLength(1);
    expect(rounds[0]!.tool_calls!.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(readdirSync(stateDir).filter((f) => f.endsWith('.lock') || f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('loopledger hook, output and thinking on the hook path (Claude Code)', () => {
  it('a steer reaches the model as context; three unheeded steers end the turn', async () => {
    const { fake } = setup('claude-code', 'enforce');
    fake.user('fix the config');
    const para =
      'I will now carefully check the configuration file again to make sure that the settings are correct and that nothing is missing from the build pipeline before I try anything else, because the previous attempt did not show me what was wrong. ';
    const posts: (HookRun | null)[] = [];
    for (let i = 1; i <= 5; i++) {
      const r = await fake.round({ text: para.repeat(3), calls: [{ name: 'Read', input: { file_path: `/repo/src/f${i}.ts` }, output: `export const f${i} = ${i};` }] });
      posts.push(r.calls[0]!.post);
    }
    const steers = posts.map(context);
    expect(steers.slice(0, 3).every((c) => c !== null && /Loop detection: your visible output shows a repeating pattern/.test(c))).toBe(true);
    // Seed 002: "hard-stops only after 3 unheeded steers".
    expect(ended(posts[3]!)).toBe(true);
    // The reminder never echoes the repeated text.
    expect(steers.some((c) => c?.includes('carefully check'))).toBe(false);
  });
});

describe('the telemetry ledger reads back with loopledger analyze', () => {
  it.concurrent.each(AGENTS)('%s: analyze over <session>.ledger.jsonl gives the entries the hook recorded', async (agent) => {
    const { fake, stateDir } = setup(agent, 'telemetry');
    fake.user('fix the build');
    for (let i = 0; i < 3; i++) await fake.round({ text: 'Running the build.', calls: [failing(agent)] });
    await fake.round({ calls: [{ name: SHELL[agent], input: { command: 'cat tsconfig.json' }, output: '{}' }] });
    await fake.finish('Still failing.');
    fake.user('try again');
    for (let i = 0; i < 2; i++) await fake.round({ calls: [failing(agent)] });

    const file = join(stateDir, readdirSync(stateDir).find((f) => f.endsWith('.ledger.jsonl'))!);
    const recorded = ledgerOf(stateDir)
      .filter((r) => r.type === 'decision')
      .map((r) => r.entry as { turn: number; round: number; kind: string; intervention: unknown });
    expect(recorded.length).toBeGreaterThan(0);
    const r = await runCli(['analyze', '--format', 'json', file]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { inputs: { format: string }[]; sessions: { entries: { turn: number; round: number; kind: string; intervention: unknown }[] }[] };
    expect(report.inputs[0]!.format).toBe('canonical');
    const replayed = report.sessions[0]!.entries.map((e) => ({ turn: e.turn, round: e.round, kind: e.kind, intervention: e.intervention }));
    expect(replayed).toEqual(recorded.map((e) => ({ turn: e.turn, round: e.round, kind: e.kind, intervention: e.intervention })));
  });
});
