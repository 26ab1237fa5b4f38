// Hermes Agent's SQLite store (format `hermes`): the hand-made stores of fixtures/hermes (made by
// make-state-db.mjs) and fixtures/agents/hermes-0.18.0, found through HERMES_HOME; failures read
// as Hermes's own display marks them; a damaged database; the public samples read in place.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';
import { describeWith } from '../helpers/capabilities.js';
import type { SessionLedger } from '../../src/ledger/types.js';
import { publicStorePath, publicStoreRows } from './public-stores.js';

const LOOP_STORE = join(ROOT, 'fixtures/hermes/state.db');
const PARENT = '20261123_090000_5e1f0a2b';
const CHILD = '20261123_090500_9c4d7e61';
const CHAT = '20261123_100000_41aa07c3';

interface Report {
  inputs: { path: string; format: string; ignored?: Record<string, number>; skipped?: unknown[]; error?: string }[];
  sessions: (SessionLedger & { recorded_cost?: { usd: number; source: string } })[];
}

async function analyze(args: string[], env: Record<string, string> = {}): Promise<Report> {
  const r = await runCli([...args, '--format', 'json'], { env });
  expect(r.stderr.replace(/^loopledger: reading the session stores of this user: .*\n/, '')).toBe('');
  return JSON.parse(r.stdout) as Report;
}

const verdicts = (s: SessionLedger): string[] => s.entries.filter((e) => !e.after_stop).map((e) => `${e.round} ${e.kind} ${e.intervention.enforce}`);

interface MessageRow {
  role: string;
  content: string | null;
  /** The tool call this row answers, and its tool's name. */
  id?: string;
  tool?: string;
  calls?: unknown[];
  /** Hermes 0.18.0's in-place compaction marks (schema with `compaction`). */
  active?: number;
  compacted?: number;
}

const terminal = (id: string) => ({ id, type: 'function', function: { name: 'terminal', arguments: JSON.stringify({ command: `make ${id}` }) } });

/**
 * A Hermes state.db in `dir` holding one session `s` (gpt-5) whose messages `fill` adds in order;
 * `compaction`: the messages table of 0.18.0, with its `active` and `compacted` columns.
 */
async function stateDb(dir: string, { compaction }: { compaction: boolean }, fill: (add: (row: MessageRow) => void) => void): Promise<string> {
  const initSqlJs = (await import('sql.js')).default;
  const db = new (await initSqlJs()).Database();
  const marks = compaction ? ', active INTEGER NOT NULL DEFAULT 1, compacted INTEGER NOT NULL DEFAULT 0' : '';
  db.run('CREATE TABLE schema_version (version INTEGER NOT NULL)');
  db.run('CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, parent_session_id TEXT, started_at REAL NOT NULL)');
  db.run(`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL${marks})`);
  db.run("INSERT INTO sessions VALUES ('s', 'cli', 'gpt-5', NULL, 1)");
  fill((row) => {
    const values = ['s', row.role, row.content, row.id ?? null, row.calls ? JSON.stringify(row.calls) : null, row.tool ?? null];
    if (compaction) db.run('INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, active, compacted) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)', [...values, row.active ?? 1, row.compacted ?? 0]);
    else db.run('INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp) VALUES (?, ?, ?, ?, ?, ?, 1)', values);
  });
  const path = join(dir, 'state.db');
  writeFileSync(path, db.export());
  return path;
}

beforeAll(() => ensureBuilt());

