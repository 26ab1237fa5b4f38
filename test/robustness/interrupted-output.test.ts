// Soak tier (npm run test:soak): seven runs made to take seconds (a merge of 1,500 copies of the fixtures, a 5 MB session id) so a signal lands mid-write.
// Issue 27.19: Ctrl-C, SIGTERM or SIGHUP while `-o` is being written leaves no temporary file (nine
// kills left 2.6 GB of `.out.json.*.tmp` before) and ends as a shell expects (128 + n). Issue 53.14:
// "any signal (SIGINT, SIGTERM, SIGHUP) ends a run within a second, leaving no temp file", even
// while the main thread is busy in a long synchronous stretch (it waited 35-47 s for one before).
// A temp of our own naming left all the same is swept by the next run that writes beside it, but
// only ours, only once it is older than STALE_TEMP_MS and its process gone.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
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

const SIGNALS = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const;

/**
 * Run `args` (ending in `-o DIR/out`), send `signal` once the temp exists (so it lands while the
 * file is being written) and resolve to how the run ended, how long after the signal, and what is
 * left in DIR once the watchdog had a moment.
 */
async function interrupt(dir: string, args: readonly string[], signal: NodeJS.Signals) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: 'ignore' });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, sig) => resolve({ code, signal: sig })));
  let seen = false;
  for (let waited = 0; waited < 90_000 && !seen && child.exitCode === null; waited += 10) {
    await new Promise((r) => setTimeout(r, 10));
    seen = temps(dir).length > 0;
  }
  expect(seen, 'the temp file appeared while the run was going').toBe(true);
  const sent = performance.now();
  child.kill(signal);
  const ended = await exited;
  const seconds = (performance.now() - sent) / 1000;
  for (let waited = 0; waited < 2_000 && readdirSync(dir).length > 0; waited += 20) await new Promise((r) => setTimeout(r, 20));
  return { ...ended, seconds, left: readdirSync(dir) };
}

/** A shell's status for a process: its exit code, or 128 + n when the signal ended it. */
const shellStatus = (r: { code: number | null; signal: NodeJS.Signals | null }) => r.code ?? 128 + (osConstants.signals[r.signal!] ?? 0);

it.each(SIGNALS)('%s while -o is written: the temp is removed, status %i', async (signal, status) => {
  const dir = join(tmp.dir, signal);
  mkdirSync(dir);
  const r = await interrupt(dir, ['merge', big, '--format', 'json', '-o', join(dir, 'out.json')], signal);
  expect(shellStatus(r)).toBe(status);
  expect(r.seconds).toBeLessThan(1);
  expect(r.left).toEqual([]);
}, 120_000);

describe('a signal ends a run at once even while the main thread is busy (issue 53.14)', () => {
  // The table wraps a session id of 5,000,000 characters in one synchronous stretch of seconds
  // (the default format, -o a file; linear since issue 53.9, and still seconds at this size):
  // before, the signal waited for the whole stretch.
  let longId = '';
  beforeAll(() => {
    const id = 'x'.repeat(5_000_000);
    const lines = readFileSync(join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl'), 'utf8').split('\n').filter(Boolean);
    const text = lines.map((l) => { const o = JSON.parse(l) as Record<string, unknown>; if (o['sessionId']) o['sessionId'] = id; return JSON.stringify(o); });
    longId = tmp.write('long-id.jsonl', `${text.join('\n')}\n`);
  });

  const cases: [NodeJS.Signals, number][] = [...SIGNALS.map(([sig, n]): [NodeJS.Signals, number] => [sig, n]), ['SIGKILL', 137]];
  it.for(cases)('%s ends it within a second, status %i, no temp left', { timeout: 120_000 }, async ([signal, status]) => {
    const dir = join(tmp.dir, `busy-${signal}`);
    mkdirSync(dir);
    const r = await interrupt(dir, [longId, '-o', join(dir, 'out.txt')], signal);
    expect(shellStatus(r)).toBe(status);
    expect(r.seconds).toBeLessThan(1);
    expect(r.left).toEqual([]);
  });
});

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
