import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { audit } from '../../src/run/audit.js';
import { detectFormat } from '../../src/formats/index.js';
import { ingestFile } from '../../src/formats/ingest.js';
import { openhandsAdapter } from '../../src/formats/openhands.js';
import type { RecordedCost } from '../../src/model/transcript.js';
import { RecordingSink, jsonl, parseWith } from '../helpers/record.js';

const dir = path.resolve(import.meta.dirname, '../../fixtures/openhands');
const V0 = path.join(dir, 'trajectory-date-parser.json');
const EVAL = path.join(dir, 'output.jsonl');
const V1 = path.join(dir, 'events-backup-check.jsonl');
const FOLDER = path.join(dir, 'conversations/5b1e0c2a7f3d4e8a9c612d4b8e0f9a17');

class CostSink extends RecordingSink {
  readonly costs: [string, RecordedCost][] = [];
  recordedCost(id: string, cost: RecordedCost): void {
    this.costs.push([id, cost]);
  }
}

async function read(file: string) {
  const sink = new CostSink();
  const summary = await ingestFile(file, sink);
  return { summary, sessions: sink.sessions, s: sink.sessions[0]!, costs: sink.costs };
}

describe('OpenHands V0 trajectory (fixture: the same failing test run three times)', () => {
  it('state changes, recalls and "no observation" events are skipped and counted: one prompt, eight rounds', async () => {
    const { summary, s } = await read(V0);
    expect(summary).toMatchObject({ format: 'openhands', sessions: 1, skipped: [] });
    expect(summary.ignored).toEqual({
      'observation:agent_state_changed': 3,
      'action:change_agent_state': 1,
      'observation:null': 2,
      'action:recall': 1,
      'observation:recall': 1,
    });
    expect(s.info.id).toBe('trajectory-date-parser');
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => r.calls.map((c) => c.name).join('+'))).toEqual([
      'str_replace_editor+str_replace_editor',
      'execute_bash',
      'execute_bash',
      'execute_bash',
      'str_replace_editor',
      'str_replace_editor',
      'execute_bash',
      '',
    ]);
  });

  it('calls of one model response are one round, its text and usage taken once; answers paired by cause', async () => {
    const { s } = await read(V0);
    const r1 = s.rounds[0]!;
    expect(r1.text).toBe('Let me read the parser and its test together.');
    expect(r1.calls.map((c) => c.id)).toEqual(['toolu_exA1', 'toolu_exA2']);
    expect(r1.answers!.map((a) => a.content.split('\n')[0])).toEqual(['     1\tfrom datetime import date', '     1\tfrom dates.parse import parse']);
    // prompt_tokens already holds the cache write: 3900, not 3900 + 3890
    expect(r1.usage).toEqual({ inputTokens: 3900, outputTokens: 120, reasoningTokens: null, cacheReadTokens: 0, cacheWriteTokens: 3890 });
    expect(r1.model).toBe('claude-example-sonnet-20250101');
  });

  it('a call is what the model asked: an edit\'s file text from the raw tool call (OpenHands\' args keep content ""), no bookkeeping keys', async () => {
    const { s } = await read(V0);
    const [e1, e2] = [s.rounds[4]!.calls[0]!.arguments, s.rounds[5]!.calls[0]!.arguments] as Record<string, unknown>[];
    expect(e1).toMatchObject({ command: 'create', path: '/workspace/dates/parse.py' });
    expect(e1!.file_text).not.toEqual(e2!.file_text);
    expect(s.rounds[1]!.calls[0]!.arguments).toEqual({ command: 'cd /workspace && python -m pytest tests/test_parse.py -q' });
  });

  it('exit code 1 and -1 (a command that never returned) are errors; the closing message is a round of text', async () => {
    const { s } = await read(V0);
    expect(s.rounds.slice(1, 4).every((r) => r.answers![0]!.isError)).toBe(true);
    expect(s.rounds[6]!.answers![0]).toEqual({ content: 'Serving HTTP on 0.0.0.0 port 8080 ...', isError: true });
    expect(s.rounds[7]!.text).toMatch(/^The parser now accepts ISO dates/);
    // a plain message has no model response of its own: the model seen last
    expect(s.rounds[7]!.model).toBe('claude-example-sonnet-20250101');
  });

  it('the ledger stops the third identical test run (round 4)', async () => {
    const report = await audit([V0], { jobs: 1 });
    // round 5 is the edit after the three failing runs: the agent had recovered by itself
    expect(report.sessions[0]!.outcome.enforce.stops).toEqual([{ turn: 1, round: 4, recovered_at: 5 }]);
  });
});

