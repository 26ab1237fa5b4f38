// Issue 56 item 5 (Codex token accounting): a rollout's `token_count` events carry the request's own
// figures (`last_token_usage`) and the running sum (`total_token_usage`). loopledger prices each request
// from its `last_token_usage`; over a rollout whose total only grows, those add up to the final total
// exactly (docs/pricing.md says why `last`, not `total`, is the per-request figure).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli } from './helpers.js';

interface Totals {
  input_tokens: number;
  cached_input_tokens?: number;
  output_tokens: number;
}

/** The rollout's last `total_token_usage`, when every total is at least the one before (no reset). */
function finalTotal(path: string): Totals | null {
  let last: Totals | null = null;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.includes('"token_count"')) continue;
    const info = (JSON.parse(line) as { payload?: { info?: { total_token_usage?: Totals } } }).payload?.info?.total_token_usage;
    if (!info) continue;
    if (last !== null && info.input_tokens < last.input_tokens) return null;
    last = info;
  }
  return last;
}

const dir = (...parts: string[]) => {
  try {
    return readdirSync(join(...parts)).filter((f) => f.endsWith('.jsonl')).map((f) => join(...parts, f));
  } catch {
    return [];
  }
};

beforeAll(ensureBuilt);

describe('Codex token accounting', () => {
  const rollouts = [
    ...dir(ROOT, 'fixtures', 'codex'),
    ...dir(ROOT, '..', 'shared', 'recordings', 'real', 'codex'),
    ...dir(ROOT, '..', 'shared', 'research-samples', 'codex'),
  ];
  it("adds each request's last_token_usage up to the rollout's own final total_token_usage", async () => {
    let checked = 0;
    for (const path of rollouts) {
      const total = finalTotal(path);
      if (total === null) continue;
      const r = await runCli([path, '--json']);
      const sessions = (JSON.parse(r.stdout) as { sessions: { usage?: { input_tokens: number; cache_read_tokens: number; output_tokens: number } }[] }).sessions;
      const sum = (k: 'input_tokens' | 'cache_read_tokens' | 'output_tokens') => sessions.reduce((n, s) => n + (s.usage?.[k] ?? 0), 0);
      // The ledger's input_tokens are the uncached part: with the cache reads they are the prompt Codex counts.
      expect(sum('input_tokens') + sum('cache_read_tokens'), path).toBe(total.input_tokens);
      expect(sum('cache_read_tokens'), path).toBe(total.cached_input_tokens ?? 0);
      expect(sum('output_tokens'), path).toBe(total.output_tokens);
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  }, 300_000);
});
