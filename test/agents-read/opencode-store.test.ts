// OpenCode's and Kilo's own stores as opencode-ai@1.18.33 and @kilocode/cli@7.7.7 left them
// (fixtures/agents/opencode-1.18.33, kilo-7.7.7: the database with its WAL never checkpointed),
// read offline: the counts come from the recording script (test/agents/record-more.mjs and the
// fixtures' READMEs), not from the reader. The agent's files are never written, locked or
// checkpointed: byte for byte and time for time the same after a read.

import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingestFile } from '../../src/formats/ingest.js';
import type { TranscriptSink } from '../../src/model/transcript.js';
import { ensureBuilt, ROOT, runCli } from '../cli/helpers.js';
import { scratchDir } from '../read/tmp.js';

const STORES = [
  { agent: 'opencode', store: join(ROOT, 'fixtures/agents/opencode-1.18.33'), db: 'opencode.db', data: '.local/share/opencode' },
  { agent: 'kilo', store: join(ROOT, 'fixtures/agents/kilo-7.7.7'), db: 'kilo.db', data: '.local/share/kilo' },
] as const;
const scratch = scratchDir('loopledger-opencode-');
afterAll(() => scratch.cleanup());
beforeAll(() => ensureBuilt());

function fingerprint(dir: string, db: string): string[] {
  return [db, `${db}-wal`, `${db}-shm`].map((f) => {
    const stat = statSync(join(dir, f));
    return `${f} ${stat.size} ${stat.mtimeMs} ${createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')}`;
  });
}

describe.each(STORES)('the $agent store, read as the run that wrote it', ({ agent, store: STORE, db, data: dataDir }) => {
  /** A home whose store is a copy of the recording. */
  function homeWithStore(name: string): string {
    const home = join(scratch.dir, `${agent}-${name}`);
    const data = join(home, dataDir);
    mkdirSync(data, { recursive: true });
    for (const f of [db, `${db}-wal`, `${db}-shm`]) copyFileSync(join(STORE, f), join(data, f));
    return home;
  }

  it('one session of 5 rounds and 4 calls, the three failing `cat` calls (exit 1) a loop noted at 2 and stopped at 3', async () => {
    const r = await runCli(['analyze', join(STORE, db), '--format', 'json']);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    expect(report.sessions).toHaveLength(1);
    const s = report.sessions[0];
    expect({ format: s.format, agent: s.agent, parent: s.parent, turns: s.turns, rounds: s.rounds, calls: s.tool_calls }).toEqual({
      format: 'opencode',
      agent,
      parent: null,
      turns: 1,
      rounds: 5,
      calls: 4,
    });
    // 1010 + 1020 + 1030 + 1040 + 1050 prompt tokens, 20 completion tokens per request.
    expect(s.usage).toMatchObject({ requests: 5, input_tokens: 5150, output_tokens: 100 });
    const verdicts = s.entries.filter((e: { after_stop: boolean }) => !e.after_stop).map((e: { round: number; kind: string; intervention: { enforce: string } }) => `${e.round} ${e.kind} ${e.intervention.enforce}`);
    expect(verdicts).toEqual(['2 repeated_batch noted', '3 repeated_batch stop']);
  });

  it('leaves the database, its WAL and its shared-memory index byte-identical and untouched', async () => {
    const home = homeWithStore('untouched');
    const data = join(home, dataDir);
    const before = fingerprint(data, db);
    const r = await runCli(['--format', 'json'], { env: { HOME: home, XDG_DATA_HOME: undefined } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).sessions.map((s: { agent: string }) => s.agent)).toEqual([agent]);
    expect(fingerprint(data, db)).toEqual(before);
  });

  it('is found with no path and listed by `stores`, under $XDG_DATA_HOME when it is set', async () => {
    const home = homeWithStore('xdg');
    const r = await runCli(['stores', '--json'], { env: { HOME: join(scratch.dir, 'nobody'), XDG_DATA_HOME: join(home, '.local/share') } });
    const store = JSON.parse(r.stdout).stores.find((s: { agent: string }) => s.agent === agent);
    expect(store).toMatchObject({ found: true, via: 'XDG_DATA_HOME', sessions: 1, subagents: 0, files: 1, path: join(home, dataDir, db) });
  });

  it('a WAL cut anywhere (a write under way) reads as the last transaction committed before the cut, never an error', async () => {
    const whole = statSync(join(STORE, `${db}-wal`)).size;
    const counts = async (cut: number) => {
      const dir = join(scratch.dir, `${agent}-cut-${cut}`);
      mkdirSync(dir, { recursive: true });
      copyFileSync(join(STORE, db), join(dir, db));
      copyFileSync(join(STORE, `${db}-wal`), join(dir, `${db}-wal`));
      truncateSync(join(dir, `${db}-wal`), cut);
      let rounds = 0;
      const sink: TranscriptSink = { session() {}, turn() {}, round: () => void (rounds += 1), end() {} };
      const summary = await ingestFile(join(dir, db), sink);
      return { error: summary.error, sessions: summary.sessions, rounds };
    };
    // Rounds only grow as more of the WAL is committed; the whole WAL gives the whole session.
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: whole }), fc.integer({ min: 0, max: whole }), async (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const [x, y] = [await counts(lo), await counts(hi)];
        expect(x.error === undefined || /no agent store/.test(x.error)).toBe(true);
        expect(y.rounds).toBeGreaterThanOrEqual(x.rounds);
      }),
      { numRuns: 8 },
    );
    expect(await counts(whole)).toEqual({ error: undefined, sessions: 1, rounds: 5 });
  });

  it('a database created in WAL mode and never checkpointed (its main file still empty) is read from its WAL', async () => {
    const dir = join(scratch.dir, `${agent}-empty-main`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, db), '');
    copyFileSync(join(STORE, `${db}-wal`), join(dir, `${db}-wal`));
    const r = await runCli(['analyze', join(dir, db), '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).sessions.map((s: { rounds: number }) => s.rounds)).toEqual([5]);
  });
});
