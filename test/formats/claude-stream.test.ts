// Claude Code's two other shapes, read by the claude-code adapter: `claude -p --output-format
// stream-json` (fixture stream-json-flaky-drain.jsonl: a CI run whose Task sub-agent repeats one
// Grep) and the web export `{"loglines": [...]}` (fixture web-export-make-docs.json).

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { audit } from '../../src/run/audit.js';
import { claudeCodeAdapter } from '../../src/formats/claude-code.js';
import { detectFormat } from '../../src/formats/index.js';
import { ingestFile } from '../../src/formats/ingest.js';
import type { RecordedCost } from '../../src/model/transcript.js';
import { RecordingSink, jsonl, parseWith } from '../helpers/record.js';

const dir = path.resolve(import.meta.dirname, '../../fixtures/claude-code');
const STREAM = path.join(dir, 'stream-json-flaky-drain.jsonl');
const EXPORT = path.join(dir, 'web-export-make-docs.json');
const S = '8d3f2a10-5c6e-4b7a-9e21-0f4c3b2a1d90';

class CostSink extends RecordingSink {
  readonly costs: [string, RecordedCost][] = [];
  recordedCost(id: string, cost: RecordedCost): void {
    this.costs.push([id, cost]);
  }
}

async function read(file: string) {
  const sink = new CostSink();
  const summary = await ingestFile(file, sink);
  return { summary, sessions: sink.sessions, costs: sink.costs };
}

describe('stream-json', () => {
  it('the session of the init line; the sub-agent (parent_tool_use_id) its own session named after the Task call', async () => {
    const { summary, sessions } = await read(STREAM);
    expect(summary).toMatchObject({ format: 'claude-code', sessions: 2, skipped: [] });
    expect(sessions.map((s) => [s.info.id, s.info.parent, s.turns, s.rounds.length])).toEqual([
      [S, null, [1], 5],
      [`${S}/toolu_ex_task`, S, [1], 4],
    ]);
  });

  it('lines sharing message.id are one round (thinking, text, Task); hook and partial-message lines are skipped', async () => {
    const { sessions } = await read(STREAM);
    const r1 = sessions[0]!.rounds[0]!;
    expect(r1.thinking).toEqual([{ text: expect.stringMatching(/^A flaky drain test usually means a race/), opaque: false }]);
    expect(r1.text).toBe("I'll have a sub-agent map where the queue is drained while I read the test.");
    expect(r1.calls.map((c) => c.name)).toEqual(['Task']);
    // answered once the sub-agent is done, after its own rounds
    expect(r1.answers).toEqual([{ content: 'No direct calls to Queue.drain() in src/; it is only called from tests/conftest.py.', isError: false }]);
    // usage once per message: input + cache write, output
    expect(r1.usage).toEqual({ inputTokens: 3 + 14200, outputTokens: 180, reasoningTokens: null, cacheReadTokens: 0, cacheWriteTokens: 14200 });
    expect(r1.model).toBe('claude-example-sonnet-5');
  });

  it('a parallel pair answered out of order is matched by tool_use_id', async () => {
    const { sessions } = await read(STREAM);
    const pair = sessions[0]!.rounds[3]!;
    expect(pair.calls.map((c) => c.id)).toEqual(['toolu_ex_b1', 'toolu_ex_b2']);
    expect(pair.answers!.map((a) => a.content)).toEqual(['2 passed in 0.18s', '40 passed in 3.10s']);
  });

  it('the result line\'s total_cost_usd is the recorded cost, beside the list price', async () => {
    const { costs } = await read(STREAM);
    expect(costs).toEqual([[S, { usd: 0.0912, source: 'result.total_cost_usd' }]]);
    const report = await audit([STREAM], { jobs: 1 });
    expect(report.sessions.map((s) => s.recorded_cost ?? null)).toEqual([{ usd: 0.0912, source: 'result.total_cost_usd' }, null]);
  });

  it('the sub-agent\'s three identical Greps: stopped at its round 3, the main thread untouched', async () => {
    const report = await audit([STREAM], { jobs: 1 });
    expect(report.sessions.map((s) => [s.id, s.outcome.enforce.stops])).toEqual([
      [S, []],
      [`${S}/toolu_ex_task`, [{ turn: 1, round: 3 }]],
    ]);
  });

  it('the same records in a JSON array (as claude-code-action saves them) read the same', () => {
    const records = fs.readFileSync(STREAM, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    const fromArray = parseWith(claudeCodeAdapter, JSON.stringify(records), { mode: 'document', path: 'run.json' }).sessions;
    const fromLines = parseWith(claudeCodeAdapter, jsonl(records), { path: 'run.jsonl' }).sessions;
    const shape = (ss: typeof fromArray) => ss.map((s) => ({ id: s.info.id, turns: s.turns, rounds: s.rounds.map((r) => ({ ...r, line: null })) }));
    expect(shape(fromArray)).toEqual(shape(fromLines));
  });

  it('is detected from the init line, or from message lines with snake-case session_id (no uuid needed)', () => {
    const records = fs.readFileSync(STREAM, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(detectFormat({ mode: 'jsonl', fileName: 'run.jsonl', records })?.name).toBe('claude-code');
    const bare = records.filter((r) => r.type === 'assistant' || r.type === 'user').map(({ uuid: _uuid, ...rest }) => rest);
    expect(claudeCodeAdapter.detect({ mode: 'jsonl', fileName: 'run.jsonl', records: bare })).toBeGreaterThan(0.9);
    expect(claudeCodeAdapter.detect({ mode: 'document', fileName: 'run.json', value: records })).toBeGreaterThan(0.9);
  });
});

describe('{"loglines": [...]} export', () => {
  it('one session named after the file; each assistant logline holds a whole message (thinking, text and tool_use: one round)', async () => {
    const { summary, sessions } = await read(EXPORT);
    expect(summary).toMatchObject({ format: 'claude-code', sessions: 1, skipped: [] });
    const s = sessions[0]!;
    expect(s.info).toMatchObject({ id: 'web-export-make-docs', parent: null });
    expect(s.turns).toEqual([1, 2]);
    expect(s.rounds.map((r) => [r.turn, r.calls.map((c) => c.name), r.thinking.length])).toEqual([
      [1, ['Bash'], 1],
      [1, ['Read'], 0],
      [1, [], 0],
      [2, ['Edit'], 0],
      [2, [], 0],
    ]);
    expect(s.rounds[0]!.text).toBe('Let me run it.');
    expect(s.rounds[0]!.answers![0]!.isError).toBe(true);
    // an export records neither model nor usage
    expect(s.rounds.every((r) => r.model === null && r.usage === null)).toBe(true);
  });

  it('is detected as claude-code', () => {
    const value = JSON.parse(fs.readFileSync(EXPORT, 'utf8')) as unknown;
    expect(detectFormat({ mode: 'document', fileName: 'export.json', value })?.name).toBe('claude-code');
  });
});
