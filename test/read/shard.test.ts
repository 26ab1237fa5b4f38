// `--shard K/N`: the split is a fixed function of a file's path relative to the path given. These
// tests pin it (a change would move files between the shards of machines on different versions),
// and check with fast-check that every file lands in exactly one shard.

import fc from 'fast-check';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { audit, resolveInputs } from '../../src/run/audit.js';
import { parseShard, shardKey, shardOf } from '../../src/read/shard.js';
import { UsageError } from '../../src/errors.js';
import { scratchDir } from './tmp.js';

const scratch = scratchDir('loopledger-shard-');
afterAll(() => scratch.cleanup());

describe('parseShard', () => {
  it('takes K/N counted from 1, as Playwright and Jest do', () => {
    expect(parseShard('1/4')).toEqual({ index: 1, count: 4 });
    expect(parseShard('4/4')).toEqual({ index: 4, count: 4 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    expect(parseShard('256/256')).toEqual({ index: 256, count: 256 });
  });

  it.each(['0/4', '5/4', 'a/b', '1/0', '0/0', '1', '1/', '/4', '-1/4', '1/-4', '1.5/4', '1 /4', ' 1/4', '1/4/8', '', '+1/4', '1e2/200', '99999999999999999999/99999999999999999999'])(
    'refuses %j with a usage error (exit 2) that says how to write it',
    (text) => {
      let error: unknown;
      try {
        parseShard(text);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain('--shard takes K/N with 1 ≤ K ≤ N');
    },
  );

  it('tells a 0-based index how to become a shard, and names a shard past the count', () => {
    expect(() => parseShard('0/4')).toThrow(/JOB_COMPLETION_INDEX needs \+1/);
    expect(() => parseShard('5/4')).toThrow(/there is no shard 5 of 4/);
  });
});

describe('shardOf: SHA-256 of the key, its first 8 bytes big-endian, modulo N, plus 1', () => {
  // Computed apart from the code under test, with Python's hashlib:
  //   h = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], 'big'); [h % n + 1 for n in (2, 3, 4, 7, 256)]
  const pinned: [string, number[]][] = [
    ['a.jsonl', [1, 3, 1, 7, 97]],
    ['projects/-home-ana-src-app/7c2d41e9-5b08-4f3a-8e61-0d93a7b2c4f5.jsonl', [1, 2, 1, 4, 193]],
    ['sessions/2026/02/20/rollout-2026-02-20T16-41-09-0199a1c4-7e21-7b30-9d4f-5c8e2a6b1d37.jsonl', [2, 3, 2, 7, 174]],
    ['é/ü.json', [1, 3, 3, 5, 247]],
    ['calm-readme-update.jsonl', [2, 3, 2, 5, 46]],
    ['conversations/5b1e0c2a7f3d4e8a9c612d4b8e0f9a17', [1, 2, 3, 2, 111]],
  ];
  it.each(pinned)('%s', (key, shards) => {
    expect([2, 3, 4, 7, 256].map((n) => shardOf(key, n))).toEqual(shards);
  });

  it('puts every key in exactly one shard of 1..N, and one shard of one holds everything', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'grapheme', minLength: 1 }), { maxLength: 60 }), fc.integer({ min: 1, max: 300 }), (keys, n) => {
        const shards = Array.from({ length: n }, (_, i) => keys.filter((k) => shardOf(k, n) === i + 1));
        // Union is the whole, and no key is in two shards.
        expect(shards.flat().sort()).toEqual([...keys].sort());
        for (const k of keys) expect(shards.filter((s) => s.includes(k))).toHaveLength(1);
        for (const k of keys) expect(shardOf(k, 1)).toBe(1);
      }),
    );
  });

  it('spreads a store evenly: 4,000 session paths over 7 shards, each within 15% of its share', () => {
    const counts = new Array<number>(7).fill(0);
    for (let i = 0; i < 4000; i++) counts[shardOf(`projects/p${i % 13}/${i.toString(16).padStart(8, '0')}-session.jsonl`, 7) - 1]! += 1;
    for (const c of counts) expect(Math.abs(c - 4000 / 7)).toBeLessThan((4000 / 7) * 0.15);
  });
});

