// Kimi CLI's context files (format `kimi`): the hand-made 0.42 store in fixtures/agents/kimi-0.42
// (modelled on the sessions Kimi CLI wrote during SWE-bench runs, committed to MoonshotAI/kimi-cli),
// the 1.49 layout (`<session>/context.jsonl`, sub-agents under `subagents/`), failures read from
// Kimi's own `<system>` note, bad input, and the public samples read in place.

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';
import { describeWith } from '../helpers/capabilities.js';
import type { SessionLedger } from '../../src/ledger/types.js';
import { publicStorePath, publicStoreRows } from './public-stores.js';

const STORE = join(ROOT, 'fixtures/agents/kimi-0.42/.kimi');
const SESSION = '4f2c9a17-8d3e-4b61-a0c5-7e19d2b8f364';

interface Report {
  inputs: { path: string; format: string; ignored?: Record<string, number>; skipped?: unknown[] }[];
  sessions: SessionLedger[];
}

async function analyze(args: string[], env: Record<string, string> = {}): Promise<Report> {
  const r = await runCli([...args, '--format', 'json'], { env });
  // With no path, loopledger says which stores it reads; nothing else may be said.
  expect(r.stderr.replace(/^loopledger: reading the session stores of this user: .*\n/, '')).toBe('');
  return JSON.parse(r.stdout) as Report;
}

const verdicts = (s: SessionLedger): string[] => s.entries.filter((e) => !e.after_stop).map((e) => `${e.round} ${e.kind} ${e.intervention.enforce}`);

// Kimi writes its bookkeeping lines with Python's json.dumps and its messages compactly.
const checkpoint = (id: number): string => JSON.stringify({ role: '_checkpoint', id });
const usage = (n: number): string => JSON.stringify({ role: '_usage', token_count: n });
const note = (text: string): { type: 'text'; text: string } => ({ type: 'text', text: `<system>${text}</system>` });
function assistant(id: string, name: string, args: unknown): string {
  return JSON.stringify({ role: 'assistant', content: [], tool_calls: [{ type: 'function', id, function: { name, arguments: JSON.stringify(args) } }] });
}
const answer = (id: string, ...content: { type: 'text'; text: string }[]): string => JSON.stringify({ role: 'tool', content, tool_call_id: id });

/** A build failing three times with a different search between each: repeated_failure only if the build's answers read as failures. */
function buildWithReads(failureNote: string): string[] {
  const lines = [checkpoint(0), JSON.stringify({ role: 'user', content: 'Make the build pass.' })];
  for (let i = 0; i < 3; i++) {
    lines.push(checkpoint(2 * i + 1), usage(900 + i), assistant(`Bash:${2 * i}`, 'Bash', { command: 'make' }));
    lines.push(answer(`Bash:${2 * i}`, note(failureNote), { type: 'text', text: 'main.c:3: error: expected ";"\n' }));
    lines.push(checkpoint(2 * i + 2), assistant(`Grep:${2 * i + 1}`, 'Grep', { pattern: `part${i}` }));
    lines.push(answer(`Grep:${2 * i + 1}`, { type: 'text', text: `src/part${i}.c\n` }));
  }
  return lines;
}

beforeAll(() => ensureBuilt());

describe('format kimi: the 0.42 store (fixtures/agents/kimi-0.42)', () => {
  let report: Report;
  beforeAll(async () => {
    report = await analyze([], { HOME: join(ROOT, '.tmp/no-such-home'), KIMI_SHARE_DIR: STORE });
  });

  it('finds the session and its ReadContext sub-agent through KIMI_SHARE_DIR, the sub-agent linked to its parent by its file name', () => {
    const rows = report.sessions.map((s) => ({ id: s.id, parent: s.parent, format: s.format, agent: s.agent, turns: s.turns, rounds: s.rounds, calls: s.tool_calls }));
    expect(rows).toEqual([
      { id: SESSION, parent: null, format: 'kimi', agent: 'kimi', turns: 1, rounds: 5, calls: 4 },
      { id: `${SESSION}_read_1`, parent: SESSION, format: 'kimi', agent: 'kimi', turns: 1, rounds: 2, calls: 1 },
    ]);
  });

  it('the pytest run failing three times alike is noted at its second run and stopped at its third', () => {
    expect(verdicts(report.sessions[0]!)).toEqual(['3 repeated_batch noted', '4 repeated_batch stop']);
    expect(verdicts(report.sessions[1]!)).toEqual([]);
  });

  it('reads no usage: `_usage` is the context size, set aside with the checkpoints', () => {
    expect(report.sessions[0]!.usage!.requests).toBe(0);
    expect(report.inputs.map((i) => i.ignored)).toEqual([
      { _checkpoint: 6, _usage: 10 },
      { _checkpoint: 3, _usage: 4 },
    ]);
  });

  it('is listed by `stores` with its sub-agent counted apart', async () => {
    const r = await runCli(['stores', '--json'], { env: { HOME: join(ROOT, '.tmp/no-such-home'), KIMI_SHARE_DIR: STORE } });
    const store = JSON.parse(r.stdout).stores.find((s: { agent: string }) => s.agent === 'kimi');
    expect(store).toMatchObject({ found: true, via: 'KIMI_SHARE_DIR', sessions: 1, subagents: 1, files: 2 });
  });
});

