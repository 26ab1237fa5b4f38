// `--shard K/N`: which files one of N machines analyzes. A file belongs to the shard its key
// hashes to; the key is its path as discovered, relative to the path given, with `/` separators,
// so every machine running the same command line over the same tree picks the same files, whatever
// its platform, its Node version or where the tree is mounted.

import { createHash } from 'node:crypto';
import { basename, relative, sep } from 'node:path';
import { UsageError } from '../errors.js';

export interface Shard {
  /** 1-based: `--shard 1/4` … `4/4`, as Playwright and Jest count. */
  index: number;
  count: number;
}

/** `K/N` with 1 ≤ K ≤ N, whole numbers written in decimal digits only. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const usage = `--shard takes K/N with 1 ≤ K ≤ N (shards are counted from 1: --shard 1/4 … 4/4), not ${JSON.stringify(text)}`;
  if (!m) throw new UsageError(usage);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1) throw new UsageError(usage);
  if (index < 1) throw new UsageError(`${usage}; a 0-based index such as JOB_COMPLETION_INDEX needs +1`);
  if (index > count) throw new UsageError(`${usage}: there is no shard ${index} of ${count}`);
  return { index, count };
}

export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/** Claude Code 2.1: `<session>/subagents/agent-<id>.jsonl`, a sub-agent beside its parent `<session>.jsonl`. */
const SUBAGENT = /^(?:(.*)\/)?([^/]+)\/subagents\/agent-[^/]+\.jsonl$/i;

/**
 * What a file is hashed by: its path relative to the path it was found under (a file named
 * explicitly: its own name), `/`-separated and NFC-normalized (macOS may hand out NFD names).
 * A Claude Code sub-agent file takes its parent session's key, so a session and its sub-agents
 * always land in the same shard.
 */
export function shardKey(file: string, given: string): string {
  let rel = file === given ? basename(file) : relative(given, file);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`)) rel = basename(file);
  if (sep !== '/') rel = rel.split(sep).join('/');
  rel = rel.normalize('NFC');
  const sub = SUBAGENT.exec(rel);
  return sub ? `${sub[1] !== undefined ? `${sub[1]}/` : ''}${sub[2]}.jsonl` : rel;
}

/**
 * The shard (1..count) a key belongs to: the first 8 bytes of the SHA-256 of its UTF-8 bytes, read
 * as an unsigned big-endian integer, modulo count, plus 1. Fixed forever: a change would move
 * files between the shards of machines running different versions (tests pin known values).
 */
export function shardOf(key: string, count: number): number {
  const digest = createHash('sha256').update(key, 'utf8').digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(count)) + 1;
}

export function inShard(file: string, given: string, shard: Shard): boolean {
  return shard.count === 1 || shardOf(shardKey(file, given), shard.count) === shard.index;
}
