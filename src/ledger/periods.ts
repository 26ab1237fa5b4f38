// `--by day|week|month` (SPEC 0.4 "Time"): the sessions added up per calendar period of the zone
// asked for, as the summary adds them up over the whole run. A session counts in the period it
// started in; a session without times in none (the summary's count less the periods' is theirs).

import { isoInZone, periodOf, type PeriodUnit } from './calendar.js';
import { SummaryTally } from './tally.js';
import type { Period, PeriodsReport, SessionLedger } from './types.js';

export type { Period, PeriodsReport } from './types.js';

/** How a report is cut into periods: the unit and the zone whose calendar draws the lines. */
export interface PeriodSpec {
  by: PeriodUnit;
  timezone: string;
}

const TOP_SHAPES = 3;

interface Bucket {
  startMs: number;
  endMs: number;
  tally: SummaryTally;
  tokens: number;
  tokensKnown: boolean;
}

/** Added one session at a time (a merge reads them back one by one), in the run's order. */
export class PeriodTally {
  private readonly buckets = new Map<string, Bucket>();

  constructor(readonly spec: PeriodSpec) {}

  add(s: SessionLedger): void {
    const started = s.started_at ? Date.parse(s.started_at) : NaN;
    // A session without times is in no period (the summary still counts it).
    if (!Number.isFinite(started)) return;
    const p = periodOf(started, this.spec.by, this.spec.timezone);
    let b = this.buckets.get(p.label);
    if (b === undefined) {
      b = { startMs: p.startMs, endMs: p.endMs, tally: new SummaryTally(), tokens: 0, tokensKnown: false };
      this.buckets.set(p.label, b);
    }
    b.tally.add(s);
    if (s.usage?.tokens !== undefined) {
      b.tokens += s.usage.tokens;
      b.tokensKnown = true;
    }
  }

  report(): PeriodsReport {
    const periods = [...this.buckets.entries()]
      .sort((a, b) => a[1].startMs - b[1].startMs)
      .map(([label, b]): Period => {
        const sum = b.tally.summary([]);
        const zone = this.spec.timezone;
        return {
          period: label,
          start: isoInZone(b.startMs, zone),
          end: isoInZone(b.endMs, zone),
          sessions: sum.sessions,
          rounds: sum.rounds,
          entries: sum.entries,
          tokens: b.tokensKnown ? b.tokens : null,
          usd: sum.cost?.usd ?? null,
          saved: sum.enforce.saved!,
          cut: sum.enforce.cut!,
          loop_shapes: (sum.loop_shapes ?? []).slice(0, TOP_SHAPES),
        };
      });
    return { periods_by: this.spec.by, timezone: this.spec.timezone, periods };
  }
}

/** The periods of these sessions. */
export function periodsOf(sessions: Iterable<SessionLedger>, spec: PeriodSpec): PeriodsReport {
  const tally = new PeriodTally(spec);
  for (const s of sessions) tally.add(s);
  return tally.report();
}
