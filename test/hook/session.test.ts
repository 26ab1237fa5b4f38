// The live guard's bookkeeping, run in-process through the same entry as the binary: what counts
// as an occurrence, how stdin and the transcript are merged, how turns are told apart.

import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { audit, type LedgerEntry } from '../../src/index.js';
import { scratch } from '../cli/helpers.js';
import { type AgentName, context, denied, fakeAgent, type FakeAgentOptions, type ToolUse } from './agents.js';
import { inProcess } from './inprocess.js';

const tmp = scratch('loopledger-hook-session-');
afterAll(() => tmp.cleanup());

let n = 0;
function setup(agent: AgentName, mode: 'telemetry' | 'enforce', extra: Partial<FakeAgentOptions> = {}) {
  n += 1;
  const session = `5e55104${n}-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const stateDir = join(tmp.dir, `state-${n}`);
  const fake = fakeAgent(agent, { dir: tmp.dir, session, mode, stateDir, runner: inProcess, ...extra });
  return { fake, stateDir };
}

function ledger(stateDir: string): Record<string, unknown>[] {
  const file = readdirSync(stateDir).find((f) => f.endsWith('.ledger.jsonl'))!;
  return readFileSync(join(stateDir, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const callIds = (records: Record<string, unknown>[]) =>
  records.flatMap((r) => (r.type === 'assistant' && Array.isArray(r.tool_calls) ? (r.tool_calls as { id: string }[]).map((c) => c.id) : []));

const shell = (agent: AgentName) => (agent === 'gemini' ? 'run_shell_command' : 'Bash');
const fail = (agent: AgentName, cmd = 'make'): ToolUse => ({ name: shell(agent), input: { command: cmd }, output: 'make: *** [all] Error 1', error: true });

describe('a refused call never becomes an occurrence', () => {
  it.each<AgentName>(['claude-code', 'codex', 'gemini'])('%s: the refused call is left out of every round, and the next turn starts a new run', async (agent) => {
    const { fake, stateDir } = setup(agent, 'enforce');
    fake.user('build it');
    await fake.round({ calls: [fail(agent)] });
    await fake.round({ calls: [fail(agent)] });
    const third = await fake.round({ text: 'Again.', calls: [fail(agent)] });
    expect(denied(third.calls[0]!.pre, agent)).toBe(true);
    await fake.finish('I stopped.');

    fake.user('try once more');
    const a = await fake.round({ calls: [fail(agent)] });
    const b = await fake.round({ calls: [fail(agent)] });
    const c = await fake.round({ calls: [fail(agent)] });
    expect([a, b, c].map((r) => denied(r.calls[0]!.pre, agent))).toEqual([false, false, true]);

    const records = ledger(stateDir);
    const refusals = records.filter((r) => r.type === 'decision' && r.action === 'deny') as { call_id: string }[];
    expect(refusals).toHaveLength(2);
    const ids = callIds(records);
    for (const r of refusals) expect(ids).not.toContain(r.call_id);
    // Four calls ran and each is one occurrence, once.
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
  });
});

describe('stdin and a lagging transcript', () => {
  it.each<AgentName>(['claude-code', 'codex', 'gemini'])('%s: rounds closed from stdin are not counted again when the transcript shows them', async (agent) => {
    const { fake, stateDir } = setup(agent, 'telemetry', { transcript: 'behind' });
    fake.user('look around');
    for (const cmd of ['ls', 'git status', 'cat package.json']) {
      await fake.round({ text: `Running ${cmd}.`, calls: [{ name: shell(agent), input: { command: cmd }, output: `${cmd}: ok` }] });
    }
    await fake.finish('Done looking.');
    fake.user('and now?');
    await fake.round({ calls: [{ name: shell(agent), input: { command: 'ls -la' }, output: 'total 0' }] });
    await fake.finish('Nothing else.');
    // One more call so the transcript's last lines are read.
    fake.user('thanks');
    await fake.round({ calls: [{ name: shell(agent), input: { command: 'pwd' }, output: '/repo' }] });

    const records = ledger(stateDir);
    const rounds = records.filter((r) => r.type === 'assistant') as { text: string; tool_calls?: unknown[] }[];
    const ids = callIds(records);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(5);
    // Each final answer once: the agent's copy on stdin, never again from the transcript.
    expect(rounds.filter((r) => r.text === 'Done looking.')).toHaveLength(1);
    expect(rounds.filter((r) => r.text === 'Nothing else.')).toHaveLength(1);
    expect(records.filter((r) => r.type === 'user')).toHaveLength(3);
  });

  it('identical failing batches are refused at the third even when the transcript never shows them in time', async () => {
    for (const agent of ['claude-code', 'codex', 'gemini'] as const) {
      const { fake } = setup(agent, 'enforce', { transcript: 'behind' });
      fake.user('build it');
      const outcomes = [];
      for (let i = 0; i < 3; i++) outcomes.push(await fake.round({ calls: [fail(agent)] }));
      expect(outcomes.map((o) => denied(o.calls[0]!.pre, agent))).toEqual([false, false, true]);
    }
  });
});

describe('without a transcript (Codex may send transcript_path: null)', () => {
  it('stdin alone carries the run, and a new turn_id starts a new one', async () => {
    const { fake } = setup('codex', 'enforce', { noTranscript: true });
    fake.user('build');
    const first = [];
    for (let i = 0; i < 3; i++) first.push(await fake.round({ calls: [fail('codex')] }));
    expect(first.map((o) => denied(o.calls[0]!.pre, 'codex'))).toEqual([false, false, true]);
    fake.user('again');
    const second = await fake.round({ calls: [fail('codex')] });
    expect(denied(second.calls[0]!.pre, 'codex')).toBe(false);
  });
});

describe('a steer waits for an event that can carry it', () => {
  it('Gemini: found while BeforeTool reads the transcript, delivered by the next AfterTool', async () => {
    const { fake, stateDir } = setup('gemini', 'enforce');
    fake.user('check the config');
    const para =
      'I will now carefully check the configuration file again to make sure that the settings are correct and that nothing is missing from the build pipeline before I try anything else, because the previous attempt did not show me what was wrong. ';
    // Two responses the hook never saw (a tool outside its matcher), already in the transcript.
    const lines = [1, 2].map((i) => ({
      id: `unseen-${i}`, type: 'gemini', content: para.repeat(3), model: 'gemini-2.5-pro',
      toolCalls: [{ id: `web_${i}`, name: 'web_fetch', args: { url: `https://example.com/${i}` }, status: 'success', resultDisplay: 'ok' }],
    }));
    appendFileSync(fake.transcript, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const args = ['gemini', '--mode', 'enforce', '--state-dir', stateDir];
    const base = { session_id: fake.session, transcript_path: fake.transcript, tool_name: 'read_file', tool_input: { path: 'a.json' } };
    const before = await inProcess(args, JSON.stringify({ ...base, hook_event_name: 'BeforeTool' }));
    // BeforeTool documents no additionalContext: nothing is said there…
    expect(before.stdout).toBe('');
    const after = await inProcess(args, JSON.stringify({ ...base, hook_event_name: 'AfterTool', tool_response: { llmContent: '{}', returnDisplay: '{}' } }));
    // …and the reminder reaches the model with the tool's result.
    expect(context(after)).toMatch(/Loop detection: your visible output shows a repeating pattern/);
  });
});

