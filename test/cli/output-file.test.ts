import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWith } from '../helpers/capabilities.js';
import { canonical, ensureBuilt, repeat, runCli, scratch } from './helpers.js';

beforeAll(() => ensureBuilt());
const dir = scratch('loopledger-out-');
afterAll(() => dir.cleanup());

const CODEX = readFileSync('fixtures/codex/rollout-2026-02-21T10-02-47-0199a7f0-1b3d-7c52-8e6a-2f4d9b0c7e15.jsonl', 'utf8');
const LOOP = canonical([{ id: 'loop-out', events: repeat([['Read', { path: 'a.ts' }]], 4, 'same') }]);

describe('--output-file never overwrites an input', () => {
  it('SPEC "never modify an input": --output-file naming a transcript is exit 2 and the transcript is untouched', async () => {
    const input = dir.write('same/run.jsonl', CODEX);
    const result = await runCli([input, '--output-file', input, '--jobs', '1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/refusing to overwrite/);
    expect(readFileSync(input, 'utf8')).toBe(CODEX);
  });

  // SPEC: "refused (exit 2) when it is the same file as an input by device and inode (hard links
  // and symlinks included)". Issue 11: "a hard link to an input today destroys the input".
  it('a hard link to an input is the input: refused, and the transcript is untouched', async () => {
    const input = dir.write('hard/run.jsonl', CODEX);
    const link = join(dir.dir, 'hard', 'report.json');
    linkSync(input, link);
    const r = await runCli([input, '--format', 'json', '-o', link, '--jobs', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is one of the inputs .*refusing to overwrite/);
    expect(readFileSync(input, 'utf8')).toBe(CODEX);
  });

  it('a symbolic link to an input, or an input read through a link, is refused too', async () => {
    const input = dir.write('sym/run.jsonl', CODEX);
    const link = join(dir.dir, 'sym', 'out.json');
    symlinkSync(input, link);
    const viaLink = await runCli([input, '-o', link, '--jobs', '1']);
    expect(viaLink.code).toBe(2);
    const linkedInput = join(dir.dir, 'sym', 'linked.jsonl');
    symlinkSync(input, linkedInput);
    const throughLink = await runCli([linkedInput, '-o', input, '--jobs', '1']);
    expect(throughLink.code).toBe(2);
    expect(readFileSync(input, 'utf8')).toBe(CODEX);
  });

  it('an input found in a directory is protected as well as one named', async () => {
    const input = dir.write('found/deep/run.jsonl', CODEX);
    const r = await runCli([join(dir.dir, 'found'), '-o', input, '--jobs', '1']);
    expect(r.code).toBe(2);
    expect(readFileSync(input, 'utf8')).toBe(CODEX);
  });

  it('sweep --output-file is held to the same rule', async () => {
    const input = dir.write('sweep/run.jsonl', LOOP);
    const r = await runCli(['sweep', input, '--param', 'tool_batch.max_strikes=1:2:1', '-o', input]);
    expect(r.code).toBe(2);
    expect(readFileSync(input, 'utf8')).toBe(LOOP);
  });
});

describe('--output-file is written atomically', () => {
  it('replaces an existing report in one step: no temporary file left, its permissions kept', async () => {
    const input = dir.write('atomic/in/run.jsonl', LOOP);
    const out = dir.write('atomic/out/report.json', 'old report');
    chmodSync(out, 0o640);
    const r = await runCli([input, '--json', '-o', out, '--jobs', '1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8')).sessions[0].id).toBe('loop-out');
    expect(statSync(out).mode & 0o777).toBe(0o640);
    expect(readdirSync(join(dir.dir, 'atomic', 'out'))).toEqual(['report.json']);
  });

  it('through a symbolic link, the file behind it is replaced and the link stays a link', async () => {
    const input = dir.write('atomic-link/run.jsonl', LOOP);
    const real = dir.write('atomic-link/reports/real.json', 'old');
    const link = join(dir.dir, 'atomic-link', 'latest.json');
    symlinkSync(real, link);
    const r = await runCli([input, '--json', '-o', link, '--jobs', '1']);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(real, 'utf8')).schema).toBe('loopledger/1');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(join(dir.dir, 'atomic-link', 'reports'))).toEqual(['real.json']);
  });

  it('a write that fails leaves the old file as it was and no temporary file behind', async () => {
    const input = dir.write('atomic-fail/run.jsonl', LOOP);
    const target = join(dir.dir, 'atomic-fail', 'out');
    mkdirSync(join(target, 'inside'), { recursive: true }); // a non-empty folder cannot be renamed over
    const r = await runCli([input, '--json', '-o', target, '--jobs', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write/);
    expect(readdirSync(join(dir.dir, 'atomic-fail')).sort()).toEqual(['out', 'run.jsonl']);
  });

  it('-o is --output-file, - is stdout, and missing parent folders are created', async () => {
    const input = dir.write('alias/run.jsonl', LOOP);
    const toStdout = await runCli([input, '--json', '-o', '-', '--jobs', '1']);
    expect(toStdout.code).toBe(0);
    expect(JSON.parse(toStdout.stdout).sessions[0].id).toBe('loop-out');
    const nested = join(dir.dir, 'alias', 'new', 'folders', 'r.md');
    const made = await runCli([input, '--format', 'markdown', '-o', nested, '--jobs', '1']);
    expect(made.code).toBe(0);
    expect(made.stdout).toBe('');
    expect(readFileSync(nested, 'utf8')).toContain('loop-out');
  });

  it('a report saved among the transcripts is not read back, and the next run may overwrite it', async () => {
    const root = join(dir.dir, 'rerun');
    dir.write('rerun/run.jsonl', LOOP);
    const out = join(root, 'ledger.json');
    expect((await runCli([root, '--json', '-o', out, '--jobs', '1'])).code).toBe(0);
    const again = await runCli([root, '--json', '-o', out, '--jobs', '1']);
    expect(again.code).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(report.sessions.map((s: { id: string }) => s.id)).toEqual(['loop-out']);
    expect(report.not_transcripts).toEqual([{ path: out, reason: 'loopledger-report', error: 'a loopledger report, not a transcript' }]);
  });
});

describe('--output-file onto a device or a pipe', () => {
  // Found when a bench run's `--output-file /dev/null`, as root, left /dev/null a regular file for
  // the whole machine (tmux then failed: "daemon failed"). A device or a FIFO is written into.
  it('a FIFO stays a FIFO and its reader gets the whole payload', async () => {
    const fifo = join(dir.dir, 'ledger.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo]);
    let got = '';
    reader.stdout.on('data', (d: Buffer) => (got += d.toString('utf8')));
    const closed = new Promise<void>((done) => reader.on('close', () => done()));
    const input = dir.write('fifo/run.jsonl', LOOP);
    const r = await runCli([input, '--format', 'json', '-o', fifo, '--jobs', '1']);
    await closed;
    expect(r.code).toBe(0);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect((JSON.parse(got) as { sessions: unknown[] }).sessions).toHaveLength(1);
  });

  itWith('root', 'a character device stays a device (mknod, as root)', async () => {
    const device = join(dir.dir, 'null-device');
    execFileSync('mknod', ['-m', '666', device, 'c', '1', '3']);
    const input = dir.write('device/run.jsonl', LOOP);
    const r = await runCli([input, '--format', 'json', '-o', device, '--jobs', '1']);
    expect(r.code).toBe(0);
    expect(lstatSync(device).isCharacterDevice()).toBe(true);
  });
});
