// A session's thin version: what of it the summary, the exit code, the checks and the overviews read.

import type { LedgerEntry, SessionLedger } from '../ledger/types.js';

/**
 * Thin versions of the sessions of one merge: what of a session the summary (summary.ts,
 * loop-shapes.ts), the exit code (fail-on.ts), the checks and the reports' overviews read (its
 * fields but the heavy ones, and of each entry what says which loop it is and how far enforce
 * goes). A merge puts this of every session aside beside the whole session (spill.ts)
 * and the formats read it back as they rank and count (ReportOptions.wholeSession reads the rest).
 */
export class ThinSessions {
  of(s: SessionLedger): SessionLedger {
    // A copy made whole by the rest pattern holds its fields in fewer words than one built key by key.
    const { entries, interrupts: _interrupts, verdicts: _verdicts, timeline: _timeline, ...rest } = s;
    const thin = rest as Record<string, unknown>;
    thin['entries'] = entries.map((e) => this.entry(e));
    return thin as unknown as SessionLedger;
  }

  private entry(e: LedgerEntry): LedgerEntry {
    const thin = this.thinEntry(e);
    // A run's rounds are what the summary counts (summary.entries, loop shapes): kept whole, it is small.
    if (e.run !== undefined) thin.run = e.run;
    return thin;
  }

  private thinEntry(e: LedgerEntry): LedgerEntry {
    const intervention = { enforce: e.intervention.enforce } as LedgerEntry['intervention'];
    const round = e.round;
    const detector = e.detector;
    const kind = e.kind;
    // One literal per case, in the order the entry has them: an object built whole keeps its fields in place.
    if (e.shape !== undefined) {
      const shape = e.shape;
      return (e.round_usage !== undefined ? { round, detector, kind, shape, round_usage: e.round_usage, intervention } : { round, detector, kind, shape, intervention }) as LedgerEntry;
    }
    const evidence = { tools: (e.evidence as LedgerEntry['evidence'] | undefined)?.['tools'] } as LedgerEntry['evidence'];
    return (e.round_usage !== undefined ? { round, detector, kind, evidence, round_usage: e.round_usage, intervention } : { round, detector, kind, evidence, intervention }) as LedgerEntry;
  }
}