describe('format hermes: fixtures/hermes/state.db', () => {
  let report: Report;
  beforeAll(async () => {
    report = await analyze([LOOP_STORE]);
  });

  it('reads each session row with its messages: turns, rounds, calls, the delegated sub-agent linked by parent_session_id', () => {
    expect(report.inputs.map((i) => ({ format: i.format, ignored: i.ignored, skipped: i.skipped }))).toEqual([{ format: 'hermes', ignored: { session_meta: 1 }, skipped: [] }]);
    expect(report.sessions.map((s) => ({ id: s.id, parent: s.parent, agent: s.agent, model: s.model, turns: s.turns, rounds: s.rounds, calls: s.tool_calls }))).toEqual([
      { id: PARENT, parent: null, agent: 'hermes', model: 'anthropic/claude-sonnet-4', turns: 1, rounds: 6, calls: 5 },
      { id: CHILD, parent: PARENT, agent: 'hermes', model: 'anthropic/claude-sonnet-4', turns: 1, rounds: 3, calls: 2 },
      { id: CHAT, parent: null, agent: 'hermes', model: 'google/gemini-2.5-flash', turns: 1, rounds: 1, calls: 0 },
    ]);
  });

  it('the same failing npm test (exit_code 1) four times: noted at round 2, stopped at round 3 under enforce', () => {
    expect(verdicts(report.sessions[0]!)).toEqual(['2 repeated_batch noted', '3 repeated_batch stop']);
  });

  it("takes the session's cost from Hermes's estimate only when Hermes priced the model (cost_status not 'unknown')", () => {
    expect(report.sessions.map((s) => s.recorded_cost ?? null)).toEqual([{ usd: 0.0184, source: 'sessions.estimated_cost_usd' }, null, null]);
  });

  it('a chat with no tool call has no finding', () => {
    expect(report.sessions[2]!.entries).toEqual([]);
  });
});