describe("Gemini CLI writes a response's text before its calls", () => {
  // Gemini CLI 0.61.0 appends the model's message with its text when the response arrives and adds
  // the calls to it only after their AfterTool hooks (test/agents recorded it): the round the guard
  // closes at AfterTool takes that text, so a chant is steered there, at the round analyze finds.
  const chant = 'I will check the file again now to be sure that nothing has changed since the last time. '.repeat(4);
  const echo = (i: number): ToolUse => ({ name: 'run_shell_command', input: { command: `echo step ${i}` }, output: `step ${i}` });

  it('the chant is steered at the AfterTool of its round, and the live ledger reads as the transcript', async () => {
    const { fake, stateDir } = setup('gemini', 'enforce', { transcript: 'text-first' });
    fake.user('check the file');
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await fake.round({ text: chant, calls: [echo(i)] }));
    await fake.finish('Done.');
    const steered = outcomes.map((o) => /Loop detection: your visible output/.test(context(o.calls[0]!.post!) ?? ''));
    expect(steered[0], 'the first round already repeats one sentence').toBe(true);
    const records = ledger(stateDir);
    const texts = records.filter((r) => r.type === 'assistant').map((r) => r.text);
    expect(texts).toEqual([chant, chant, chant, 'Done.']);
    // The same rounds read offline from the transcript give the same entries.
    const where = (e: { round: number; detector: string; kind: string }) => `${e.round} ${e.detector}/${e.kind}`;
    const live = records.filter((x) => x.type === 'decision').map((x) => where(x.entry as LedgerEntry));
    const report = await audit([fake.transcript]);
    const offline = report.sessions.flatMap((x) => x.entries).map(where);
    expect(offline.length, 'analyze finds the chant too').toBeGreaterThan(0);
    expect(live).toEqual(offline);
  });

  it('a batch of two calls stays one round: the text does not close it at the first AfterTool', async () => {
    const { fake, stateDir } = setup('gemini', 'telemetry', { transcript: 'text-first' });
    fake.user('look');
    await fake.round({ text: 'Two reads.', calls: [echo(1), echo(2)] });
    await fake.finish('Done.');
    const rounds = ledger(stateDir).filter((r) => r.type === 'assistant') as { text: string; tool_calls?: unknown[] }[];
    expect(rounds.map((r) => [r.text, r.tool_calls?.length ?? 0])).toEqual([
      ['Two reads.', 2],
      ['Done.', 0],
    ]);
  });
});

