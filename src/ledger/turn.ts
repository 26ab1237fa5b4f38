// One round of one user turn, as the ledger (build.ts) and the live hook (hook/turn.ts) both run
// it: the detectors fed in one declared order, the round's tool context marked on its text
// findings, the two ladders that act, and the ledger entry of each finding. `analyze` and the
// hook agree round for round because this is the only place any of it is written.

import type { Config } from '../config/registry.js';
import { eitherNovel, markToolContext } from '../detect/context.js';
import type { Finding, Measurement, Novelty, RoundDetector, RoundObservation } from '../detect/types.js';
import { boundedExcerpts } from '../ladder/judge.js';
import type { Decision, TurnLadders } from '../ladder/ladder.js';
import type { Round } from '../model/transcript.js';
import { findingShape, type RecentBatches } from './loop-shape.js';
import { findingCallText } from './call-text.js';
import type { LedgerEntry, RoundUsage } from './types.js';

/** Each gets the configuration parsed for the turn's policy tier (its thresholds scaled). */
export interface DetectorFactories<D extends RoundDetector = RoundDetector> {
  toolBatch(c: Config): D & { breakRun(): void };
  toolCycle(c: Config): D;
  output(c: Config): D;
  thinking(c: Config): D;
  /** `no_progress`: optional so a ledger of fakes may leave it out. */
  noProgress?(c: Config): D;
  /** Session-scoped detectors (`recurring_failure`): one per session, never reset by a user turn. */
  session?(c: Config): D;
}

/** One turn's detectors by role; `session` is the session's own, lent to the turn. */
export interface TurnDetectors<D extends RoundDetector = RoundDetector> {
  toolBatch: D;
  toolCycle: D;
  session: D | null;
  output: D;
  thinking: D;
  noProgress?: D | null;
}

/**
 * The feeding order. The tool-batch detectors come first and the text detectors last, so the
 * round's progress and novelty (which only tool work reports) are known before its text findings
 * are marked; findings are listed, and so laid out in the ledger, in this order. `noProgress`
 * reports neither, so it comes last: a hook state saved before it existed restores by index.
 */
const FEEDING_ORDER = ['toolBatch', 'toolCycle', 'session', 'output', 'thinking', 'noProgress'] as const;

export function inFeedingOrder<D extends RoundDetector>(detectors: TurnDetectors<D>): D[] {
  const out: D[] = [];
  for (const role of FEEDING_ORDER) {
    const d = detectors[role];
    if (d !== null && d !== undefined) out.push(d);
  }
  return out;
}

export interface RoundFindings {
  findings: Finding[];
  /** Every statistic compared this round (only gathered when asked: near misses need them). */
  measurements: Measurement[];
}

export interface ObserveOptions {
  measure?: boolean;
  /**
   * A detector threw. Without a handler the error propagates (the hook fails open on it); the
   * ledger's handler replaces the detector for the rest of its turn and the round goes on.
   */
  onFailure?(index: number, detector: RoundDetector, error: unknown): void;
}

/** Feeds one complete round to `detectors` (in feeding order) and marks its tool context on the findings. */
export function observeRound(detectors: readonly RoundDetector[], round: Round, options: ObserveOptions = {}): RoundFindings {
  const findings: Finding[] = [];
  const measurements: Measurement[] = [];
  let progress = false;
  let novel: Novelty = false;
  for (let i = 0; i < detectors.length; i++) {
    const detector = detectors[i]!;
    let obs: RoundObservation;
    if (options.onFailure) {
      try {
        obs = detector.observe(round);
      } catch (e) {
        options.onFailure(i, detector, e);
        continue;
      }
    } else {
      obs = detector.observe(round);
    }
    findings.push(...obs.findings);
    if (obs.progress) progress = true;
    novel = eitherNovel(novel, obs.novel);
    if (options.measure) measurements.push(...obs.measurements);
  }
  markToolContext(findings, progress, novel);
  return { findings, measurements };
}

export interface RoundDecisions {
  telemetry: Decision[];
  enforce: Decision[];
}

/** What the two acting ladders decide (Off's ladder is never fed: its column is `none` by construction). */
export function decideRound(ladders: Omit<TurnLadders, 'off'>, findings: readonly Finding[], round: Round, model: string | null): RoundDecisions {
  return {
    telemetry: ladders.telemetry.decide(findings),
    enforce: ladders.enforce.decide(findings, { model, round: round.index }),
  };
}

/** What an entry carries beyond the verdict, when the run asked for it. */
export interface EntryExtras {
  /** The thresholds it crossed (`--explain`). */
  explain?: boolean;
  /** At most three 80-character excerpts (`--excerpts`). */
  excerpts?: boolean;
  /** The round's tokens and dollars. */
  usage?: RoundUsage;
  /**
   * The turn's last batches: with them the entry carries its loop shape (ledger/loop-shape.ts).
   * The ledger keeps them; the hook does not (its entries need no shape: nothing groups them).
   */
  recent?: RecentBatches;
}

/** The loop shape, and the literal repeated call beside it when that says more (`Bash(ls -la …/src)`). */
function shapeFields(finding: Finding, calls: Round['calls'], recent: RecentBatches): { shape: string; call?: string } {
  const shape = findingShape(finding, calls, recent);
  const call = findingCallText(finding, calls);
  return call === undefined || call === shape ? { shape } : { shape, call };
}

/** The ledger entry of one finding. */
export function entryOf(round: Round, finding: Finding, telemetry: Decision, enforce: Decision, extras: EntryExtras = {}): LedgerEntry {
  const entry: LedgerEntry = {
    turn: round.turn,
    round: round.index,
    line: round.line,
    detector: finding.detector,
    kind: finding.kind,
    ...(extras.recent ? shapeFields(finding, round.calls, extras.recent) : {}),
    confidence: finding.confidence,
    strike: finding.strike,
    evidence: finding.evidence,
    intervention: {
      off: 'none',
      telemetry: telemetry.level === 'noted' ? 'noted' : 'none',
      enforce: enforce.level,
    },
    after_stop: enforce.afterStop,
  };
  if (enforce.reminder) entry.reminder = enforce.reminder;
  if (enforce.finalizationReason) entry.finalization_reason = enforce.finalizationReason;
  if (enforce.judge) entry.judge = { ...enforce.judge };
  if (extras.explain) entry.explain = finding.crossed;
  if (extras.excerpts) entry.excerpts = boundedExcerpts(finding.excerpts);
  if (extras.usage) entry.round_usage = extras.usage;
  // Only trace inputs carry ids, so every other ledger keeps its exact shape.
  if (round.trace) entry.trace = { trace_id: round.trace.traceId, span_id: round.trace.spanId };
  return entry;
}
