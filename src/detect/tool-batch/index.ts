// The tool-batch detectors as the ledger drives them: one round at a time, findings out.

import type { Round } from '../../model/transcript.js';
import type { Evidence, Finding, Measurement, ResumableRoundDetector, RoundObservation, Strike } from '../types.js';
import type { ToolBatchConfig } from './config.js';
import { CycleObserver, CycleTracker } from './cycle.js';
import { RoundDigester, type RoundDigest } from './digest.js';
import { displayId } from './signature.js';
import { LoopDetector, type BatchRecord, type LoopDetectorSnapshot, type RepeatOutcome } from './loop-detector.js';
import { compileToolPatterns, type ToolMatcher } from './patterns.js';
import { createRecurringFailureDetector } from './recurring.js';
import { WorkNovelty } from './novelty.js';
import { answerFailed } from './failure.js';
import { createNoProgressDetector } from './no-progress.js';
import { createFailureShapesDetector } from './failure-shapes.js';

export { LoopDetector, isCostlyBatch, isObservationBatch } from './loop-detector.js';
export { answerDigest, answersDigest, batchSignature, callDigest, MAX_ARGUMENT_DEPTH } from './signature.js';
export { TOOL_BATCH_KEYS } from './config.js';
export type { ToolBatchConfig } from './config.js';
export { RoundDigester } from './digest.js';
export { compileToolPatterns } from './patterns.js';
export { answerFailed } from './failure.js';
export { createRecurringFailureDetector, RecurringFailureTracker } from './recurring.js';

export interface ToolBatchDetector extends ResumableRoundDetector {
  /** A user turn ends the run (seed 000 `break_run`). */
  breakRun(): void;
}

function measurementsFor(record: BatchRecord, count: number, total: number): Measurement[] {
  // A Measurement fires at value >= threshold; LoopDetector errors at count > threshold, so the
  // stated threshold is the first count (or total) that errors.
  const out: Measurement[] = [
    {
      detector: 'tool_batch',
      kind: 'repeated_batch',
      statistic: 'count',
      value: count,
      threshold: record.threshold + 1,
      direction: 'above',
    },
  ];
  if (record.ceiling !== null) {
    out.push({
      detector: 'tool_batch',
      kind: 'ceiling',
      statistic: 'total',
      value: total,
      threshold: record.ceiling + 1,
      direction: 'above',
    });
  }
  return out;
}

function evidenceFor(record: BatchRecord, digest: RoundDigest, outcome: RepeatOutcome, refused: boolean): Evidence {
  const evidence: Evidence = {
    signature: displayId(record.batch.signature),
    calls: record.batch.order.length,
    tools: [...new Set(record.batch.names)].join(','),
    read_only: record.readOnly,
    read_only_reason: record.readOnlyReason,
    costly: record.costly,
    answers_known: digest.answersKnown,
    answers: outcome,
  };
  if (refused) evidence.refused = true;
  return evidence;
}

function finding(
  kind: 'repeated_batch' | 'ceiling',
  loop: boolean,
  strike: Strike,
  evidence: Evidence,
  crossed: Measurement[],
): Finding {
  return {
    detector: 'tool_batch',
    kind,
    // Strikes are counts against an exact threshold, not estimates: no confidence to state.
    confidence: null,
    strike,
    evidence,
    loop,
    ambiguous: false,
    crossed,
    excerpts: [],
  };
}

/**
 * A batch made only of transparent tools (`think`): the model thinking aloud through a tool. SPEC
 * 0.2 gives it seed 000's reason for prose: "every call is answered before the next one and a run
 * those could break would never reach two".
 */
function isTransparentBatch(calls: Round['calls'], transparent: ToolMatcher): boolean {
  if (calls.length === 0) return true;
  for (const c of calls) if (!transparent(c.name)) return false;
  return true;
}

/**
 * Seed 000's LoopDetector over rounds. Offline the transcript is complete, so, as the seed's proxy
 * does, each round is checked and its answers recorded together; a refused batch is not recorded
 * (the proxy never gets a record to record against). Empty batches are skipped: transparent, and
 * so are batches of only `transparent_tools`. The run also breaks when the round's turn changes,
 * since both scopes end runs at user turns.
 */
