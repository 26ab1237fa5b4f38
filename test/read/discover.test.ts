import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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

  it('reports a dangling link with a transcript name, and ignores other dangling links', async () => {
    mkdirSync(join(scratch.dir, 'dangling'));
    symlinkSync(join(scratch.dir, 'gone.jsonl'), join(scratch.dir, 'dangling', 'gone.jsonl'));
    symlinkSync(join(scratch.dir, 'gone.txt'), join(scratch.dir, 'dangling', 'gone.txt'));
    const { files, errors } = await discoverInputs([join(scratch.dir, 'dangling')]);
    expect(files).toEqual([]);
    expect(errors).toEqual([{ path: join(scratch.dir, 'dangling', 'gone.jsonl'), message: 'no such file or directory' }]);
  });

  it('finds nothing, without error, in a directory without transcripts', async () => {
    tree('none', ['readme.md']);
    expect(await discoverInputs([join(scratch.dir, 'none')])).toEqual({ files: [], errors: [] });
  });
});

describe('compareCodePoints', () => {
  it('orders astral characters after the rest of the BMP, unlike the default sort', () => {
    const names = ['\u{1F980}', '\uFF21', 'a'];
    expect([...names].sort()).toEqual(['a', '\u{1F980}', '\uFF21']);
    expect([...names].sort(compareCodePoints)).toEqual(['a', '\uFF21', '\u{1F980}']);
  });
});
