// Issue 27.17: a merge of 200k sessions does not overflow the stack (a push(...) spread of a
// ledger's sessions did past ~130k: Node 20 throws at 130,000 arguments and not at 125,000). The
// 200k sessions and their ledger take this worker to ~0.55 GB, so this file runs in vitest's heavy
// project, alone (vitest.config.ts, issue 31 item 6); merge-validation.test.ts has the other checks.

import { describe, expect, it } from 'vitest';
import { asLedger, mergeLedgers } from '../../src/merge/add-up.js';
import { assembleReport } from '../../src/ledger/summary.js';
import type { SessionLedger } from '../../src/ledger/types.js';
import { oneHeavyCaseAtATime } from '../helpers/one-heavy.js';

describe('large merges', () => {
  function session(i: number): SessionLedger {
    return {
      id: `s${i}`,
      path: `p/${String(i).padStart(7, '0')}.jsonl`,
      format: 'claude-code',
      parent: null,
      model: null,
      turns: 1,
      rounds: 1,
      tool_calls: 0,
      entries: [],
      outcome: { enforce: { steers: 0, stops: [] } },
    };
  }

  it('200k sessions merge without a stack overflow (a push(...) spread overflowed past ~130k)', async () => {
    await oneHeavyCaseAtATime(async () => {
      const all = Array.from({ length: 200_000 }, (_, i) => session(i));
      const inputs = all.map((s) => ({ path: s.path, format: 'claude-code' as const, sessions: 1, lines: 2, skipped: [], skipped_lines: 0 }));
      const report = assembleReport({ version: '0', config: {}, inputs, sessions: all });
      const merged = mergeLedgers([{ name: 'big.json', report: asLedger(JSON.parse(JSON.stringify(report)), 'big.json') }]);
      expect(merged.summary.sessions).toBe(200_000);
    });
  });
});
