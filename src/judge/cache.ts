// The verdict cache (`judge.cache`): the judge's answers by evidence key, so a re-run asks nothing
// twice and a CI job can commit the file for reproducible ledgers. One JSON document, keys sorted,
// one entry per key, so a commit diff shows exactly the new verdicts. Only answers are kept: a
// timeout or an HTTP error is not a verdict, and the next run asks again.

import { readFile } from 'node:fs/promises';
import { inPlace, replaceInPlace } from '../file-in-place.js';
import { ConfigError } from '../errors.js';
import { confidenceOf } from './parse.js';

export const JUDGE_CACHE_SCHEMA = 'loopledger/judge-cache/1';

export interface CachedVerdict {
  /** The judge model that answered (the key already depends on it; kept for people). */
  model: string;
  /** `detector/kind`. */
  signal: string;
  verdict: 'loop' | 'progress';
  confidence: number | null;
  reason: string | null;
}

export interface LoadedCache {
  verdicts: Map<string, CachedVerdict>;
  /** Entries that were not verdicts (edited by hand, a newer build): skipped, counted. */
  skipped: number;
}

const KEY = /^[0-9a-f]{64}$/;

function entryOf(v: unknown): CachedVerdict | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (o['verdict'] !== 'loop' && o['verdict'] !== 'progress') return null;
  if (typeof o['model'] !== 'string' || typeof o['signal'] !== 'string') return null;
  const confidence = o['confidence'] === null ? null : confidenceOf(o['confidence']);
  if (o['confidence'] !== null && confidence === null) return null;
  return {
    model: o['model'],
    signal: o['signal'],
    verdict: o['verdict'],
    confidence,
    reason: typeof o['reason'] === 'string' ? o['reason'] : null,
  };
}

/**
 * The cache at `path`; a missing file is an empty cache. A file that is not a judge cache is a
 * usage error: it is never overwritten (the path may name something else by mistake).
 */
export async function loadJudgeCache(path: string): Promise<LoadedCache> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { verdicts: new Map(), skipped: 0 };
    throw new ConfigError(`judge.cache ${path}: cannot read it: ${(e as Error).message}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ConfigError(`judge.cache ${path} is not a loopledger judge cache (not JSON); refusing to overwrite it`);
  }
  const o = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : null;
  const verdicts = o?.['verdicts'];
  if (!o || o['schema'] !== JUDGE_CACHE_SCHEMA || verdicts === null || typeof verdicts !== 'object' || Array.isArray(verdicts)) {
    throw new ConfigError(`judge.cache ${path} is not a loopledger judge cache (schema ${JUDGE_CACHE_SCHEMA}); refusing to overwrite it`);
  }
  const out = new Map<string, CachedVerdict>();
  let skipped = 0;
  for (const [key, value] of Object.entries(verdicts as Record<string, unknown>)) {
    const entry = KEY.test(key) ? entryOf(value) : null;
    if (entry) out.set(key, entry);
    else skipped += 1;
  }
  return { verdicts: out, skipped };
}

function renderJudgeCache(verdicts: ReadonlyMap<string, CachedVerdict>): string {
  const sorted: Record<string, CachedVerdict> = {};
  for (const key of [...verdicts.keys()].sort()) sorted[key] = verdicts.get(key)!;
  return `${JSON.stringify({ schema: JUDGE_CACHE_SCHEMA, verdicts: sorted }, null, 2)}\n`;
}

/**
 * Write the cache: what is on disk now (another run may have added to it) merged with `verdicts`,
 * in place (a link stays a link and its target is updated, the mode is kept, a read-only cache is
 * refused untouched), through a temporary file renamed over it, so a reader never sees half a cache.
 */
export async function saveJudgeCache(path: string, verdicts: ReadonlyMap<string, CachedVerdict>): Promise<void> {
  // Throws, without writing, when the file has meanwhile become something else.
  const onDisk = await loadJudgeCache(path);
  const merged = new Map([...onDisk.verdicts, ...verdicts]);
  try {
    replaceInPlace(inPlace(path), renderJudgeCache(merged));
  } catch (e) {
    throw new ConfigError(`judge.cache ${path}: cannot write it: ${(e as Error).message}`);
  }
}
