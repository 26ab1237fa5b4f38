// `tool_cycle`: the gap seed 000 admits ("A cycle of tool batches, at any period of two or more —
// A → B → A → B, and equally A → A → B repeating"), as a separate signal that leaves LoopDetector
// untouched.
//
// A cycle of period p is a contiguous stretch of batches where every batch equals the one p
// before it, signature and answers both: a cycle whose answers change is an agent making progress
// in a loop-shaped workflow (edit → test with a different failure each time), so it stays silent.
// Contiguity is what separates a cycle from scattered repeats; the window bounds how long a cycle
// may take to show itself (its repeat count of full periods must fit inside it).
//
// Dedup: a stretch is reported when it first completes `repeats` full periods, then once more at
// every further full period it completes, never on the rounds in between. A stretch that breaks
// and starts again is a new occurrence and counts from zero.

import type { Round } from '../../model/transcript.js';
import { displayId } from './signature.js';
import type { Finding, Measurement, RoundObservation } from '../types.js';
import { MAX_CYCLE_PERIOD, MIN_CYCLE_PERIOD } from './config.js';
import type { LazyAnswers, RoundDigest } from './digest.js';
import type { ToolMatcher } from './patterns.js';

export interface CycleOptions {
  /** Recent batches a cycle must fit in (`repeats × period ≤ window`). */
  window: number;
  /** Full periods (with identical answers) before a cycle is reported. */
  repeats: number;
  /**
   * Full periods from which enforce acts on it (`cycle_enforce_periods`), for `--explain`; null
   * when `cycle_enforce` never goes past noted. The ladder decides; this only states the line.
   */
  enforceAt?: number | null;
}

interface Entry {
  signature: string;
  answersKnown: boolean;
  answers: LazyAnswers;
  names: readonly string[];
}

/**
 * Same batch, and answers that repeat. Unknown answers count as repeating, as in LoopDetector:
 * an answer nobody can read is not evidence of progress.
 */
function same(a: Entry, b: Entry): boolean {
  if (a.signature !== b.signature) return false;
  const x = a.answers();
  if (x === null) return true;
  const y = b.answers();
  return y === null || x === y;
}

export class CycleTracker {
  /** The last MAX_CYCLE_PERIOD batches of the turn, oldest first. */
  private recent: Entry[] = [];
  /** `matched[p]`: how many of the latest batches in a row equal the batch p before them. */
  private matched: number[] = new Array<number>(MAX_CYCLE_PERIOD + 1).fill(0);

  constructor(private readonly options: CycleOptions) {}

  reset(): void {
    this.recent = [];
    this.matched.fill(0);
  }

  /** Plain JSON state; answers are digested so a restored tracker compares as this one would. */
  snapshot(): unknown {
    return {
      recent: this.recent.map((e) => ({
        signature: e.signature,
        answersKnown: e.answersKnown,
        answers: e.answers(),
        names: [...e.names],
      })),
      matched: [...this.matched],
    };
  }

  restore(snapshot: unknown): void {
    const o = (snapshot ?? {}) as { recent?: unknown; matched?: unknown };
    const recent = Array.isArray(o.recent) ? o.recent : [];
    this.recent = recent.map((raw) => {
      const e = raw as { signature: string; answersKnown: boolean; answers: string | null; names: string[] };
      const digest = typeof e.answers === 'string' ? e.answers : null;
      return { signature: String(e.signature), answersKnown: e.answersKnown === true, answers: () => digest, names: e.names ?? [] };
    });
    const matched = Array.isArray(o.matched) ? (o.matched as number[]) : [];
    this.matched = new Array<number>(MAX_CYCLE_PERIOD + 1).fill(0).map((_, i) => Number(matched[i] ?? 0));
  }

