import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { itWith } from '../helpers/capabilities.js';
import { compareCodePoints, discoverInputs } from '../../src/read/discover.js';
import { scratchDir } from './tmp.js';

const scratch = scratchDir();
afterAll(() => scratch.cleanup());

function tree(root: string, files: string[]): void {
  for (const f of files) {
    const path = join(scratch.dir, root, f);
    mkdirSync(join(path, '..'), { recursive: true });
    scratch.file(join(root, f), '{}\n');
  }
}

describe('discoverInputs', () => {
  it('searches directories recursively for .jsonl and .json, in code point order', async () => {
    tree('mixed', ['b.jsonl', 'a.json', 'notes.txt', 'B.JSONL', 'sub/z.jsonl', 'sub/deeper/y.json', 'sub/x.log', 'a b.jsonl', 'é.jsonl']);
    const root = join(scratch.dir, 'mixed');
    const { files, errors } = await discoverInputs([root]);
    expect(errors).toEqual([]);
    expect(files.map((f) => f.slice(root.length + 1))).toEqual([
      'B.JSONL',
      'a b.jsonl',
      'a.json',
      'b.jsonl',
      'sub/deeper/y.json',
      'sub/z.jsonl',
      'é.jsonl',
    ]);
  });

  it('also picks up SWE-agent .traj run files in a directory, and nothing merely named like one', async () => {
    tree('swe', ['run-1.traj', 'RUN-2.TRAJ', 'sub/run-3.traj', 'run.traj.bak', 'trajectories.txt', 'a.json']);
    const root = join(scratch.dir, 'swe');
    const { files, errors } = await discoverInputs([root]);
    expect(errors).toEqual([]);
    expect(files.map((f) => f.slice(root.length + 1))).toEqual(['RUN-2.TRAJ', 'a.json', 'run-1.traj', 'sub/run-3.traj']);
  });

  it('takes a named file whatever its extension, and reads it once however often it is named', async () => {
    const traj = scratch.file('run.traj', '{}\n');
    const jsonl = scratch.file('one.jsonl', '{}\n');
    const { files } = await discoverInputs([traj, jsonl, traj, scratch.dir + '/./one.jsonl']);
    expect(files).toEqual([jsonl, traj]);
  });

  it('reports a missing path as an error naming it, and still lists the rest', async () => {
    const ok = scratch.file('here.jsonl', '{}\n');
    const missing = join(scratch.dir, 'missing.jsonl');
    const { files, errors } = await discoverInputs([missing, ok]);
    expect(files).toEqual([ok]);
    expect(errors).toEqual([{ path: missing, message: 'no such file or directory' }]);
  });

  it('keeps `-` as stdin without touching it', async () => {
    const ok = scratch.file('with-stdin.jsonl', '{}\n');
    const { files, errors } = await discoverInputs(['-', ok, '-']);
    expect(errors).toEqual([]);
    expect(files).toEqual(['-', ok]);
  });

  it('does not follow a symbolic link loop forever', async () => {
    tree('loop', ['a.jsonl', 'inner/b.jsonl']);
    symlinkSync(join(scratch.dir, 'loop'), join(scratch.dir, 'loop', 'inner', 'back'));
    const root = join(scratch.dir, 'loop');
    const { files, errors } = await discoverInputs([root]);
    expect(errors).toEqual([]);
    expect(files.map((f) => f.slice(root.length + 1))).toEqual(['a.jsonl', 'inner/b.jsonl']);
  });

  it('counts a dangling link with a transcript name as unreadable (no error: it was found, not named), and ignores other dangling links', async () => {
    mkdirSync(join(scratch.dir, 'dangling'));
    symlinkSync(join(scratch.dir, 'gone.jsonl'), join(scratch.dir, 'dangling', 'gone.jsonl'));
    symlinkSync(join(scratch.dir, 'gone.txt'), join(scratch.dir, 'dangling', 'gone.txt'));
    const { files, errors, unreadable } = await discoverInputs([join(scratch.dir, 'dangling')]);
    expect(files).toEqual([]);
    expect(errors).toEqual([]);
    expect(unreadable).toEqual([{ path: join(scratch.dir, 'dangling', 'gone.jsonl'), message: 'a symbolic link to nothing readable: no such file or directory' }]);
  });

  it('finds nothing, without error, in a directory without transcripts', async () => {
    tree('none', ['readme.md']);
    expect(await discoverInputs([join(scratch.dir, 'none')])).toMatchObject({ files: [], errors: [] });
  });
});

describe('compareCodePoints', () => {
  it('orders astral characters after the rest of the BMP, unlike the default sort', () => {
    const names = ['\u{1F980}', '\uFF21', 'a'];
    expect([...names].sort()).toEqual(['a', '\u{1F980}', '\uFF21']);
    expect([...names].sort(compareCodePoints)).toEqual(['a', '\uFF21', '\u{1F980}']);
  });
});

