// The task folders of Cline's VS Code extension, Roo Code and Kilo Code (issue 58, `vscode-tasks`),
// read through the CLI: found with no path at Linux's and macOS's editor folders and where
// XDG_CONFIG_HOME moves them, the companions beside a transcript passed over, each failure read
// the extensions' way, and the two public tasks of bench/public-stores read in place.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';
import { describeWith } from '../helpers/capabilities.js';
import { publicStorePath, publicStoreRows } from './public-stores.js';
import type { SessionLedger } from '../../src/ledger/types.js';

const HOME = join(ROOT, 'fixtures/agents/vscode-tasks-3.51.0');
const EMPTY_HOME = join(ROOT, '.tmp/vscode-tasks-empty-home');

type Session = SessionLedger;
interface Report {
  inputs: { path: string; format: string }[];
  sessions: Session[];
}
interface Store {
  agent: string;
  path: string;
  found: boolean;
  via: string | null;
  sessions: number;
}

async function analyze(args: string[], env: Record<string, string | undefined> = {}): Promise<Report> {
  const r = await runCli(['analyze', ...args, '--format', 'json'], { env });
  expect(r.stderr).not.toMatch(/skipped|error/i);
  return JSON.parse(r.stdout) as Report;
}

async function stores(env: Record<string, string | undefined>): Promise<Store[]> {
  const r = await runCli(['stores', '--json'], { env });
  return (JSON.parse(r.stdout) as { stores: Store[] }).stores.filter((s) => s.agent === 'vscode-tasks');
}

beforeAll(() => {
  ensureBuilt();
  mkdirSync(EMPTY_HOME, { recursive: true });
});

describe('format vscode-tasks: the fixture home, read with no path', () => {
  let report: Report;
  beforeAll(async () => {
    report = await analyze([], { HOME, XDG_CONFIG_HOME: undefined });
  });

  it('reads the two transcripts only: ui_messages.json and task_metadata.json beside one are passed over', () => {
    expect(report.inputs.map((i) => [i.path.slice(HOME.length + 1), i.format])).toEqual([
      ['.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1777000000000/api_conversation_history.json', 'vscode-tasks'],
      ['Library/Application Support/Code/User/globalStorage/kilocode.kilo-code/tasks/1777000100000/api_conversation_history.json', 'vscode-tasks'],
    ]);
  });

  it('a session per task, named by its folder, with the working folder of <environment_details> as its project', () => {
    expect(report.sessions.map((s) => [s.id, s.format, s.agent, s.project, s.turns, s.rounds, s.tool_calls])).toEqual([
      // Turns: the <task>, then the user's <feedback> on a completion; Cline's [ERROR] re-prompt is none.
      ['1777000000000', 'vscode-tasks', 'vscode-tasks', '/home/dev/app', 2, 8, 8],
      ['1777000100000', 'vscode-tasks', 'vscode-tasks', '/home/dev/app', 1, 1, 0],
    ]);
  });

  it("usage from metrics.tokens, whose prompt leaves out the cached part", () => {
    expect(report.sessions[0]!.usage).toMatchObject({ requests: 8, input_tokens: 80, cache_read_tokens: 40000, output_tokens: 800 });
  });

  it('the same failing command ("Command failed with exit code 1.") is a repeated batch, noted at 2 and stopped at 3', () => {
    const entries = report.sessions[0]!.entries.map((e) => [e.round, e.kind, e.shape, e.intervention.enforce]);
    expect(entries).toEqual([
      [2, 'repeated_batch', 'execute_command(npm test)', 'noted'],
      [3, 'repeated_batch', 'execute_command(npm test)', 'stop'],
    ]);
  });
});

describe('format vscode-tasks: fixtures/vscode-tasks', () => {
  it('a build fixed file by file fails with a new error each time between edits: three failures, never flagged', async () => {
    const report = await analyze([join(ROOT, 'fixtures/vscode-tasks')]);
    expect(report.sessions.map((s) => [s.id, s.project, s.turns, s.rounds, s.tool_calls, s.entries.length])).toEqual([['1777000200000', '/home/dev/lib', 1, 8, 8, 0]]);
  });
});

describe('vscode-tasks: where the stores are found', () => {
  it('`stores` lists each extension under Linux, macOS and remote editor folders; the fixture home has two of them', async () => {
    const found = (await stores({ HOME, XDG_CONFIG_HOME: undefined })).map((s) => [s.path.slice(HOME.length + 1), s.found, s.sessions]);
    expect(found).toEqual([
      ['.config/*/User/globalStorage/saoudrizwan.claude-dev/tasks', true, 1],
      ['.config/*/User/globalStorage/rooveterinaryinc.roo-cline/tasks', false, 0],
      ['.config/*/User/globalStorage/kilocode.kilo-code/tasks', false, 0],
      ['Library/Application Support/*/User/globalStorage/saoudrizwan.claude-dev/tasks', false, 0],
      ['Library/Application Support/*/User/globalStorage/rooveterinaryinc.roo-cline/tasks', false, 0],
      ['Library/Application Support/*/User/globalStorage/kilocode.kilo-code/tasks', true, 1],
      ['.vscode-server/data/User/globalStorage/saoudrizwan.claude-dev/tasks', false, 0],
      ['.vscode-server/data/User/globalStorage/rooveterinaryinc.roo-cline/tasks', false, 0],
      ['.vscode-server/data/User/globalStorage/kilocode.kilo-code/tasks', false, 0],
    ]);
  });

  it('XDG_CONFIG_HOME moves the Linux editor folders, as Electron does', async () => {
    const env = { HOME: EMPTY_HOME, XDG_CONFIG_HOME: join(HOME, '.config') };
    const cline = (await stores(env))[0]!;
    expect([cline.found, cline.via, cline.sessions]).toEqual([true, 'XDG_CONFIG_HOME', 1]);
    const report = await analyze([], env);
    expect(report.sessions.map((s) => s.id)).toEqual(['1777000000000']);
  });

  it('a home folder given as a path is walked into .config and Library the same way', async () => {
    const report = await analyze([HOME], { HOME: EMPTY_HOME });
    expect(report.sessions.map((s) => [s.id, s.rounds])).toEqual([
      ['1777000000000', 8],
      ['1777000100000', 1],
    ]);
  });
});