describe('format kimi: failures and the 1.49 layout', () => {
  it.each([
    ['0.42, a bare shell failure note', 'Command failed with exit code: 2.', true],
    ['1.49, a ToolError note (ERROR:)', 'ERROR: Command failed with exit code: 2.', true],
    ['a success note', 'Command executed successfully.', false],
  ])('%s: the same build answered alike with reads between is a repeated failure: %s', async (_what, failureNote, failed) => {
    const tmp = scratch('loopledger-kimi-');
    try {
      const path = tmp.write('0b7d3e55-1c2a-4f60-9e8d-2a4b6c8d0e1f.jsonl', buildWithReads(failureNote).join('\n') + '\n');
      const { sessions } = await analyze([path]);
      expect([sessions[0]!.format, sessions[0]!.rounds, sessions[0]!.tool_calls]).toEqual(['kimi', 6, 6]);
      expect(sessions[0]!.entries.some((e) => e.kind === 'repeated_failure')).toBe(failed);
    } finally {
      tmp.cleanup();
    }
  });

  it('1.49: <session>/context.jsonl (a _system_prompt line first), its context_<n>.jsonl set aside by /clear, subagents/<agent>/context.jsonl; wire.jsonl, state.json, meta.json passed over', async () => {
    const tmp = scratch('loopledger-kimi-');
    try {
      const dir = 'sessions/3c33cbb36b3042d8905c9c936c068b8c/9e1f3a5c-7b2d-4c8e-a0f1-2d3e4f5a6b7c';
      tmp.write(`${dir}/context.jsonl`, [JSON.stringify({ role: '_system_prompt', content: 'You are Kimi CLI.' }), ...buildWithReads('ERROR: Command failed with exit code: 2.')].join('\n') + '\n');
      tmp.write(`${dir}/wire.jsonl`, JSON.stringify({ type: 'metadata', protocol_version: '1.0' }) + '\n');
      tmp.write(`${dir}/subagents/coder-1/context.jsonl`, [checkpoint(0), JSON.stringify({ role: 'user', content: 'Look at part0.c' })].join('\n') + '\n');
      tmp.write(`${dir}/context_1.jsonl`, [checkpoint(0), JSON.stringify({ role: 'user', content: 'Before /clear' })].join('\n') + '\n');
      tmp.write(`${dir}/state.json`, JSON.stringify({ title: 'Make the build pass' }) + '\n');
      tmp.write(`${dir}/subagents/coder-1/meta.json`, JSON.stringify({ agent_id: 'coder-1', status: 'done' }) + '\n');
      const report = await analyze([], { HOME: join(ROOT, '.tmp/no-such-home'), KIMI_SHARE_DIR: tmp.dir });
      expect(report.inputs.map((i) => i.format)).toEqual(['kimi', 'kimi', 'kimi']);
      expect(report.sessions.map((s) => [s.id, s.parent, s.turns, s.rounds])).toEqual([
        ['9e1f3a5c-7b2d-4c8e-a0f1-2d3e4f5a6b7c', null, 1, 6],
        ['9e1f3a5c-7b2d-4c8e-a0f1-2d3e4f5a6b7c:context_1', null, 1, 0],
        ['9e1f3a5c-7b2d-4c8e-a0f1-2d3e4f5a6b7c/coder-1', '9e1f3a5c-7b2d-4c8e-a0f1-2d3e4f5a6b7c', 1, 0],
      ]);
    } finally {
      tmp.cleanup();
    }
  });

  it('a D-Mail Kimi sends the model (a user line of one <system> part) is no user turn', async () => {
    const tmp = scratch('loopledger-kimi-');
    try {
      const dmail = JSON.stringify({ role: 'user', content: [note('You just got a D-Mail from your future self.')] });
      const path = tmp.write('dmail.jsonl', [...buildWithReads('Command executed successfully.'), dmail].join('\n') + '\n');
      const report = await analyze([path, '--input-format', 'kimi']);
      expect(report.sessions[0]!.turns).toBe(1);
      expect(report.inputs[0]!.ignored).toMatchObject({ 'system message': 1 });
    } finally {
      tmp.cleanup();
    }
  });

  it('a truncated line is named with its file and line, without a stack trace', async () => {
    const tmp = scratch('loopledger-kimi-');
    try {
      const lines = buildWithReads('Command failed with exit code: 2.');
      lines[4] = lines[4]!.slice(0, 40);
      const path = tmp.write('truncated.jsonl', lines.join('\n') + '\n');
      const r = await runCli([path, '--format', 'json']);
      expect(r.stderr).toContain(`${path}:5:`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(JSON.parse(r.stdout).inputs[0].format).toBe('kimi');
    } finally {
      tmp.cleanup();
    }
  });
});

const MANIFEST = publicStoreRows<{ sessions: number; turns: number; rounds: number; tool_calls: number; parent?: string }>('kimi');

describeWith('public-stores', 'kimi: the sessions Kimi CLI 0.42 wrote in SWE-bench runs, committed to MoonshotAI/kimi-cli', () => {
  // reads_as was counted from the files themselves (user and assistant lines, tool_calls entries; a
  // `_read_<n>` file's parent from its name), not from loopledger's output.
  it.each(MANIFEST.map((r) => [r.path.split('/').at(-1)!, r] as const))('%s reads as its manifest row says', async (_name, row) => {
    const report = await analyze([publicStorePath(row)]);
    expect(report.inputs.map((i) => i.format)).toEqual(['kimi']);
    expect(report.sessions).toHaveLength(row.reads_as.sessions);
    const s = report.sessions[0]!;
    expect({ turns: s.turns, rounds: s.rounds, tool_calls: s.tool_calls, parent: s.parent }).toEqual({
      turns: row.reads_as.turns,
      rounds: row.reads_as.rounds,
      tool_calls: row.reads_as.tool_calls,
      parent: row.reads_as.parent ?? null,
    });
    expect(report.inputs[0]!.skipped ?? []).toEqual([]);
  });
});
