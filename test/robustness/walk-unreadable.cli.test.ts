// Issue 26 deliverable 6: "A path found by walking that cannot be read is counted and named with
// `--verbose`, like a non-transcript; only a path the user named is an error." A generated home
// holds a stale symbolic link, a FIFO named like a transcript, and (run as another user, since
// root reads everything) a file and a folder that user may not read.

import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWith } from '../helpers/capabilities.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { scratch } from '../cli/helpers.js';
import { BIN, ensureBuilt, FIXTURES, ROOT, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-walk-');
const home = join(tmp.dir, 'home');
const project = join(home, 'work', 'proj');

beforeAll(() => {
  ensureBuilt();
  mkdirSync(project, { recursive: true });
  copyFileSync(join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl'), join(project, 'session.jsonl'));
  symlinkSync(join(tmp.dir, 'gone', 'old.jsonl'), join(project, 'stale.jsonl'));
  spawnSync('mkfifo', [join(project, 'pipe.jsonl')]);
  copyFileSync(join(FIXTURES, 'openai', 'looping-leap-day.jsonl'), join(project, 'private.jsonl'));
  chmodSync(join(project, 'private.jsonl'), 0o600);
  mkdirSync(join(home, 'locked'));
  chmodSync(join(home, 'locked'), 0o700);
  for (const d of [tmp.dir, home, join(home, 'work'), project]) chmodSync(d, 0o755);
});
afterAll(() => tmp.cleanup());

function ledgerOf(stdout: Buffer): LedgerReport {
  return JSON.parse(stdout.toString('utf8')) as LedgerReport;
}

describe('entries found while walking that cannot be read', () => {
  it('a stale link and a FIFO: exit 0, the session analyzed, both counted on one line and named with --verbose', async () => {
    const quiet = await spawnCli([home, '--format', 'json']);
    expect(quiet.code, quiet.stderr).toBe(0);
    const report = ledgerOf(quiet.stdout);
    expect(report.inputs.map((i) => i.path)).toEqual([join(project, 'private.jsonl'), join(project, 'session.jsonl')]);
    expect(report.not_transcripts!.filter((f) => f.reason === 'unreadable').map((f) => f.path)).toEqual([join(project, 'pipe.jsonl'), join(project, 'stale.jsonl')]);
    expect(quiet.stderr).toMatch(/2 files found in the directories are not a transcript \(2 unreadable\); --verbose lists them/);
    expect(quiet.stderr).not.toContain('stale.jsonl');

    const verbose = await spawnCli([home, '--verbose']);
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stderr).toContain(`${join(project, 'stale.jsonl')}: not a transcript: a symbolic link to nothing readable: no such file or directory`);
    expect(verbose.stderr).toContain(`${join(project, 'pipe.jsonl')}: not a transcript: not a regular file`);
  });

  it('a path the user named that cannot be read is still exit 2', async () => {
    const r = await spawnCli([join(project, 'stale.jsonl'), join(project, 'session.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(project, 'stale.jsonl')}: no such file or directory`);
  });

  // Root reads every file whatever its mode: the permission cases need the child to run as
  // another user, which setpriv does when this test runs as root.
  itWith('other-user', 'as another user: a file and a folder it may not read are counted, exit 0; the file named is exit 2', () => {
    const run = (args: string[]) =>
      spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const r = run([home, '--format', 'json', '--verbose']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as LedgerReport;
    expect(report.sessions.map((s) => s.path)).toEqual([join(project, 'session.jsonl')]);
    expect(report.not_transcripts!.map((f) => [f.path, f.error])).toEqual([
      [join(home, 'locked'), 'permission denied'],
      [join(project, 'pipe.jsonl'), expect.stringContaining('not a regular file')],
      [join(project, 'private.jsonl'), 'permission denied'],
      [join(project, 'stale.jsonl'), expect.stringContaining('a symbolic link to nothing readable')],
    ]);
    expect(r.stderr).toContain(`${join(project, 'private.jsonl')}: not a transcript: permission denied`);
    const named = run([join(project, 'private.jsonl')]);
    expect(named.status).toBe(2);
    expect(named.stderr).toContain('permission denied');
  });
});
