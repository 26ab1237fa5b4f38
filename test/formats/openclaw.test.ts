// OpenClaw's own store as openclaw@2026.9.6 left it (fixtures/agents/openclaw-2026.9.6: one agent's
// openclaw-agent.sqlite), read offline: pi's session entries from `transcript_events`, a shell
// command's failure read from `details.exitCode` (OpenClaw's `exec` leaves `isError` false for exit 1),
// an event compressed with zstd reported with its session and place, never read as something else.
// The counts come from the recording script (test/agents/record-more.mjs, the fixture's README).

import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import type { Round, TranscriptSink } from '../../src/model/transcript.js';
import { ensureBuilt, ROOT, runCli } from '../cli/helpers.js';
import { scratchDir } from '../read/tmp.js';

const STATE = join(ROOT, 'fixtures/agents/openclaw-2026.9.6/.openclaw');
const DB = join(STATE, 'agents/main/agent/openclaw-agent.sqlite');
const scratch = scratchDir('loopledger-openclaw-');
afterAll(() => scratch.cleanup());
beforeAll(() => ensureBuilt());

describe('format openclaw', () => {
  it('one session of 5 rounds and 4 calls, the three failing `cat` calls a loop noted at 2 and stopped at 3, pi\'s price kept', async () => {
    const r = await runCli(['--format', 'json'], { env: { HOME: join(ROOT, '.tmp/no-such-home'), OPENCLAW_STATE_DIR: STATE } });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.sessions).toHaveLength(1);
    const s = report.sessions[0];
    expect([s.format, s.agent, s.parent, s.turns, s.rounds, s.tool_calls]).toEqual(['openclaw', 'openclaw', null, 1, 5, 4]);
    // 1010 + 1020 + 1030 + 1040 + 1050 prompt tokens, 20 completion tokens per request, at $3 / $15 per million.
    expect(s.usage).toMatchObject({ requests: 5, input_tokens: 5150, output_tokens: 100 });
    expect(s.recorded_cost).toEqual({ usd: 0.01695, source: 'message.usage.cost.total' });
    const verdicts = s.entries.filter((e: { after_stop: boolean }) => !e.after_stop).map((e: { round: number; kind: string; intervention: { enforce: string } }) => `${e.round} ${e.kind} ${e.intervention.enforce}`);
    expect(verdicts).toEqual(['2 repeated_batch noted', '3 repeated_batch stop']);
  });

  it('is found under HOME with no variable, and listed by `stores`', async () => {
    const r = await runCli(['stores', '--json'], { env: { HOME: join(ROOT, 'fixtures/agents/openclaw-2026.9.6') } });
    const store = JSON.parse(r.stdout).stores.find((s: { agent: string }) => s.agent === 'openclaw');
    expect(store).toMatchObject({ found: true, via: null, sessions: 1, files: 1 });
  });

  it('reads the three `cat` calls (exit code 1, isError false) as failed and the `echo` as not', async () => {
    const rounds: Round[] = [];
    const sink: TranscriptSink = { session() {}, turn() {}, end() {}, round: (_id, round) => void rounds.push(round) };
    await ingestFile(DB, sink);
    expect(rounds.flatMap((r) => (r.answers ?? []).map((a) => a.isError))).toEqual([true, true, true, false]);
  });

  it('reads each session of a store, the branch taken only (fixtures/openclaw, made to the recording\'s shape)', async () => {
    const r = await runCli(['analyze', join(ROOT, 'fixtures/openclaw/branch-and-second.sqlite'), '--format', 'json']);
    const report = JSON.parse(r.stdout);
    // The user rewound after the second failing `make deploy`: the two abandoned calls and their results are counted, not read.
    expect(report.sessions.map((s: { id: string; agent: string; turns: number; rounds: number; tool_calls: number; entries: unknown[] }) => [s.id, s.agent, s.turns, s.rounds, s.tool_calls, s.entries.length])).toEqual([
      ['oc-branched', 'openclaw', 2, 3, 2, 0],
      ['oc-second', 'openclaw', 1, 1, 0, 0],
    ]);
    expect(report.inputs[0].ignored).toEqual({ 'abandoned branch': 4 });
    expect(report.sessions[0].recorded_cost).toEqual({ usd: 0.004, source: 'message.usage.cost.total' });
  });

  it('reports an event compressed with zstd (which Node 20 cannot read) with its session and place, and reads the rest', async () => {
    const dir = join(scratch.dir, 'zstd');
    mkdirSync(dir, { recursive: true });
    const copy = join(dir, 'openclaw-agent.sqlite');
    copyFileSync(DB, copy);
    const SQL = await initSqlJs();
    const db = new SQL.Database(readFileSync(copy));
    // The `echo` call's result (event 15), as OpenClaw stores a large event: no event_json, the bytes in event_zstd.
    // OpenClaw keeps a compressed event's place in the tree in navigation_json (its CHECK asks for more, which the reader does not need).
    const [id, parentId] = db.exec("SELECT json_extract(event_json, '$.id'), json_extract(event_json, '$.parentId') FROM transcript_events WHERE seq = 15")[0]!.values[0]!;
    const navigation = JSON.stringify({ version: 1, navigation: { type: 'message', id, parentId, message: { role: 'toolResult' } } });
    db.run('PRAGMA ignore_check_constraints = ON');
    db.run("UPDATE transcript_events SET event_json = NULL, event_zstd = x'28b52ffd00', navigation_json = ? WHERE seq = 15", [navigation]);
    writeFileSync(copy, db.export());
    db.close();
    const r = await runCli(['analyze', copy, '--format', 'json']);
    const report = JSON.parse(r.stdout);
    expect(report.inputs[0].skipped).toEqual([{ line: null, reason: 'session 1a30564e-0374-4baa-93c9-b018880209e9 event 15: compressed with zstd, which Node 20 cannot read' }]);
    // Its place kept, the entries after it are still on the branch taken: all five rounds, the `echo` unanswered.
    expect([report.sessions[0].rounds, report.sessions[0].tool_calls]).toEqual([5, 4]);
    expect(report.inputs[0].ignored).toMatchObject({ 'compressed event': 1 });
  });
});
