import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { audit } from '../../src/run/audit.js';
import { ingestFile } from '../../src/formats/ingest.js';
import { commandName, sweAgentAdapter } from '../../src/formats/swe-agent.js';
import { RecordingSink, parseWith } from '../helpers/record.js';

const fixturesDir = path.resolve(__dirname, '../../fixtures/swe-agent');
const fixture = (name: string) => fs.readFileSync(path.join(fixturesDir, name), 'utf8');
const doc = (value: unknown, file = 'run.traj') =>
  parseWith(sweAgentAdapter, JSON.stringify(value), { mode: 'document', path: `/runs/${file}` });

const step = (action: unknown, observation: unknown, thought: unknown = 'next\n') => ({
  action,
  observation,
  response: `${String(thought)}\`\`\`\n${String(action)}\`\`\``,
  state: '{"open_file": "n/a", "working_dir": "/repo"}',
  thought,
});

describe('swe-agent adapter: trajectory steps', () => {
  it('one session named after the file, one turn, one round per step with one call answered by its observation', () => {
    const { sessions, skipped } = parseWith(sweAgentAdapter, fixture('calm-fix.traj'), {
      mode: 'document',
      path: 'fixtures/swe-agent/calm-fix.traj',
    });
    expect(skipped).toEqual([]);
    expect(sessions).toHaveLength(1);
    const s = sessions[0]!;
    expect(s.info).toEqual({ id: 'calm-fix', path: 'fixtures/swe-agent/calm-fix.traj', format: 'swe-agent', parent: null });
    expect(s.ended).toBe(true);
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => r.calls.map((c) => c.name))).toEqual([['find_file'], ['open'], ['edit'], ['python'], ['python'], ['submit']]);
    expect(s.rounds.map((r) => r.index)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(s.rounds.every((r) => r.turn === 1 && r.line === null && r.thinking.length === 0)).toBe(true);
    const edit = s.rounds[2]!;
    // the exact command, multi-line edit block included, is the argument
    expect(edit.calls[0]).toEqual({ id: null, name: 'edit', arguments: 'edit 2:2\n    words = text.split()\nend_of_edit\n' });
    expect(edit.text).toBe('Splitting on a single space miscounts tabs and newlines; split on any whitespace instead.\n');
    expect(s.rounds[3]!.answers).toEqual([{ content: '3', isError: false }]);
    // no per-step figures: the run total in info.model_stats is not spread over rounds
    expect(s.rounds.every((r) => r.usage === null && r.model === null)).toBe(true);
  });

  it('the model comes from replay_config (a JSON string) when the run saved it', () => {
    const { sessions } = parseWith(sweAgentAdapter, fixture('rerun-failing-check.traj'), { mode: 'document', path: 'rerun-failing-check.traj' });
    const s = sessions[0]!;
    expect(s.info.id).toBe('rerun-failing-check');
    expect(s.rounds.every((r) => r.model === 'gpt-4o-2024-08-06')).toBe(true);
    const reruns = s.rounds.slice(3, 7);
    expect(new Set(reruns.map((r) => r.calls[0]!.arguments))).toEqual(new Set(['python check_slug.py\n']));
    expect(new Set(reruns.map((r) => r.answers![0]!.content)).size).toBe(1);
    // a step that went straight to its command logs a bare newline: no visible text
    expect(reruns.map((r) => r.text === '')).toEqual([false, false, true, true]);
  });

  it('model from info.model_name or info.config.model; per-step usage when a step carries it', () => {
    const base = { trajectory: [{ ...step('ls\n', 'a'), model_stats: { tokens_sent: 120, tokens_received: 9 } }] };
    expect(doc({ ...base, info: { model_name: 'm-1' } }).sessions[0]!.rounds[0]!.model).toBe('m-1');
    const viaConfig = doc({ ...base, info: { config: { model: { model_name: 'm-2' } } } }).sessions[0]!.rounds[0]!;
    expect(viaConfig.model).toBe('m-2');
    expect(viaConfig.usage).toEqual({ inputTokens: 120, outputTokens: 9, reasoningTokens: null });
    expect(doc({ ...base, replay_config: '{not json' }).sessions[0]!.rounds[0]!.model).toBeNull();
  });

  it('the task prompt opens turn 1; demonstrations and observations are not turns', () => {
    const history = [
      { role: 'system', content: 'sys', agent: 'primary' },
      { role: 'user', content: 'demo task', agent: 'primary', is_demo: true },
      { role: 'user', content: 'the task', agent: 'primary' },
      { role: 'assistant', content: 'x', thought: 'x', action: 'ls\n', agent: 'primary' },
      { role: 'user', content: 'a', agent: 'primary' },
    ];
    const { sessions } = doc({ trajectory: [step('ls\n', 'a')], history });
    expect(sessions[0]!.turns).toEqual([1]);
    // no history at all: turn 1 still opens at the first round
    expect(doc({ trajectory: [step('ls\n', 'a')] }).sessions[0]!.turns).toEqual([1]);
  });

  it('identical commands are one signature: the ledger stops the third identical failing rerun', async () => {
    const report = await audit([path.join(fixturesDir, 'rerun-failing-check.traj')], { jobs: 1 });
    const s = report.sessions[0]!;
    expect(s).toMatchObject({ id: 'rerun-failing-check', format: 'swe-agent', turns: 1, rounds: 8, tool_calls: 8 });
    // reruns are rounds 4..7: the third occurrence (round 6) is the stop
    // round 7 is the fourth rerun (saved); round 8 is new work (cut)
    expect(s.outcome.enforce.stops).toEqual([{ turn: 1, round: 6, recovered_at: 8 }]);
    const stop = s.entries.find((e) => e.intervention.enforce === 'stop')!;
    expect(stop).toMatchObject({ detector: 'tool_batch', round: 6, after_stop: false });
    const calm = await audit([path.join(fixturesDir, 'calm-fix.traj')], { jobs: 1 });
    expect(calm.sessions[0]!.entries).toEqual([]);
  });
});