  /** Feed one non-empty batch; returns the finding (if a cycle completed a reportable period) and the near-miss statistic. */
  push(digest: RoundDigest): { finding: Finding | null; measurement: Measurement | null } {
    const entry: Entry = {
      signature: digest.batch.signature,
      answersKnown: digest.answersKnown,
      answers: digest.answers,
      names: digest.batch.names,
    };
    const n = this.recent.length;
    for (let p = MIN_CYCLE_PERIOD; p <= MAX_CYCLE_PERIOD; p += 1) {
      this.matched[p] = n >= p && same(entry, this.recent[n - p]!) ? this.matched[p]! + 1 : 0;
    }
    this.recent.push(entry);
    if (this.recent.length > MAX_CYCLE_PERIOD) this.recent.shift();

    // The strongest candidate: most full periods, shortest period on a tie.
    let best: { period: number; periods: number; span: number } | null = null;
    for (let p = MIN_CYCLE_PERIOD; p <= MAX_CYCLE_PERIOD; p += 1) {
      const m = this.matched[p]!;
      if (m === 0) continue;
      if (this.options.repeats * p > this.options.window) continue;
      if (!this.primitive(p)) continue;
      const span = m + p;
      const periods = Math.floor(span / p);
      if (best === null || periods > best.periods) best = { period: p, periods, span };
    }
    if (best === null) return { finding: null, measurement: null };

    const measurement: Measurement = {
      detector: 'tool_batch',
      kind: 'tool_cycle',
      statistic: 'cycle_periods',
      value: best.periods,
      threshold: this.options.repeats,
      direction: 'above',
    };
    const due = best.span % best.period === 0 && best.periods >= this.options.repeats;
    if (!due) return { finding: null, measurement };
    return { finding: this.finding(best.period, best.periods, best.span, measurement), measurement };
  }

  /**
   * The last p batches are a genuine period-p block: not a repeat of one batch (LoopDetector's
   * case) and not a shorter cycle seen twice (reported at its own period instead).
   */
  private primitive(p: number): boolean {
    const block = this.recent.slice(this.recent.length - p);
    if (block.length < p) return false;
    for (let d = 1; d < p; d += 1) {
      if (p % d !== 0) continue;
      let periodic = true;
      for (let i = d; i < p && periodic; i += 1) periodic = same(block[i]!, block[i - d]!);
      if (periodic) return false;
    }
    return true;
  }

  private finding(period: number, periods: number, span: number, measurement: Measurement): Finding {
    const block = this.recent.slice(this.recent.length - period);
    const distinct = new Set(block.map((e) => e.signature)).size;
    return {
      detector: 'tool_batch',
      kind: 'tool_cycle',
      // A count of exact repeats, like a strike: there is no probability to state. What enforce
      // does with it is `tool_batch.cycle_enforce`, not a confidence.
      confidence: null,
      strike: null,
      evidence: {
        period,
        periods,
        span,
        repeats_threshold: this.options.repeats,
        window: this.options.window,
        distinct_batches: distinct,
        answers_known: block.every((e) => e.answersKnown),
        signatures: block.map((e) => displayId(e.signature)).join('>'),
        tools: block.map((e) => e.names.join('+')).join('>'),
      },
      loop: false,
      ambiguous: false,
      crossed: this.enforced(periods, measurement),
      excerpts: [],
    };
  }

  private enforced(periods: number, measurement: Measurement): Measurement[] {
    const at = this.options.enforceAt;
    if (at === undefined || at === null || periods < at) return [measurement];
    return [measurement, { ...measurement, statistic: 'cycle_periods_enforced', threshold: at }];
  }
}

/** Observation for one round, turn-scoped: a cycle never spans a user turn. */
export class CycleObserver {
  private turn: number | null = null;
  constructor(
    private readonly tracker: CycleTracker,
    /** Tools whose batches are transparent like prose (`think`); none by default here. */
    private readonly transparent: ToolMatcher = () => false,
  ) {}

  observe(round: Round, digest: (round: Round) => RoundDigest): RoundObservation {
    if (this.turn !== round.turn) {
      this.tracker.reset();
      this.turn = round.turn;
    }
    // Empty batches are transparent, as for LoopDetector: prose between calls does not break a
    // cycle, and neither does a batch of only transparent tools (it would make A → think → A a cycle).
    if (round.calls.length === 0 || round.calls.every((c) => this.transparent(c.name))) {
      return { findings: [], measurements: [] };
    }
    const { finding, measurement } = this.tracker.push(digest(round));
    return { findings: finding ? [finding] : [], measurements: measurement ? [measurement] : [] };
  }

  breakRun(): void {
    this.tracker.reset();
  }

  snapshot(): unknown {
    return { turn: this.turn, tracker: this.tracker.snapshot() };
  }

  restore(snapshot: unknown): void {
    const o = (snapshot ?? {}) as { turn?: unknown; tracker?: unknown };
    this.turn = typeof o.turn === 'number' ? o.turn : null;
    this.tracker.restore(o.tracker);
  }
}