describe('format hermes: failure read as Hermes marks it', () => {
  // Three identical calls between different reads: repeated_failure fires only when the answers read as failures.
  async function failuresOf(tool: string, content: string): Promise<string[]> {
    const tmp = scratch('loopledger-hermes-');
    try {
      const path = await stateDb(tmp.dir, { compaction: false }, (add) => {
        add({ role: 'user', content: 'go' });
        for (let i = 0; i < 3; i++) {
          add({ role: 'assistant', content: '', calls: [{ id: `a${i}`, type: 'function', function: { name: tool, arguments: '{"x":1}' } }] });
          add({ role: 'tool', content, id: `a${i}`, tool });
          add({ role: 'assistant', content: '', calls: [{ id: `r${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `f${i}` }) } }] });
          add({ role: 'tool', content: JSON.stringify({ content: `line ${i}` }), id: `r${i}`, tool: 'read_file' });
        }
      });
      const report = await analyze([path]);
      return [...new Set(report.sessions[0]!.entries.map((e) => e.kind))];
    } finally {
      tmp.cleanup();
    }
  }

  it('terminal: a non-zero exit_code fails; output that speaks of an error with exit_code 0 does not', async () => {
    expect(await failuresOf('terminal', JSON.stringify({ output: 'make: *** [all] Error 2', exit_code: 2, error: null }))).toContain('repeated_failure');
    expect(await failuresOf('terminal', JSON.stringify({ output: '{"error": "in the log"}', exit_code: 0, error: null }))).not.toContain('repeated_failure');
  });

  it('another tool: {success: false, error} fails, as does an answer opening with Error; a plain answer does not', async () => {
    expect(await failuresOf('web_extract', JSON.stringify({ success: false, error: 'backend not configured' }))).toContain('repeated_failure');
    expect(await failuresOf('patch', 'Error: old_string not found in src/a.ts')).toContain('repeated_failure');
    expect(await failuresOf('web_search', 'three results, none about it')).not.toContain('repeated_failure');
  });

  it('a write_file answer with bytes_written landed, though its JSON names "failed"; the same text from another tool fails', async () => {
    const landed = JSON.stringify({ bytes_written: 120, failed: 0 });
    expect(await failuresOf('write_file', landed)).not.toContain('repeated_failure');
    expect(await failuresOf('read_file', landed)).toContain('repeated_failure');
  });
});

describe('format hermes: in-place compaction (0.18.0)', () => {
  it('reads the rows that ran once: the compacted originals, not the summary or the copies written after them', async () => {
    const tmp = scratch('loopledger-hermes-');
    try {
      const path = await stateDb(tmp.dir, { compaction: true }, (add) => {
        const ran = (active: number, compacted: number): void => {
          add({ role: 'user', content: 'Build it', active, compacted });
          add({ role: 'assistant', content: '', calls: [terminal('c1')], active, compacted });
          add({ role: 'tool', content: '{"output": "ok", "exit_code": 0}', id: 'c1', tool: 'terminal', active, compacted });
        };
        ran(0, 1);
        add({ role: 'user', content: '[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below.' });
        ran(1, 0);
        add({ role: 'assistant', content: '', calls: [terminal('c2')] });
        add({ role: 'tool', content: '{"output": "ok", "exit_code": 0}', id: 'c2', tool: 'terminal' });
        add({ role: 'assistant', content: 'Built.' });
      });
      const report = await analyze([path]);
      const s = report.sessions[0]!;
      expect({ turns: s.turns, rounds: s.rounds, calls: s.tool_calls }).toEqual({ turns: 1, rounds: 3, calls: 2 });
      expect(report.inputs[0]!.ignored).toEqual({ 'compaction summary': 1, 'compaction copy': 3 });
    } finally {
      tmp.cleanup();
    }
  });
});

describe('format hermes: found with no path', () => {
  it('reads $HERMES_HOME/state.db, and `stores` lists it', async () => {
    const env = { HOME: join(ROOT, '.tmp/no-such-home'), HERMES_HOME: join(ROOT, 'fixtures/agents/hermes-0.18.0/.hermes') };
    const report = await analyze([], env);
    expect(report.sessions.map((s) => ({ id: s.id, format: s.format, turns: s.turns, rounds: s.rounds, calls: s.tool_calls }))).toEqual([
      { id: 'cron_3b7c1d2e4f50_20261124_010000', format: 'hermes', turns: 1, rounds: 3, calls: 2 },
    ]);
    const stores = await runCli(['stores', '--json'], { env });
    const row = (JSON.parse(stores.stdout) as { stores: { agent: string; path: string; sessions?: number }[] }).stores.find((s) => s.agent === 'hermes');
    expect(row).toMatchObject({ path: join(env.HERMES_HOME, 'state.db'), sessions: 1 });
  });
});

describe('format hermes: a damaged database', () => {
  it('a truncated state.db is reported with its path, no stack trace', async () => {
    const tmp = scratch('loopledger-hermes-');
    try {
      const path = join(tmp.dir, 'state.db');
      writeFileSync(path, readFileSync(LOOP_STORE).subarray(0, 5000));
      const r = await runCli([path]);
      expect(r.stdout + r.stderr).toContain(path);
      expect(r.stdout + r.stderr).toMatch(/cannot read the SQLite database/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      tmp.cleanup();
    }
  });
});

interface ReadsAs {
  sessions: number;
  per_session: { id: string; parent?: string; turns: number; rounds: number; tool_calls: number }[];
}
const MANIFEST = publicStoreRows<ReadsAs>('hermes').filter((r) => r.reads_as);

describeWith('public-stores', 'hermes: state.db files Hermes Agent wrote, committed to public repositories', () => {
  // reads_as was counted from the databases themselves with sqlite3 (user and assistant rows,
  // tool_calls entries, parent_session_id), not from loopledger's output.
  it.each(MANIFEST.map((r) => [r.repo, r] as const))('%s reads as its manifest row says', async (_repo, row) => {
    const report = await analyze([publicStorePath(row)]);
    expect(report.inputs.map((i) => ({ format: i.format, skipped: i.skipped ?? [] }))).toEqual([{ format: 'hermes', skipped: [] }]);
    expect(report.sessions.map((s) => ({ id: s.id, parent: s.parent, turns: s.turns, rounds: s.rounds, tool_calls: s.tool_calls }))).toEqual(
      row.reads_as.per_session.map((p) => ({ ...p, parent: p.parent ?? null })),
    );
  });
});