describe('OpenHands evaluation output.jsonl', () => {
  it('one session per line, named by instance_id; the system action is no round', async () => {
    const { summary, sessions } = await read(EVAL);
    expect(summary).toMatchObject({ format: 'openhands', sessions: 2, lines: 2, skipped: [] });
    expect(sessions.map((s) => [s.info.id, s.turns.length, s.rounds.length])).toEqual([
      ['acme__widgets-7', 1, 3],
      ['acme__widgets-9', 1, 1],
    ]);
    expect(sessions.every((s) => s.rounds.every((r) => r.line !== null))).toBe(true);
  });

  it('string ids and causes pair; an ErrorObservation answers as an error; usage from metrics.token_usages by response id', async () => {
    const { s } = await read(EVAL);
    expect(s.rounds[0]!.answers).toEqual([{ content: 'widgets/core.py:40:def count(items):', isError: false }]);
    expect(s.rounds[1]!.answers).toEqual([{ content: 'The command timed out after 120 seconds.', isError: true }]);
    expect(s.rounds.slice(0, 2).map((r) => r.usage)).toEqual([
      { inputTokens: 2100, outputTokens: 60, reasoningTokens: null, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { inputTokens: 2240, outputTokens: 45, reasoningTokens: null, cacheReadTokens: 0, cacheWriteTokens: 0 },
    ]);
    // security_risk is OpenHands' parameter, not the command's
    expect(s.rounds[0]!.calls[0]!.arguments).toEqual({ command: "grep -rn 'def count' widgets/" });
    // finish without function calling: the final thought is text
    expect(s.rounds[2]).toMatchObject({ text: 'count() now skips archived widgets.', calls: [] });
  });

  it('older evaluation outputs keep history as [action, observation] pairs: read the same', () => {
    const line = JSON.parse(fs.readFileSync(EVAL, 'utf8').split('\n')[0]!) as { history: unknown[] };
    const [sys, user, ...rest] = line.history;
    const paired = { ...line, history: [sys, user, [rest[0], rest[1]], [rest[2], rest[3]], rest[4]] };
    const flat = parseWith(openhandsAdapter, jsonl([line]), { path: 'output.jsonl' }).sessions[0]!;
    const pairs = parseWith(openhandsAdapter, jsonl([paired]), { path: 'output.jsonl' }).sessions[0]!;
    expect(openhandsAdapter.detect({ mode: 'jsonl', fileName: 'output.jsonl', records: [paired] })).toBeGreaterThan(0.9);
    expect(pairs.rounds).toEqual(flat.rounds);
    expect(pairs.rounds).toHaveLength(3);
  });

  it('each run\'s recorded cost (metrics.accumulated_cost)', async () => {
    const { costs } = await read(EVAL);
    expect(costs).toEqual([
      ['acme__widgets-7', { usd: 0.00139, source: 'metrics.accumulated_cost' }],
      ['acme__widgets-9', { usd: 0.00061, source: 'metrics.accumulated_cost' }],
    ]);
  });
});

describe('OpenHands V1 events (fixture: the same journal read three times, its summary reworded)', () => {
  it('ActionEvents sharing llm_response_id are one round; <think> goes to thinking; observations pair by tool_call_id', async () => {
    const { summary, s } = await read(V1);
    expect(summary).toMatchObject({ format: 'openhands', skipped: [] });
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => r.calls.length)).toEqual([2, 1, 1, 1, 0]);
    const r1 = s.rounds[0]!;
    expect(r1.text).toBe("I'll check the timer and the last logs.");
    expect(r1.thinking).toEqual([{ text: 'The user wants to know about the backup job. Start with the timer, then the logs.', opaque: false }]);
    expect(r1.answers).toEqual([
      { content: 'backup.timer - Nightly backup\n   Active: active (waiting)', isError: false },
      { content: 'Failed to connect to bus: Permission denied', isError: true },
    ]);
  });

  it('usage: the difference of the agent LLM\'s cumulative stats, credited to the next round; the condenser\'s figures left out', async () => {
    const { s } = await read(V1);
    expect(s.rounds.map((r) => r.usage)).toEqual([
      { inputTokens: 3100, outputTokens: 210, reasoningTokens: 120, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { inputTokens: 3400, outputTokens: 60, reasoningTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { inputTokens: 3400, outputTokens: 60, reasoningTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { inputTokens: 3400, outputTokens: 60, reasoningTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
      // the last update: 16700 − 13300 prompt, 495 − 390 completion
      { inputTokens: 3400, outputTokens: 105, reasoningTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
    ]);
    expect(s.rounds.every((r) => r.model === 'litellm_proxy/example-m3')).toBe(true);
  });

  it('security_risk and summary are not the command: the rephrased retries are one repeated batch, stopped at round 4', async () => {
    const { s } = await read(V1);
    const retries = s.rounds.slice(1, 4).map((r) => r.calls[0]!.arguments);
    expect(retries).toEqual(Array(3).fill({ command: 'sudo journalctl -u backup.service -n 20 --no-pager' }));
    const report = await audit([V1], { jobs: 1 });
    expect(report.sessions[0]!.outcome.enforce.stops).toEqual([{ turn: 1, round: 4 }]);
  });

  it('the observation of an action outside the file answers nothing, and a PauseEvent is no turn (it is the user\'s interrupt)', async () => {
    const { s, summary } = await read(V1);
    expect(summary.ignored).toEqual({ SystemPromptEvent: 1, 'ConversationStateUpdateEvent:execution_status': 1 });
    expect(s.rounds.flatMap((r) => r.answers ?? []).some((a) => a.content === 'stray output')).toBe(false);
    expect(s.rounds[4]!.text).toMatch(/^The timer is active/);
  });

  it('the same events as a JSON array read the same', () => {
    const lines = fs.readFileSync(V1, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    const asArray = parseWith(openhandsAdapter, JSON.stringify(lines), { mode: 'document', path: 'events.json' }).sessions[0]!;
    const asLines = parseWith(openhandsAdapter, fs.readFileSync(V1, 'utf8'), { path: 'events.jsonl' }).sessions[0]!;
    const strip = (rs: typeof asArray.rounds) => rs.map((r) => ({ ...r, line: null }));
    expect(strip(asArray.rounds)).toEqual(strip(asLines.rounds));
  });
});

describe('OpenHands V1 conversation folder', () => {
  it('one session named by base_state id, model from its agent LLM, usage per response from token_usages', async () => {
    const { summary, s, costs } = await read(FOLDER);
    expect(summary).toMatchObject({ format: 'openhands', sessions: 1, lines: 9, skipped: [] });
    expect(s.info.id).toBe('5b1e0c2a-7f3d-4e8a-9c61-2d4b8e0f9a17');
    expect(s.turns).toEqual([1, 2]);
    expect(s.rounds.map((r) => [r.turn, r.calls.map((c) => c.name), r.usage?.inputTokens])).toEqual([
      [1, ['terminal'], 3940],
      [1, ['finish'], 4010],
      [2, [], 4080],
    ]);
    expect(s.rounds.every((r) => r.model === 'openai/gpt-example-mini')).toBe(true);
    expect(costs).toEqual([['5b1e0c2a-7f3d-4e8a-9c61-2d4b8e0f9a17', { usd: 0.00093, source: 'base_state.stats accumulated_cost' }]]);
  });
});

describe('counting what is set aside', () => {
  it('at most 50 kinds by name, the rest as "other": a file cannot grow the summary without bound', async () => {
    const { writeFileSync, mkdtempSync, rmSync } = fs;
    const tmp = mkdtempSync(path.join((await import('node:os')).tmpdir(), 'loopledger-oh-'));
    try {
      const file = path.join(tmp, 'many.jsonl');
      const events = Array.from({ length: 60 }, (_, i) => ({ id: `x${i}`, source: 'environment', kind: `Custom${i}Event` }));
      writeFileSync(file, jsonl([{ id: 'u', source: 'user', kind: 'MessageEvent', llm_message: { role: 'user', content: 'hi' } }, ...events]));
      const { summary } = await read(file);
      expect(Object.keys(summary.ignored!)).toHaveLength(51);
      expect(summary.ignored!['Custom49Event']).toBe(1);
      expect(summary.ignored!['other']).toBe(10);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('OpenHands detection', () => {
  it('recognizes each shape, and no other reader claims them', () => {
    const v0 = JSON.parse(fs.readFileSync(V0, 'utf8')) as unknown[];
    const evalLine = JSON.parse(fs.readFileSync(EVAL, 'utf8').split('\n')[0]!) as Record<string, unknown>;
    const v1 = fs.readFileSync(V1, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(detectFormat({ mode: 'document', fileName: 'a.json', value: v0 })?.name).toBe('openhands');
    expect(detectFormat({ mode: 'jsonl', fileName: 'output.jsonl', records: [evalLine] })?.name).toBe('openhands');
    expect(detectFormat({ mode: 'document', fileName: 'run.json', value: evalLine })?.name).toBe('openhands');
    expect(detectFormat({ mode: 'jsonl', fileName: 'e.jsonl', records: v1 })?.name).toBe('openhands');
    expect(detectFormat({ mode: 'document', fileName: 'e.json', value: v1 })?.name).toBe('openhands');
    expect(openhandsAdapter.detect({ mode: 'document', fileName: 'x.json', value: [{ role: 'user', content: 'hi' }] })).toBe(0);
  });
});
