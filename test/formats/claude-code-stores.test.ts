// Claude Code sessions as they lie in a real store: resumed sessions that copy their history
// (SPEC: "Claude Code lines repeated with the same uuid (a resumed session copies its history)
// count once"), and Claude Code 2.1 sub-agent folders (`<session>/subagents/agent-*.jsonl` with
// `agent-*.meta.json`), which become child sessions named after their parent.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/run/audit.js';
import { batch, claudeCode, user } from '../cli/helpers.js';
import { scratchDir } from '../read/tmp.js';

const scratch = scratchDir('loopledger-cc-store-');
afterAll(() => scratch.cleanup());

const write = (rel: string, text: string): string => {
  const path = join(scratch.dir, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
};

const SESSION = claudeCode([
  user('fix the build'),
  batch([['Bash', { command: 'npm test' }]], ['FAIL parser']),
  batch([['Read', { file_path: 'src/parser.ts' }]], ['export function parse() {}']),
  batch([['Edit', { file_path: 'src/parser.ts' }]], ['ok']),
]);
const LINES = SESSION.trimEnd().split('\n');

async function sessions(path: string) {
  const report = await audit([path], { jobs: 1 });
  return report.sessions.map((s) => ({ id: s.id, parent: s.parent, project: s.project, agent_type: s.agent_type, turns: s.turns, rounds: s.rounds, entries: s.entries.map((e) => e.kind) }));
}

describe('resumed sessions: lines repeated with the same uuid count once', () => {
  it('a file holding its history twice has the rounds of one copy (it had 2 turns and 6 rounds)', async () => {
    const once = await sessions(write('once.jsonl', SESSION));
    expect(once).toMatchObject([{ turns: 1, rounds: 3, entries: [] }]);
    expect(await sessions(write('whole-copy.jsonl', SESSION + SESSION))).toEqual(once);
  });

  it('a history copied into the same turn is no loop (it was 12 rounds and two tool_cycle findings)', async () => {
    const copies = [1, 2, 3].map(() => LINES.slice(1).join('\n') + '\n').join('');
    expect(await sessions(write('tail-copies.jsonl', SESSION + copies))).toEqual(await sessions(write('once-again.jsonl', SESSION)));
  });

  it('the same uuid in two different sessions is two lines, and placeholders that are no UUID identify nothing', async () => {
    const other = SESSION.replaceAll('0c1d2e3f-0000-4000-8000-000000000001', '0c1d2e3f-0000-4000-8000-000000000002');
    const two = await sessions(write('two-sessions.jsonl', SESSION + other));
    expect(two.map((s) => [s.turns, s.rounds])).toEqual([[1, 3], [1, 3]]);
    const trimmed = SESSION.replaceAll(/"uuid":"[^"]+"/g, '"uuid":"[trimmed]"');
    expect((await sessions(write('placeholders.jsonl', trimmed)))[0]).toMatchObject({ turns: 1, rounds: 3 });
  });
});

describe('Claude Code 2.1 sub-agent folders', () => {
  const parent = '0c1d2e3f-0000-4000-8000-000000000001';
  const project = join('store', '.claude', 'projects', '-home-me-src-app');

  it('become child sessions named after their parent, with the project and the agent type of the manifest', async () => {
    write(join(project, `${parent}.jsonl`), SESSION);
    const agent = (id: string) =>
      claudeCode([user('Find the parser'), batch([['Grep', { pattern: 'parse' }]], ['src/parser.ts'])], parent).replaceAll('"isSidechain":false', `"isSidechain":true,"agentId":"${id}"`);
    const dir = join(project, parent, 'subagents');
    write(join(dir, 'agent-a1.jsonl'), agent('a1'));
    write(join(dir, 'agent-a1.meta.json'), JSON.stringify({ agentType: 'Explore', description: 'find the parser', toolUseId: 'toolu_1' }));
    // No manifest, and lines that do not say they are a sidechain: the folder still says so.
    write(join(dir, 'agent-b2.jsonl'), claudeCode([user('Plan it'), batch([['Read', { file_path: 'a' }]], ['x'])], parent));
    const got = await sessions(join(scratch.dir, 'store'));
    expect(got.map(({ id, parent: p, project: pr, agent_type }) => ({ id, parent: p, project: pr, agent_type }))).toEqual([
      { id: parent, parent: null, project: '-home-me-src-app', agent_type: undefined },
      { id: `${parent}/agent-a1`, parent, project: '-home-me-src-app', agent_type: 'Explore' },
      { id: `${parent}/agent-b2`, parent, project: '-home-me-src-app', agent_type: undefined },
    ]);
    // The manifest is the sub-agent's label, not an input of its own.
    const report = await audit([join(scratch.dir, 'store')], { jobs: 1 });
    expect(report.inputs.map((i) => i.path.slice(join(scratch.dir, project).length + 1))).toEqual([
      `${parent}.jsonl`,
      `${parent}/subagents/agent-a1.jsonl`,
      `${parent}/subagents/agent-b2.jsonl`,
    ]);
    expect(report.not_transcripts).toEqual([]);
  });

  it('a Codex session names its working directory as its project', async () => {
    const codex = write(join('codex', 'rollout-2026-01-01T00-00-00-0199a7f0-1b3d-7c52-8e6a-2f4d9b0c7e15.jsonl'), [
      { timestamp: '2026-01-01T00:00:00Z', type: 'session_meta', payload: { id: '0199a7f0-1b3d-7c52-8e6a-2f4d9b0c7e15', cwd: '/home/me/src/api' } },
      { timestamp: '2026-01-01T00:00:01Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] } },
      { timestamp: '2026-01-01T00:00:02Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] } },
    ].map((r) => JSON.stringify(r)).join('\n') + '\n');
    expect((await sessions(codex))[0]).toMatchObject({ id: '0199a7f0-1b3d-7c52-8e6a-2f4d9b0c7e15', project: '/home/me/src/api' });
  });
});
