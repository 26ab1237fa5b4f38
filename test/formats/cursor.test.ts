// Cursor's chats (issue 58, `cursor`), read through the CLI from the editor's global state.vscdb:
// found with no path at Linux's and macOS's places and where XDG_CONFIG_HOME moves it, its
// workspace databases passed over, rounds told by modelCallId, sub-chats linked to their parent,
// the database left byte for byte as it was, and the public sample of bench/public-stores read in place.

import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';
import { describeWith } from '../helpers/capabilities.js';
import { publicStorePath, publicStoreRows } from './public-stores.js';
import type { SessionLedger } from '../../src/ledger/types.js';

const HOME = join(ROOT, 'fixtures/agents/cursor-1.5.11');
const STORE = join(HOME, '.config/Cursor/User/globalStorage/state.vscdb');
const EMPTY_HOME = join(ROOT, '.tmp/cursor-empty-home');

type Session = SessionLedger;
interface Report {
  inputs: { path: string; format: string; error?: string | null }[];
  sessions: Session[];
}

async function analyze(args: string[], env: Record<string, string | undefined> = {}): Promise<Report> {
  const r = await runCli(['analyze', ...args, '--format', 'json'], { env });
  expect(r.stderr).not.toMatch(/skipped|error/i);
  return JSON.parse(r.stdout) as Report;
}

beforeAll(() => {
  ensureBuilt();
  mkdirSync(EMPTY_HOME, { recursive: true });
});

describe('format cursor: the fixture home, read with no path', () => {
  let report: Report;
  let before: Buffer;
  beforeAll(async () => {
    before = readFileSync(STORE);
    report = await analyze([], { HOME, XDG_CONFIG_HOME: undefined });
  });

  it('reads the global database, its chat one session of 1 turn, 7 rounds and 6 calls', () => {
    expect(report.inputs.map((i) => [i.path.slice(HOME.length + 1), i.format])).toEqual([['.config/Cursor/User/globalStorage/state.vscdb', 'cursor']]);
    const s = report.sessions[0]!;
    // The opening text joins the first read's response; each later read is its own modelCallId.
    expect([report.sessions.length, s.id, s.format, s.agent, s.parent, s.turns, s.rounds, s.tool_calls]).toEqual([1, '1a2b3c4d-0000-4000-8000-00000000000a', 'cursor', 'cursor', null, 1, 7, 6]);
    expect(s.usage).toMatchObject({ requests: 2, input_tokens: 11300, output_tokens: 100 });
    expect(s.started_at).toBe(new Date(1796500005000).toISOString());
  });

  it('the same read with the same answer is a repeated batch, noted at 2 and stopped at 3', () => {
    expect(report.sessions[0]!.entries.slice(0, 2).map((e) => [e.round, e.kind, e.shape, e.intervention.enforce])).toEqual([
      [2, 'repeated_batch', 'read_file', 'noted'],
      [3, 'repeated_batch', 'read_file', 'stop'],
    ]);
  });

  it('leaves the database byte for byte as it was', () => {
    expect(readFileSync(STORE).equals(before)).toBe(true);
  });
});

describe('cursor: where the store is found', () => {
  const dir = scratch('loopledger-cursor-');
  afterAll(() => dir.cleanup());

  it('`stores` lists Linux\'s and macOS\'s places; XDG_CONFIG_HOME moves Linux\'s', async () => {
    const list = async (env: Record<string, string | undefined>) =>
      (JSON.parse((await runCli(['stores', '--json'], { env })).stdout) as { stores: { agent: string; path: string; found: boolean; via: string | null }[] }).stores.filter((s) => s.agent === 'cursor');
    expect((await list({ HOME, XDG_CONFIG_HOME: undefined })).map((s) => [s.path.slice(HOME.length + 1), s.found])).toEqual([
      ['.config/Cursor/User/globalStorage/state.vscdb', true],
      ['Library/Application Support/Cursor/User/globalStorage/state.vscdb', false],
    ]);
    const moved = (await list({ HOME: EMPTY_HOME, XDG_CONFIG_HOME: join(HOME, '.config') }))[0]!;
    expect([moved.found, moved.via]).toEqual([true, 'XDG_CONFIG_HOME']);
  });

  it("macOS's place is read with no path; a workspace database (no messages) beside it is passed over", async () => {
    const mac = join(dir.dir, 'home', 'Library', 'Application Support', 'Cursor', 'User');
    mkdirSync(join(mac, 'globalStorage'), { recursive: true });
    mkdirSync(join(mac, 'workspaceStorage', 'a1b2'), { recursive: true });
    copyFileSync(STORE, join(mac, 'globalStorage', 'state.vscdb'));
    copyFileSync(STORE, join(mac, 'workspaceStorage', 'a1b2', 'state.vscdb'));
    const report = await analyze([], { HOME: join(dir.dir, 'home'), XDG_CONFIG_HOME: undefined });
    expect(report.sessions.map((s) => [s.id, s.rounds])).toEqual([['1a2b3c4d-0000-4000-8000-00000000000a', 7]]);
    // A folder walk passes over the workspace database too.
    const walked = await analyze([mac], { HOME: EMPTY_HOME });
    expect(walked.inputs.map((i) => i.path.slice(mac.length + 1))).toEqual(['globalStorage/state.vscdb']);
  });
});

describe('format cursor: fixtures/cursor', () => {
  it('one response of two calls (one failed), a sub-chat linked to its parent; rolled-back, emptied and unused chats not read', async () => {
    const report = await analyze([join(ROOT, 'fixtures/cursor')]);
    expect(report.sessions.map((s) => [s.id, s.parent, s.turns, s.rounds, s.tool_calls, s.entries.length])).toEqual([
      ['2b3c4d5e-0000-4000-8000-0000000000b1', null, 1, 2, 2, 0],
      ['2b3c4d5e-0000-4000-8000-0000000000b2', '2b3c4d5e-0000-4000-8000-0000000000b1', 1, 2, 1, 0],
    ]);
  });
});

const MANIFEST = publicStoreRows<{ sessions: number; per_session: { id: string; turns: number; rounds: number; tool_calls: number }[] }>('cursor');

describeWith('public-stores', 'cursor: the database Cursor 1.5.11 wrote, committed to a public repository', () => {
  // reads_as was counted from the database itself (each chat's headers of type 1 and 2), not from loopledger's output.
  it.each(MANIFEST.map((r) => [r.repo, r] as const))('%s reads as its manifest row says', async (_repo, row) => {
    const report = await analyze([publicStorePath(row)]);
    expect(report.inputs.map((i) => i.format)).toEqual(['cursor']);
    expect(report.sessions.map((s) => ({ id: s.id, turns: s.turns, rounds: s.rounds, tool_calls: s.tool_calls }))).toEqual(row.reads_as.per_session);
  });
});