// SPEC "Where sessions are found": "Inside a directory, hidden entries are skipped except those
// known stores (…); node_modules and .git are never entered; symlinked directories are not followed
// (a symlinked file is read), and no directory is read twice."
describe('walking a directory the way a home folder needs', () => {
  const rel = (root: string, files: string[]) => files.map((f) => f.slice(root.length + 1));

  it('never enters node_modules or .git, and skips hidden entries', async () => {
    tree('deps', ['app/a.jsonl', 'app/node_modules/pkg/package.json', 'app/node_modules/pkg/x.jsonl', 'app/.git/objects/o.json', '.cache/c.jsonl', 'app/.hidden.jsonl']);
    const root = join(scratch.dir, 'deps');
    const { files, errors } = await discoverInputs([root]);
    expect(errors).toEqual([]);
    expect(rel(root, files)).toEqual(['app/a.jsonl']);
  });

  it('enters the agents\' stores among hidden folders, and only their session folders', async () => {
    tree('home', [
      '.claude/projects/-home-me-app/s1.jsonl',
      '.claude/projects/-home-me-app/s1/subagents/agent-a1.jsonl',
      '.claude/projects/-home-me-app/s1/subagents/agent-a1.meta.json',
      '.claude/todos/t.json',
      '.claude/settings.json',
      '.claude/history.jsonl',
      '.codex/sessions/2025/10/01/rollout-1.jsonl',
      '.codex/archived_sessions/rollout-0.jsonl',
      '.codex/history.jsonl',
      '.gemini/tmp/abc/chats/session-1.json',
      '.gemini/tmp/abc/logs.json',
      '.gemini/tmp/abc/checkpoint-x.json',
      '.gemini/settings.json',
      '.config/other.json',
      'work/run.jsonl',
    ]);
    const root = join(scratch.dir, 'home');
    const { files, errors } = await discoverInputs([root]);
    expect(errors).toEqual([]);
    expect(rel(root, files)).toEqual([
      '.claude/projects/-home-me-app/s1.jsonl',
      '.claude/projects/-home-me-app/s1/subagents/agent-a1.jsonl',
      '.codex/archived_sessions/rollout-0.jsonl',
      '.codex/sessions/2025/10/01/rollout-1.jsonl',
      '.gemini/tmp/abc/chats/session-1.json',
      'work/run.jsonl',
    ]);
    // A store root named explicitly is read the same way.
    const claude = join(root, '.claude');
    expect(rel(claude, (await discoverInputs([claude])).files)).toEqual(['projects/-home-me-app/s1.jsonl', 'projects/-home-me-app/s1/subagents/agent-a1.jsonl']);
  });

  it('reads a symbolic link to a file, but never follows one to a directory (a link to / is harmless)', async () => {
    tree('links', ['real/a.jsonl', 'elsewhere/b.jsonl']);
    const root = join(scratch.dir, 'links');
    symlinkSync('/', join(root, 'real', 'root-link'));
    symlinkSync(join(root, 'elsewhere'), join(root, 'real', 'dir-link'));
    symlinkSync(join(root, 'elsewhere', 'b.jsonl'), join(root, 'real', 'b-link.jsonl'));
    const { files, errors } = await discoverInputs([join(root, 'real')]);
    expect(errors).toEqual([]);
    expect(rel(root, files)).toEqual(['real/a.jsonl', 'real/b-link.jsonl']);
  });

  it('reads a file once under any number of names (links, a folder named twice), and each directory once', async () => {
    tree('twice', ['d/a.jsonl']);
    const root = join(scratch.dir, 'twice');
    symlinkSync(join(root, 'd', 'a.jsonl'), join(root, 'd', 'z-same.jsonl'));
    linkSync(join(root, 'd', 'a.jsonl'), join(root, 'd', 'hard.jsonl'));
    symlinkSync(join(root, 'd'), join(root, 'd-again'));
    const { files } = await discoverInputs([join(root, 'd'), join(root, 'd-again'), root]);
    expect(rel(root, files)).toEqual(['d/a.jsonl']);
  });

  it('ends in a symbolic link loop of two links, naming it when its name promises a transcript', async () => {
    mkdirSync(join(scratch.dir, 'eloop'));
    symlinkSync(join(scratch.dir, 'eloop', 'b.jsonl'), join(scratch.dir, 'eloop', 'a.jsonl'));
    symlinkSync(join(scratch.dir, 'eloop', 'a.jsonl'), join(scratch.dir, 'eloop', 'b.jsonl'));
    symlinkSync(join(scratch.dir, 'eloop', 'y'), join(scratch.dir, 'eloop', 'x'));
    symlinkSync(join(scratch.dir, 'eloop', 'x'), join(scratch.dir, 'eloop', 'y'));
    const { files, errors, unreadable } = await discoverInputs([join(scratch.dir, 'eloop')]);
    expect(files).toEqual([]);
    expect(errors).toEqual([]);
    expect(unreadable.map((e) => e.message)).toEqual(Array(2).fill('a symbolic link to nothing readable: too many levels of symbolic links'));
  });

  itWith('mkfifo', 'never opens a FIFO found in a directory (it could block forever)', async () => {
    tree('fifo', ['a.jsonl']);
    const fifo = join(scratch.dir, 'fifo', 'pipe.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const { files } = await discoverInputs([join(scratch.dir, 'fifo')]);
    expect(files.map((f) => f.slice(scratch.dir.length + 1))).toEqual(['fifo/a.jsonl']);
  });
});