describe('swe-agent adapter: history fallback', () => {
  const history = [
    { role: 'system', content: 'sys', agent: 'primary' },
    { role: 'user', content: 'fix it', agent: 'primary' },
    { role: 'assistant', content: 'look\n```\nls\n```', thought: 'look\n', action: 'ls\n', agent: 'primary' },
    { role: 'user', content: 'a.py\n(Open file: n/a)', agent: 'primary' },
    { role: 'assistant', content: [{ type: 'text', text: 'run it' }], action: 'python a.py\n', agent: 'primary' },
    { role: 'tool', content: [{ type: 'text', text: 'boom' }], agent: 'primary' },
    { role: 'assistant', content: 'done', thought: 'done\n', action: 'submit\n', agent: 'primary' },
  ];

  it('without trajectory, assistant actions are answered by the next user or tool message', () => {
    const { sessions, skipped } = doc({ environment: 'swe_main', history, info: {} });
    expect(skipped).toEqual([]);
    const s = sessions[0]!;
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => [r.text, r.calls.map((c) => c.arguments)])).toEqual([
      ['look\n', ['ls\n']],
      ['run it', ['python a.py\n']],
      ['done\n', ['submit\n']],
    ]);
    expect(s.rounds[0]!.answers).toEqual([{ content: 'a.py\n(Open file: n/a)', isError: false }]);
    expect(s.rounds[1]!.answers).toEqual([{ content: 'boom', isError: false }]);
    // the run ended on submit: nothing answered it
    expect(s.rounds[2]!.answers).toBeNull();
  });

  it('an empty trajectory falls back to history too', () => {
    expect(doc({ trajectory: [], history }).sessions[0]!.rounds).toHaveLength(3);
  });
});

describe('swe-agent adapter: tool names', () => {
  it('the first word of the command, past VAR=value prefixes; special forms keep their whole first line', () => {
    expect(commandName('submit flag{x}\n')).toBe('submit');
    expect(commandName('edit 1:3\nfoo\nend_of_edit\n')).toBe('edit');
    expect(commandName('  python3 -m pytest\n')).toBe('python3');
    expect(commandName('PYTHONPATH=. DEBUG=1 python run.py')).toBe('python');
    expect(commandName('./build.sh --fast')).toBe('./build.sh');
    expect(commandName('(cd src && make)')).toBe('(cd src && make)');
    expect(commandName("'quoted cmd' arg")).toBe("'quoted cmd' arg");
    expect(commandName(`{ ${'x'.repeat(100)}; }`)).toHaveLength(60);
  });
});