describe('sub-agents (Claude Code agent_id)', () => {
  it('keep their own state, apart from the main thread', async () => {
    const { fake, stateDir } = setup('claude-code', 'enforce');
    fake.user('build');
    await fake.round({ calls: [fail('claude-code')] });
    const payload = (id: string) =>
      JSON.stringify({ session_id: 'main-1', agent_id: 'sub-7', transcript_path: fake.transcript, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'make' }, tool_use_id: id });
    const sub = await inProcess(['claude-code', '--mode', 'enforce', '--state-dir', stateDir], payload('toolu_sub_1'));
    expect(sub.stdout).toBe('');
    expect(existsSync(join(stateDir, 'main-1.agent-sub-7.state.json'))).toBe(true);
  });
});

describe('recurring_failure across turns (SPEC 0.2: session scope, noted only)', () => {
  // What each agent sends decides what "the same error" can be: Claude Code flags a failure apart
  // from the call, so the arguments may vary; Gemini's error text repeats the command, so only the
  // same command fails alike; Codex's PostToolUse has no exit code, so only a failure its text
  // announces (`Error: …`) is one.
  const cases: [AgentName, (i: number) => ToolUse][] = [
    ['claude-code', (i) => fail('claude-code', ['make', 'make all', 'make -j4'][i])],
    ['gemini', () => fail('gemini')],
    ['codex', () => ({ name: 'Bash', input: { command: 'make' }, output: 'Error: make: *** [all] Error 1' })],
  ];
  it.each(cases)('%s: the same failure in three user turns is noted at the third, kept between hook calls, never denied', async (agent, call) => {
    const { fake, stateDir } = setup(agent, 'enforce');
    const results = [];
    for (let i = 0; i < 3; i += 1) {
      fake.user(i === 0 ? 'build it' : 'try again');
      results.push(await fake.round({ calls: [call(i)] }));
      await fake.finish('It failed.');
    }
    expect(results.map((r) => denied(r.calls[0]!.pre, agent))).toEqual([false, false, false]);
    const decisions = ledger(stateDir).filter((r) => r.type === 'decision') as { action: string; entry: { kind: string; turn: number; evidence: Record<string, unknown> } }[];
    const rf = decisions.filter((d) => d.entry.kind === 'recurring_failure');
    expect(rf.map((d) => [d.entry.turn, d.entry.evidence.occurrences, d.entry.evidence.turns, d.action])).toEqual([[3, 3, 3, 'none']]);
  });
});