export function createToolBatchDetector(config: ToolBatchConfig, digester = new RoundDigester()): ToolBatchDetector {
  const detector = new LoopDetector(config.costlyTools);
  const transparent = compileToolPatterns(config.transparentTools);
  const novelty = new WorkNovelty();
  let turn: number | null = null;
  return {
    name: 'tool_batch',
    breakRun(): void {
      detector.breakRun();
    },
    snapshot(): unknown {
      return { turn, loop: detector.snapshot(), novelty: novelty.snapshot() };
    },
    restore(state: unknown): void {
      const o = (state ?? {}) as { turn?: unknown; loop?: LoopDetectorSnapshot; novelty?: unknown };
      turn = typeof o.turn === 'number' ? o.turn : null;
      detector.restore(o.loop ?? { run: null });
      novelty.restore(o.novelty);
    },
    observe(round: Round): RoundObservation {
      if (turn !== null && turn !== round.turn) {
        detector.breakRun();
        novelty.reset();
      }
      turn = round.turn;
      if (isTransparentBatch(round.calls, transparent)) return { findings: [], measurements: [] };
      // Polls answered "still running, no output yet" are waits, not repeats (issue 54): they
      // neither extend nor break the run.
      if (round.answers !== null && round.answers.length > 0 && round.answers.every((a) => a.waiting === true)) return { findings: [], measurements: [] };
      const digest = digester.digest(round);
      const novel = novelty.observe(digest);
      const result = detector.checkBatch(
        digest.batch,
        round.calls,
        config.maxStrikes,
        config.observationTools,
        config.maxObservationSteps,
      );
      const record = result.record;
      if (result.loop) {
        const measurements = measurementsFor(record, record.count, record.total);
        const strike: Strike = {
          count: record.count,
          threshold: record.threshold,
          total: record.total,
          ceiling: record.ceiling,
          read_only: record.readOnly,
        };
        const crossed = measurements.filter((m) => m.value >= m.threshold);
        return {
          findings: [finding(result.kind, true, strike, evidenceFor(record, digest, detector.compareWithPrevious(record, digest.answers), true), crossed)],
          measurements,
          novel,
        };
      }
      // Every answer a failure, by the same test no_progress and recurring_failure use; only
      // shell reads need it (LoopDetector's failed reads), so other batches pay nothing.
      const failed = record.readsByCommand && round.answers !== null && round.answers.length > 0 && round.answers.every(answerFailed);
      const outcome = detector.recordResults(record, digest.answers, failed);
      const now = detector.current ?? { count: record.count, total: record.total };
      const measurements = measurementsFor(record, now.count, now.total);
      // A strike: an occurrence whose answers matched (or could not be told from) the previous one's.
      const progress = outcome === 'changed';
      if (now.count < 2) return { findings: [], measurements, progress, novel };
      const strike: Strike = {
        count: now.count,
        threshold: record.threshold,
        total: now.total,
        ceiling: record.ceiling,
        read_only: record.readOnly,
      };
      return {
        findings: [finding('repeated_batch', false, strike, evidenceFor(record, digest, outcome, false), [])],
        measurements,
        progress,
        novel,
      };
    },
  };
}

/** `tool_cycle` over rounds, within a turn. */
export function createToolCycleDetector(
  config: ToolBatchConfig,
  digester = new RoundDigester(),
): ResumableRoundDetector & { breakRun(): void } {
  const observer = new CycleObserver(
    new CycleTracker({
      window: config.cycleWindow,
      repeats: config.cycleRepeats,
      enforceAt: config.cycleEnforce === 'steer' || config.cycleEnforce === 'stop' ? config.cycleEnforcePeriods : null,
    }),
    compileToolPatterns(config.transparentTools),
  );
  return {
    name: 'tool_batch',
    breakRun(): void {
      observer.breakRun();
    },
    snapshot: () => observer.snapshot(),
    restore: (state: unknown) => observer.restore(state),
    observe(round: Round): RoundObservation {
      return observer.observe(round, (r) => digester.digest(r));
    },
  };
}

/** The no_progress read list per configuration, one array per config so its compile is reused (patterns.ts). */
const readToolsByConfig = new WeakMap<ToolBatchConfig, readonly string[]>();

/**
 * What no_progress counts as reads: observation_tools and no_progress_read_tools, as one array per
 * configuration. Patterns are compiled once per array object, so every caller takes this one: a
 * fresh copy per file recompiled the rules 2,000 times on a store of 2,000 files.
 */
export function noProgressReadTools(config: ToolBatchConfig): readonly string[] {
  let readTools = readToolsByConfig.get(config);
  if (readTools === undefined) {
    readTools = [...config.observationTools, ...config.noProgressReadTools];
    readToolsByConfig.set(config, readTools);
  }
  return readTools;
}

/**
 * `no_progress`, `repeated_failure` and `same_error` over rounds, within a turn: the failures read
 * over a window whatever comes between, with observation_tools and no_progress_read_tools as reads.
 */
export function createNoProgressRoundDetector(config: ToolBatchConfig): ResumableRoundDetector {
  const readTools = noProgressReadTools(config);
  const noProgress = createNoProgressDetector({
    window: config.noProgressWindow,
    staleRounds: config.noProgressStaleRounds,
    readTools,
    transparentTools: config.transparentTools,
  });
  const shapes = createFailureShapesDetector({
    window: config.noProgressWindow,
    repeatedFailureOccurrences: config.repeatedFailureOccurrences,
    sameErrorRounds: config.sameErrorRounds,
    readTools,
    transparentTools: config.transparentTools,
  });
  return {
    name: 'tool_batch',
    observe(round: Round): RoundObservation {
      const a = shapes.observe(round);
      const b = noProgress.observe(round);
      return { findings: [...a.findings, ...b.findings], measurements: [...a.measurements, ...b.measurements] };
    },
    snapshot: () => ({ noProgress: noProgress.snapshot(), shapes: shapes.snapshot() }),
    restore(state: unknown): void {
      const o = (state ?? {}) as { noProgress?: unknown; shapes?: unknown };
      // A snapshot of an older build is no_progress's own state.
      noProgress.restore(o.noProgress === undefined && o.shapes === undefined ? state : o.noProgress);
      shapes.restore(o.shapes);
    },
  };
}

/** `recurring_failure` over rounds, session-scoped: the ledger keeps one across the turns of a session. */
export function createRecurringFailureRoundDetector(config: ToolBatchConfig): ResumableRoundDetector {
  return createRecurringFailureDetector({ occurrences: config.recurringFailureOccurrences });
}
