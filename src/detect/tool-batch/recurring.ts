// `recurring_failure` (SPEC 0.2): the same tool answered with the same error three or more times in
// one session, across user turns, whatever the arguments. Seed 000 keeps its run inside a turn for
// a reason that stands ("A session-wide tally made any long conversation terminal"), so this is a
// reading for a person, never a verdict: its findings are noted and nothing else.
//
// Reported at the threshold occurrence and at every one after it: each further occurrence is
// another request spent on a failure the session has already seen, and the ledger is per round
// (what each round cost, what a reader would have skipped), as every strike of a run is an entry.
// Only once the occurrences span two user turns or more: inside one turn the run (repeated_batch)
// and tool_cycle already read the same calls, and a second entry on their rounds would say nothing
// new. What they cannot see, by design, is the failure coming back after the user spoke.

import type { Round } from '../../model/transcript.js';
import type { Finding, Measurement, ResumableRoundDetector, RoundObservation } from '../types.js';
import { answerFailed } from './failure.js';
import { answerDigest, displayId } from './signature.js';

/**
 * Distinct (tool, error) pairs remembered per session, least recently seen forgotten first. A
 * failure that recurs is seen again soon enough to stay; the cap only bounds a session made of
 * thousands of different errors (memory stays bounded whatever the session's length).
 */
const MAX_TRACKED_FAILURES = 1024;

interface Tally {
  tool: string;
  error: string;
  occurrences: number;
  turns: number;
  lastTurn: number;
  firstTurn: number;
  firstRound: number;
}

export interface RecurringFailureOptions {
  /** Occurrences at which a failure is reported; null: never. */
  occurrences: number | null;
  /** Distinct failures remembered (default MAX_TRACKED_FAILURES). */
  capacity?: number;
}

export class RecurringFailureTracker {
  private readonly tallies = new Map<string, Tally>();
  private readonly capacity: number;

  constructor(private readonly options: RecurringFailureOptions) {
    this.capacity = Math.max(1, options.capacity ?? MAX_TRACKED_FAILURES);
  }

  /** Count the round's failed calls; a finding for each failure at or past the threshold, across turns. */
  observe(round: Round): RoundObservation {
    const threshold = this.options.occurrences;
    if (threshold === null || round.answers === null || round.calls.length === 0) return { findings: [], measurements: [] };
    let touched: Tally[] | null = null;
    for (let i = 0; i < round.calls.length; i += 1) {
      const answer = round.answers[i];
      if (answer === undefined || !answerFailed(answer)) continue;
      const tool = round.calls[i]!.name;
      const error = answerDigest(answer);
      const key = `${tool.length}:${tool}|${error}`;
      let tally = this.tallies.get(key);
      if (tally === undefined) {
        tally = { tool, error, occurrences: 0, turns: 0, lastTurn: 0, firstTurn: round.turn, firstRound: round.index };
      } else {
        // Re-inserted below, so the map's order is least recently seen first.
        this.tallies.delete(key);
      }
      tally.occurrences += 1;
      if (tally.lastTurn !== round.turn) {
        tally.turns += 1;
        tally.lastTurn = round.turn;
      }
      this.tallies.set(key, tally);
      if (this.tallies.size > this.capacity) this.tallies.delete(this.tallies.keys().next().value!);
      touched ??= [];
      if (!touched.includes(tally)) touched.push(tally);
    }
    if (touched === null) return { findings: [], measurements: [] };

    const findings: Finding[] = [];
    let top: Tally | null = null;
    for (const t of touched) {
      if (t.turns < 2) continue;
      if (top === null || t.occurrences > top.occurrences) top = t;
      if (t.occurrences >= threshold) findings.push(this.finding(t, threshold));
    }
    return { findings, measurements: top === null ? [] : [measurement(top.occurrences, threshold)] };
  }

  /** Plain JSON, least recently seen first (the live hook keeps it between calls). */
  snapshot(): unknown {
    return [...this.tallies.entries()].map(([key, t]) => [key, { ...t }]);
  }

  restore(snapshot: unknown): void {
    this.tallies.clear();
    if (!Array.isArray(snapshot)) return;
    for (const item of snapshot.slice(-this.capacity)) {
      if (!Array.isArray(item) || typeof item[0] !== 'string' || typeof item[1] !== 'object' || item[1] === null) continue;
      const t = item[1] as Partial<Tally>;
      const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
      if (typeof t.tool !== 'string' || typeof t.error !== 'string') continue;
      this.tallies.set(item[0], {
        tool: t.tool,
        error: t.error,
        occurrences: n(t.occurrences),
        turns: n(t.turns),
        lastTurn: n(t.lastTurn),
        firstTurn: n(t.firstTurn),
        firstRound: n(t.firstRound),
      });
    }
  }

  private finding(t: Tally, threshold: number): Finding {
    return {
      detector: 'tool_batch',
      kind: 'recurring_failure',
      // An exact count, like a strike: no probability to state. Noted only, whatever the count.
      confidence: null,
      strike: null,
      evidence: {
        tools: t.tool,
        error: displayId(t.error),
        occurrences: t.occurrences,
        threshold,
        turns: t.turns,
        first_turn: t.firstTurn,
        first_round: t.firstRound,
      },
      loop: false,
      ambiguous: false,
      crossed: [measurement(t.occurrences, threshold)],
      excerpts: [],
    };
  }
}

function measurement(value: number, threshold: number): Measurement {
  return {
    detector: 'tool_batch',
    kind: 'recurring_failure',
    statistic: 'occurrences',
    value,
    threshold,
    direction: 'above',
  };
}

/** The session-scoped detector the ledger keeps across turns (never reset by a user turn). */
export function createRecurringFailureDetector(options: RecurringFailureOptions): ResumableRoundDetector {
  const tracker = new RecurringFailureTracker(options);
  return {
    name: 'tool_batch',
    observe: (round) => tracker.observe(round),
    snapshot: () => tracker.snapshot(),
    restore: (state) => tracker.restore(state),
  };
}