describe('swe-agent adapter: detection', () => {
  const probe = (value: unknown) => sweAgentAdapter.detect({ mode: 'document', fileName: 'x.traj', value });
  it('scores trajectory documents high, history-only documents lower, anything else 0', () => {
    expect(probe(JSON.parse(fixture('calm-fix.traj')))).toBeGreaterThanOrEqual(0.9);
    expect(probe({ history: [{ role: 'assistant', content: 'x', action: 'ls' }] })).toBeGreaterThan(0.5);
    expect(probe({ messages: [{ role: 'user', content: 'hi' }] })).toBe(0);
    expect(probe({ trajectory: [{ role: 'user', content: 'x' }] })).toBe(0);
    expect(probe({ history: [{ role: 'assistant', content: 'x' }] })).toBe(0);
    expect(probe([step('ls', 'a')])).toBe(0);
    // line by line, a minified .traj is left to the document reading the reader also offers
    expect(sweAgentAdapter.detect({ mode: 'jsonl', fileName: 'x.traj', records: [{ trajectory: [step('ls', 'a')] }] })).toBe(0);
  });

  it('through the reader, pretty-printed or minified on one line, a .traj is read as swe-agent', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'swe-agent-'));
    try {
      const mini = path.join(dir, 'mini.traj');
      fs.writeFileSync(mini, JSON.stringify(JSON.parse(fixture('calm-fix.traj'))));
      for (const file of [path.join(fixturesDir, 'calm-fix.traj'), mini]) {
        const sink = new RecordingSink();
        const summary = await ingestFile(file, sink);
        expect(summary).toMatchObject({ format: 'swe-agent', sessions: 1, skipped: [] });
        expect(sink.sessions[0]!.rounds).toHaveLength(6);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('swe-agent adapter: odd shapes', () => {
  it('never throws: odd steps are skipped or read as far as they go', () => {
    const { sessions, skipped } = doc({
      trajectory: [
        null,
        'step',
        { action: 42, observation: 'x' },
        { action: '   ', observation: 'x', thought: ['not', 'text'] },
        { action: 'ls', observation: { stdout: 'a' } },
        { action: 'ls' },
        { action: 'cat f', observation: null, thought: 7 },
      ],
      history: 'nope',
      info: { model_stats: 'none', config: [] },
      replay_config: 5,
    });
    expect(skipped).toEqual([]);
    const s = sessions[0]!;
    expect(s.rounds.map((r) => r.calls.length)).toEqual([0, 0, 1, 1, 1]);
    expect(s.rounds[2]!.answers).toEqual([{ content: '{"stdout":"a"}', isError: false }]);
    expect(s.rounds[3]!.answers).toBeNull();
    expect(s.rounds[4]!.answers).toEqual([{ content: '', isError: false }]);
  });

  it('a value that is no trajectory is skipped with a reason, not thrown', () => {
    expect(doc([1, 2]).skipped).toHaveLength(1);
    expect(doc({ info: {} }).skipped).toHaveLength(1);
    expect(parseWith(sweAgentAdapter, '{"trajectory":[]}\n{"trajectory":[]}\n', { path: 'two.traj' }).sessions.map((s) => s.info.id)).toEqual([
      'two',
      'two#2',
    ]);
  });

  it('random JSON never makes it throw', () => {
    const stepArb = fc.oneof(
      fc.anything(),
      fc.record({ action: fc.oneof(fc.string(), fc.anything()), observation: fc.anything(), thought: fc.anything() }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(
        fc.record({ trajectory: fc.oneof(fc.array(stepArb), fc.anything()), history: fc.anything(), info: fc.anything(), replay_config: fc.anything() }, { requiredKeys: [] }),
        (value) => {
          const sb = JSON.stringify(value);
          if (sb === undefined) return;
          expect(() => doc(JSON.parse(sb))).not.toThrow();
          sweAgentAdapter.detect({ mode: 'document', fileName: 'x', value });
        },
      ),
      { numRuns: 300 },
    );
  });
});