describe('shardKey: the path as discovered, relative to the path given', () => {
  it('is relative to a directory given, with / separators, and NFC-normalized', () => {
    expect(shardKey(join('/data', 'runs', 'a', 'b.jsonl'), '/data/runs')).toBe('a/b.jsonl');
    expect(shardKey('runs/a/b.jsonl', 'runs/')).toBe('a/b.jsonl');
    expect(shardKey('./runs/a/b.jsonl', 'runs')).toBe('a/b.jsonl');
    // The same name as macOS (NFD) and Linux (NFC) write it: one key.
    expect(shardKey('runs/cafe\u0301.jsonl', 'runs')).toBe(shardKey('runs/caf\u00e9.jsonl', 'runs'));
  });

  it('is the file name for a file named explicitly, wherever it lies', () => {
    expect(shardKey('/mnt/archive/x/y/run.jsonl', '/mnt/archive/x/y/run.jsonl')).toBe('run.jsonl');
    expect(shardKey('run.jsonl', 'run.jsonl')).toBe('run.jsonl');
  });

  it("gives a Claude Code sub-agent file its parent session's key, so they always share a shard", () => {
    expect(shardKey('p/proj/abc/subagents/agent-a1.jsonl', 'p')).toBe('proj/abc.jsonl');
    expect(shardKey('p/abc/subagents/agent-a1.jsonl', 'p')).toBe('abc.jsonl');
    expect(shardKey('p/proj/abc.jsonl', 'p')).toBe('proj/abc.jsonl');
    // Given the sub-agents' folder itself: no parent in the run, each file its own key.
    expect(shardKey('abc/subagents/agent-a1.jsonl', 'abc/subagents')).toBe('agent-a1.jsonl');
  });
});

describe('sharding a tree', () => {
  function tree(files: string[]): string {
    const root = join(scratch.dir, `tree-${Math.random().toString(36).slice(2)}`);
    for (const f of files) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      scratch.file(join(root.slice(scratch.dir.length + 1), f), '{}\n');
    }
    return root;
  }

  it('splits the files found into N disjoint shards whose union is every file, for many N', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `d${i % 5}/s${i}.jsonl`);
    names.push('proj/abc.jsonl', 'proj/abc/subagents/agent-1.jsonl', 'proj/abc/subagents/agent-2.jsonl');
    const root = tree(names);
    const all = (await resolveInputs([root])).files;
    expect(all).toHaveLength(names.length);
    for (const n of [1, 2, 3, 7, 64]) {
      const shards = [];
      for (let k = 1; k <= n; k++) shards.push((await resolveInputs([root], { index: k, count: n })).files);
      expect(shards.flat().sort()).toEqual([...all].sort());
      expect(new Set(shards.flat()).size).toBe(all.length);
      // The session and its sub-agents: one shard.
      const holder = shards.filter((s) => s.some((f) => f.endsWith('abc.jsonl')));
      expect(holder).toHaveLength(1);
      expect(holder[0]!.filter((f) => f.includes('abc'))).toHaveLength(3);
    }
  });

  it('keys on the path relative to the path given: the same tree mounted elsewhere splits the same way', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `x/s${i}.jsonl`);
    const a = tree(names);
    const b = tree(names);
    for (let k = 1; k <= 3; k++) {
      const rel = async (root: string) => (await resolveInputs([root], { index: k, count: 3 })).files.map((f) => f.slice(root.length + 1));
      expect(await rel(a)).toEqual(await rel(b));
    }
  });

  it('an empty shard (more shards than files) is a valid, empty ledger', async () => {
    const root = tree(['only.jsonl']);
    const owner = shardOf('only.jsonl', 5);
    const other = owner === 1 ? 2 : 1;
    const report = await audit([root], { shard: { index: other, count: 5 }, pricing: false, jobs: 1 });
    expect(report.inputs).toEqual([]);
    expect(report.sessions).toEqual([]);
    expect(report.shard).toEqual({ index: other, count: 5 });
    expect(report.summary.sessions).toBe(0);
  });

  it('a path that cannot be read belongs to one shard, like a file', async () => {
    const root = tree(['here.jsonl']);
    const missing = join(scratch.dir, 'missing-dir');
    const owners = [];
    for (let k = 1; k <= 4; k++) {
      const { unreadable } = await resolveInputs([root, missing], { index: k, count: 4 });
      if (unreadable.length > 0) owners.push(k);
    }
    expect(owners).toEqual([shardOf('missing-dir', 4)]);
  });

  it('refuses - (stdin) with --shard: one stream cannot be split by path', async () => {
    await expect(resolveInputs(['-'], { index: 1, count: 2 })).rejects.toThrow(/standard input\) is one stream/);
  });

  it('still fails on a tree with no transcript at all, on every shard', async () => {
    const root = join(scratch.dir, 'empty-tree');
    mkdirSync(root);
    await expect(resolveInputs([root], { index: 2, count: 3 })).rejects.toThrow(/no input found/);
  });
});
