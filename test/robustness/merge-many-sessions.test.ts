// Issue 27.17 and issue 57 item 3: 200,000 sessions merge through the path a user takes, the
// command and its spill (src/merge/spill.ts), not an in-memory stand-in. A push(...) spread of a
// ledger's sessions overflowed the stack past ~130k (Node 20 throws at 130,000 arguments and not
// at 125,000), so the guard is above that. Four shard ledgers, files dealt round-robin so the
// merge must interleave them, are generated from a seed; every total the test checks is counted by
// the test as it generates them. Heavy (hundreds of MB in the merge and in this worker), so it
// runs in vitest's heavy project, alone (vitest.config.ts); merge-validation.test.ts has the
// other checks.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/helpers.js';
import { assembleReport } from '../../src/ledger/summary.js';
import type { LedgerReport, SessionLedger } from '../../src/ledger/types.js';
import { rng } from '../detect/output/corpus.js';
import { oneHeavyCaseAtATime } from '../helpers/one-heavy.js';
import { ensureBuilt, ROOT, scratch, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-merge-many-');
afterAll(() => tmp.cleanup());
beforeAll(() => ensureBuilt());

const SESSIONS = 200_000;
const SHARDS = 4;

/** A calm session as small as a ledger allows: no usage, no entries. */
function calmSession(id: string, path: string, rounds: number): SessionLedger {
  return { id, path, format: 'claude-code', parent: null, model: null, turns: 1, rounds, tool_calls: rounds - 1, entries: [], outcome: { enforce: { steers: 0, stops: [] } } };
}

interface Planned {
  /** Per shard: its inputs and sessions, in path order. */
  shards: { inputs: LedgerReport['inputs']; sessions: SessionLedger[] }[];
  /** What the merge must print, counted here as the sessions are made. */
  ids: string[];
  paths: string[];
  rounds: number;
  entries: number;
  stopped: number;
}

/**
 * 200,000 sessions in files of 1 to 4 calm ones, with about one file in 100 holding instead a copy
 * of a fixture's session that enforce stops. File k goes to shard k mod 4, so each shard's files are
 * in path order (as a run lists them) and the merged order takes every shard in turn.
 */
function plan(looping: SessionLedger, loopingFormat: LedgerReport['inputs'][number]['format']): Planned {
  // Seeded: the same files, sessions and loops on every run.
  const random = rng(57);
  const planned: Planned = { shards: Array.from({ length: SHARDS }, () => ({ inputs: [], sessions: [] })), ids: [], paths: [], rounds: 0, entries: 0, stopped: 0 };
  for (let file = 0, made = 0; made < SESSIONS; file++) {
    const path = `exports/${String(file).padStart(7, '0')}.jsonl`;
    const shard = planned.shards[file % SHARDS]!;
    const loops = random() < 0.01;
    const count = loops ? 1 : Math.min(SESSIONS - made, 1 + Math.floor(random() * 4));
    for (let i = 0; i < count; i++) {
      const id = `s${made + i}`;
      const session = loops ? { ...looping, id, path, project: null } : calmSession(id, path, 1 + Math.floor(random() * 9));
      shard.sessions.push(session);
      planned.ids.push(id);
      planned.rounds += session.rounds;
      planned.entries += session.entries.length;
      if (loops) planned.stopped += 1;
    }
    shard.inputs.push({ path, format: loops ? loopingFormat : 'claude-code', sessions: count, lines: 2 * count, skipped: [], skipped_lines: 0 });
    planned.paths.push(path);
    made += count;
  }
  return planned;
}

describe('large merges', () => {
  it(`${SESSIONS.toLocaleString('en')} sessions in ${SHARDS} shard ledgers merge through the command, every total exact`, async () => {
    const fixture = await runCli([join(ROOT, 'fixtures', 'anthropic', 'looping-deploy.json'), '--shard', '1/1', '--format', 'json']);
    expect(fixture.code, fixture.stderr).toBe(0);
    const base = JSON.parse(fixture.stdout) as LedgerReport;
    const { timeline: _drawn, ...looping } = base.sessions[0]!;
    // The fixture's session is one that enforce stops, with entries: the counts below rely on it.
    expect(looping.outcome.enforce.stops.length).toBeGreaterThan(0);
    expect(looping.entries.length).toBeGreaterThan(0);

    const planned = plan(looping, base.inputs[0]!.format);
    const files = planned.shards.map(({ inputs, sessions }, k) => {
      const report = assembleReport({
        version: base.tool.version,
        config: base.config as never,
        inputs,
        sessions,
        shard: { index: k + 1, count: SHARDS },
        ...(base.pricing ? { pricing: base.pricing as never } : {}),
      });
      const file = join(tmp.dir, `shard-${k + 1}.json`);
      writeFileSync(file, JSON.stringify(report));
      return file;
    });
    planned.shards.length = 0;
    expect(planned.ids).toHaveLength(SESSIONS);
    expect(planned.stopped).toBeGreaterThan(100);

    await oneHeavyCaseAtATime(async () => {
      const out = join(tmp.dir, 'merged.json');
      const r = await spawnCli(['merge', ...files, '--format', 'json', '-o', out], { timeoutMs: 180_000 });
      expect(r.code, r.stderr.slice(-500)).toBe(0);
      const merged = JSON.parse(readFileSync(out, 'utf8')) as LedgerReport;
      expect(merged.shard).toBeUndefined();
      expect(merged.summary).toMatchObject({ sessions: SESSIONS, rounds: planned.rounds, entries: planned.entries, enforce: { sessions_stopped: planned.stopped } });
      // Files in path order, each with its sessions in their order: the order one run gives them.
      expect(merged.inputs.map((i) => i.path)).toEqual(planned.paths);
      expect(merged.sessions.map((s) => s.id)).toEqual(planned.ids);
    });
  }, 240_000);
});
