// The summary's sums, kept apart from the report that holds them so that the periods (periods.ts),
// merge and the ledger check can add sessions up without importing summary.ts, which reads them.

import { roundUsd } from '../money/account.js';
import type { InputSummary } from '../formats/input.js';
import { LoopShapeTally } from './loop-shapes.js';
import { sessionFindings } from './runs.js';
import type { EnforceSaved, JudgeUsage, LedgerSummary, SessionLedger } from './types.js';

/** What the stops prevent over sessions (summary.enforce.saved and .cut). */
export type PreventedTotal = EnforceSaved & { unpriced_sessions: number; sessions: number };

export function noJudgeUsage(): JudgeUsage {
  return { requests: 0, input_tokens: 0, output_tokens: 0, cached: 0, failed: 0 };
}

/**
 * The summary's sums, added one session at a time in the order given (dollars are floats: the
 * order one run adds them in is the order that gives its last digit), so a caller that reads
 * sessions back one by one holds none of them.
 */
export class SummaryTally {
  private count = 0;
  private rounds = 0;
  private entries = 0;
  private stopped = 0;
  private steered = 0;
  private usd = 0;
  private priced = 0;
  private unpriced = 0;
  private readonly saved = new PreventionSum();
  private readonly cut = new PreventionSum();
  private readonly shapes = new LoopShapeTally();

  add(s: SessionLedger): void {
    this.count += 1;
    this.rounds += s.rounds;
    this.entries += sessionFindings(s);
    if (s.outcome.enforce.stops.length > 0) this.stopped += 1;
    if (s.outcome.enforce.steers > 0) this.steered += 1;
    if (s.cost) {
      if (s.cost.usd === null) this.unpriced += 1;
      else {
        this.usd += s.cost.usd;
        this.priced += 1;
      }
    }
    this.saved.add(s.outcome.enforce.saved);
    this.cut.add(s.outcome.enforce.cut);
    this.shapes.add(s);
  }

  /** `inputs` are iterated once (a large merge reads them back from disk as they are iterated). */
  summary(inputs: Iterable<Pick<InputSummary, 'skipped_lines'>>, judge: JudgeUsage = noJudgeUsage()): LedgerSummary {
    let skipped = 0;
    for (const i of inputs) skipped += i.skipped_lines;
    return {
      sessions: this.count,
      rounds: this.rounds,
      entries: this.entries,
      skipped_lines: skipped,
      enforce: { sessions_stopped: this.stopped, sessions_steered: this.steered, saved: this.saved.total(), cut: this.cut.total() },
      // Unpriced sessions are counted, never added as 0; with none priced there is no total at all.
      cost: { usd: this.priced === 0 && this.unpriced > 0 ? null : roundUsd(this.usd), unpriced_sessions: this.unpriced },
      judge: { ...judge },
      loop_shapes: this.shapes.shapes(),
    };
  }
}

/** What the stops prevent, saved or cut, over the sessions: unknown tokens and dollars are counted, never added as 0. */
export class PreventionSum {
  private rounds = 0;
  private sessions = 0;
  private tokens = 0;
  private tokensKnown = 0;
  private usd = 0;
  private priced = 0;
  private unpriced = 0;

  add(p: EnforceSaved | undefined): void {
    if (!p || p.rounds === 0) return;
    this.sessions += 1;
    this.rounds += p.rounds;
    if (p.tokens !== null) {
      this.tokens += p.tokens;
      this.tokensKnown += 1;
    }
    if (p.usd === null) this.unpriced += 1;
    else {
      this.usd += p.usd;
      this.priced += 1;
    }
  }

  total(): PreventedTotal {
    return {
      rounds: this.rounds,
      // As for dollars: tokens nobody recorded are unknown, not 0.
      tokens: this.rounds > 0 && this.tokensKnown === 0 ? null : this.tokens,
      usd: this.priced === 0 && this.unpriced > 0 ? null : roundUsd(this.usd),
      unpriced_sessions: this.unpriced,
      sessions: this.sessions,
    };
  }
}
