// The rows of bench/public-stores/manifest.jsonl (agents' stores committed to public
// repositories, rebuilt out of git by bench/public-stores/rebuild.mjs) and where each was rebuilt.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../cli/helpers.js';

export interface PublicStoreRow<ReadsAs> {
  agent: string;
  repo: string;
  commit: string;
  path: string;
  /** Counted from the file itself, not from loopledger's output. */
  reads_as: ReadsAs;
}

export function publicStoreRows<ReadsAs>(agent: string): PublicStoreRow<ReadsAs>[] {
  return readFileSync(join(ROOT, 'bench/public-stores/manifest.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as PublicStoreRow<ReadsAs>)
    .filter((r) => r.agent === agent);
}

export function publicStorePath(row: PublicStoreRow<unknown>): string {
  return join(ROOT, 'bench/public-stores/data', row.repo.replace('/', '+'), row.commit, row.path);
}
