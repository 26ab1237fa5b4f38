// Issue 27.19: Ctrl-C, SIGTERM or SIGHUP while `-o` is being written leaves no temporary file (nine
// kills left 2.6 GB of `.out.json.*.tmp` before) and exits 130, 143 or 129 as a shell expects; a
// temp of our own naming left by a run killed outright (SIGKILL) is swept by the next run that
// writes beside it, but only ours, only once it is older than STALE_TEMP_MS and its process gone.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STALE_TEMP_MS } from '../../src/commands/output.js';
import { assembleReport } from '../../src/ledger/summary.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { BIN, ensureBuilt, FIXTURES, ROOT, runMain } from './helpers.js';
import { scratch } from '../cli/helpers.js';

const tmp = scratch('loopledger-interrupt-');
let big = '';

beforeAll(async () => {
  ensureBuilt();
  // A ledger large enough that writing its merge as JSON takes seconds: time to be interrupted.
  const r = await runMain([join(FIXTURES, 'claude-code'), join(FIXTURES, 'openai'), '--format', 'json'], { timeoutMs: 60_000 });
  const base = JSON.parse(r.stdout) as LedgerReport;
  const inputs = [];
  const sessions = [];
  for (let k = 0; k < 1500; k++) {
    for (const i of base.inputs) inputs.push({ ...i, path: `copy-${k}/${i.path}` });
    for (const s of base.sessions) sessions.push({ ...s, path: `copy-${k}/${s.path}` });
  }
  big = tmp.write('big.json', JSON.stringify(assembleReport({ version: base.tool.version, config: base.config as never, inputs, sessions })));
}, 120_000);
afterAll(() => tmp.cleanup());

const temps = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.tmp')) : []);

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const)('%s while -o is written: the temp is removed, exit %i', async (signal, code) => {
  const dir = join(tmp.dir, signal);
  mkdirSync(dir);
  const child = spawn(process.execPath, [BIN, 'merge', big, '--format', 'json', '-o', join(dir, 'out.json')], { cwd: ROOT, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  // Killed only once the temp exists: the signal must land while the file is being written.
  let seen = false;
  for (let waited = 0; waited < 60_000 && !seen; waited += 10) {
    await new Promise((r) => setTimeout(r, 10));
    seen = temps(dir).length > 0;
  }
  expect(seen, 'the temp file appeared').toBe(true);
  child.kill(signal);
  expect(await exited).toBe(code);
  expect(readdirSync(dir)).toEqual([]);
}, 120_000);

/** A folder to plant temps in: `put(name, old)` writes one last touched before STALE_TEMP_MS, `put(name, null)` a fresh one. */
function tempFolder(name: string, content: string): { dir: string; old: number; put: (file: string, mtime: number | null) => void } {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  const old = (Date.now() - STALE_TEMP_MS - 60_000) / 1000;
  const put = (file: string, mtime: number | null) => {
    writeFileSync(join(dir, file), content);
    if (mtime !== null) utimesSync(join(dir, file), mtime, mtime);
  };
  return { dir, old, put };
}

describe('stale temps are swept at the next run', () => {
  it('only ours, only old, only of a process that is gone', async () => {
    const { dir, old, put } = tempFolder('sweep', 'partial');
    put('.out.json.999999-deadbeef.tmp', old); // ours, old, its process gone: swept
    put('.out.json.999998-cafef00d.tmp', null); // ours, but fresh: another run may be writing it
    put(`.out.json.${process.pid}-0badc0de.tmp`, old); // ours, old, but its process (this test) lives
    put('.out.json.tmp', old); // not our naming
    put('.other.json.999999-deadbeef.tmp', old); // ours, but for another output
    put('notes.tmp', old);
    const r = await runMain([join(FIXTURES, 'openai', 'looping-leap-day.jsonl'), '--format', 'json', '-o', join(dir, 'out.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(
      ['.other.json.999999-deadbeef.tmp', '.out.json.999998-cafef00d.tmp', `.out.json.${process.pid}-0badc0de.tmp`, '.out.json.tmp', 'notes.tmp', 'out.json'].sort(),
    );
  });
});

describe("merge's spill files are swept at the next merge", () => {
  // A merge sets sessions aside in TMPDIR/loopledger-merge.PID-HEX.ndjson; one killed outright
  // (SIGKILL, out of memory) cannot remove it: 70-105 MB each were left by such merges.
  it('only ours, only old, only of a process that is gone', () => {
    const { dir, old, put } = tempFolder('spills', '{}\n');
    put('loopledger-merge.999999-deadbeef.ndjson', old); // ours, old, its process gone: swept
    put('loopledger-merge.999998-cafef00d.ndjson', null); // fresh: another merge may be writing it
    put(`loopledger-merge.${process.pid}-0badc0de.ndjson`, old); // its process (this test) lives
    put('loopledger-merge.ndjson', old); // not our naming
    put('other.999999-deadbeef.ndjson', old);
    const shard = join(tmp.dir, 'shard.json');
    const r1 = spawnSync(process.execPath, [BIN, join(FIXTURES, 'openai', 'looping-leap-day.jsonl'), '--format', 'json', '-o', shard], { cwd: ROOT, encoding: 'utf8' });
    expect(r1.status, r1.stderr).toBe(0);
    const r = spawnSync(process.execPath, [BIN, 'merge', shard, '--format', 'json'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TMPDIR: dir } });
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(
      ['loopledger-merge.999998-cafef00d.ndjson', `loopledger-merge.${process.pid}-0badc0de.ndjson`, 'loopledger-merge.ndjson', 'other.999999-deadbeef.ndjson'].sort(),
    );
  });
});