describe('vscode-tasks: each failure read the extensions\' way', () => {
  const dir = scratch('loopledger-vscode-tasks-');
  afterAll(() => dir.cleanup());

  /** A command answered four times by `answer`, a different file read between (seed 0.4's repeated_failure needs no successful change between). */
  function task(name: string, answer: string): string {
    const messages: unknown[] = [{ role: 'user', content: [{ type: 'text', text: '<task>\nfix it\n</task>' }] }];
    for (let i = 0; i < 4; i++) {
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `c${i}`, name: 'execute_command', input: { command: 'npm test' } }] });
      messages.push({ role: 'user', content: [{ type: 'text', text: `[execute_command for 'npm test'] Result:\n${answer}` }] });
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `r${i}`, name: 'read_file', input: { path: `src/f${i}.ts` } }] });
      messages.push({ role: 'user', content: [{ type: 'text', text: `[read_file for 'src/f${i}.ts'] Result:\n1 | export const x = ${i};` }] });
    }
    mkdirSync(join(dir.dir, name), { recursive: true });
    const path = join(dir.dir, name, 'api_conversation_history.json');
    writeFileSync(path, JSON.stringify(messages));
    return path;
  }

  // SPEC 0.4: "Tool-batch `repeated_failure`: the same call (signature) failing with the same
  // normalised error again within a window, whatever calls come between".
  it.each([
    ['cline-failed', 'Command failed with exit code 1.\nOutput:\nError: no test runner', true],
    ['cline-ok', 'Command executed successfully (exit code 0).\nOutput:\nError: no test runner', false],
    ['roo-failed', "Command executed in terminal  within working directory '/app'. Exit code: 1\nOutput:\nError: no test runner", true],
    ['roo-ok', "Command executed in terminal  within working directory '/app'. Exit code: 0\nOutput:\nError: no test runner", false],
    ['tool-error', 'The tool execution failed with the following error:\n<error>\nno test runner\n</error>', true],
    ['denied', 'The user denied this operation.', true],
  ])('%s: a repeated failure only where the extension says the call failed', async (name, answer, failed) => {
    const report = await analyze([task(name, answer)]);
    const session = report.sessions[0]!;
    expect([session.turns, session.rounds, session.tool_calls]).toEqual([1, 8, 8]);
    expect(session.entries.some((e) => e.kind === 'repeated_failure')).toBe(failed);
  });

  it.each([
    [true, true],
    [false, false],
  ])('tool_result blocks answer by id: is_error %s is a failure: %s', async (isError, failed) => {
    const messages: unknown[] = [{ role: 'user', content: [{ type: 'text', text: '<task>\nfix it\n</task>' }] }];
    for (let i = 0; i < 4; i++) {
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `c${i}`, name: 'run', input: { cmd: 'make' } }] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `c${i}`, content: 'make: *** no rule', is_error: isError }] });
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `r${i}`, name: 'read', input: { path: `f${i}` } }] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `r${i}`, content: `body ${i}` }] });
    }
    mkdirSync(join(dir.dir, `blocks-${isError}`), { recursive: true });
    const path = join(dir.dir, `blocks-${isError}`, 'api_conversation_history.json');
    writeFileSync(path, JSON.stringify(messages));
    const session = (await analyze([path])).sessions[0]!;
    expect([session.turns, session.rounds, session.tool_calls]).toEqual([1, 8, 8]);
    expect(session.entries.some((e) => e.kind === 'repeated_failure')).toBe(failed);
  });
});

const MANIFEST = publicStoreRows<{ sessions: number; turns: number; rounds: number; tool_calls: number }>('vscode-tasks');

describeWith('public-stores', 'vscode-tasks: the tasks Cline\'s extension wrote, committed to public repositories', () => {
  // reads_as was counted from the files themselves (assistant messages, tool_use blocks, user
  // messages that are no answers or carry <feedback>), not from loopledger's output.
  it.each(MANIFEST.map((r) => [r.repo, r] as const))('%s reads as its manifest row says', async (_repo, row) => {
    const path = publicStorePath(row);
    const report = await analyze([path]);
    expect(report.inputs.map((i) => i.format)).toEqual(['vscode-tasks']);
    expect(report.sessions).toHaveLength(row.reads_as.sessions);
    const s = report.sessions[0]!;
    expect({ turns: s.turns, rounds: s.rounds, tool_calls: s.tool_calls }).toEqual({ turns: row.reads_as.turns, rounds: row.reads_as.rounds, tool_calls: row.reads_as.tool_calls });
  });
});
