// The tool-batch detectors as the ledger drives them: one round at a time, findings out.

import type { ConfigValue, ConfigValues } from '../../config/spec.js';
import type { Round } from '../../model/transcript.js';
import type { Evidence, Finding, Measurement, ResumableRoundDetector, RoundObservation, Strike } from '../types.js';
import {
  CYCLE_ENFORCE_DEFAULT,
  CYCLE_ENFORCE_PERIODS,
  TOOL_BATCH_KEYS,
} from './config.js';
import { ENFORCE_LEVELS, type EnforceLevel } from '../../vocabulary.js';
import { CycleObserver, CycleTracker } from './cycle.js';
import { RoundDigester, type RoundDigest } from './digest.js';
import { displayId } from './signature.js';
import { LoopDetector, type BatchRecord, type LoopDetectorSnapshot, type RepeatOutcome } from './loop-detector.js';
import { compileToolPatterns, type ToolMatcher } from './patterns.js';
import { createRecurringFailureDetector } from './recurring.js';
import { WorkNovelty } from './novelty.js';

export { LoopDetector, isCostlyBatch, isObservationBatch } from './loop-detector.js';
export { answerDigest, answersDigest, batchSignature, callDigest, MAX_ARGUMENT_DEPTH } from './signature.js';
export { TOOL_BATCH_KEYS } from './config.js';
export { RoundDigester } from './digest.js';
export { compileToolPatterns } from './patterns.js';
export { answerFailed } from './failure.js';
export { createRecurringFailureDetector, RecurringFailureTracker } from './recurring.js';

export interface ToolBatchConfig {
  maxStrikes: number;
  /** null: the read-only tier is off. */
  maxObservationSteps: number | null;
  observationTools: readonly string[];
  costlyTools: readonly string[];
  /** A batch made only of these tools is transparent, like prose (SPEC 0.2). */
  transparentTools: readonly string[];
  /** Occurrences of one (tool, error) in a session at which `recurring_failure` is noted; null: off. */
  recurringFailureOccurrences: number | null;
  cycleWindow: number;
  cycleRepeats: number;
  cycleEnforce: EnforceLevel;
  /** Full periods before `cycleEnforce` applies; shorter cycles are noted (the ladder reads the key). */
  cycleEnforcePeriods: number;
}

function spec(key: string) {
  const s = TOOL_BATCH_KEYS.find((k) => k.key === key);
  if (!s) throw new Error(`unknown key ${key}`);
  return s;
}

/**
 * An integer clamped to the key's range; anything else falls back to the default. The loader
 * validates already; this keeps the detector well defined if handed raw values.
 */
function integer(values: ConfigValues, key: string): number | null {
  const s = spec(key);
  const v: ConfigValue | undefined = values[key];
  if (s.nullable && (v === null || (typeof v === 'string' && ['none', 'null'].includes(v.trim().toLowerCase())))) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) return s.default as number | null;
  let n = Math.floor(v);
  if (s.min !== undefined) n = Math.max(s.min, n);
  if (s.max !== undefined) n = Math.min(s.max, n);
  return n;
}

function list(values: ConfigValues, key: string): readonly string[] {
  const v = values[key];
  if (Array.isArray(v)) return (v as readonly string[]).filter((x) => typeof x === 'string');
  if (typeof v === 'string') return v.split(',').map((x) => x.trim()).filter((x) => x.length > 0);
  return spec(key).default as readonly string[];
}

export function readToolBatchConfig(values: ConfigValues): ToolBatchConfig {
  const enforce = values['tool_batch.cycle_enforce'];
  return {
    maxStrikes: integer(values, 'tool_batch.max_strikes') ?? 2,
    maxObservationSteps: integer(values, 'tool_batch.max_observation_steps'),
    observationTools: list(values, 'tool_batch.observation_tools'),
    costlyTools: list(values, 'tool_batch.costly_tools'),
    transparentTools: list(values, 'tool_batch.transparent_tools'),
    recurringFailureOccurrences: integer(values, 'tool_batch.recurring_failure_occurrences'),
    cycleWindow: integer(values, 'tool_batch.cycle_window') ?? 24,
    cycleRepeats: integer(values, 'tool_batch.cycle_repeats') ?? 3,
    cycleEnforce:
      enforce === undefined
        ? CYCLE_ENFORCE_DEFAULT
        : (ENFORCE_LEVELS as readonly unknown[]).includes(enforce)
          ? (enforce as EnforceLevel)
          : 'noted',
    cycleEnforcePeriods: integer(values, 'tool_batch.cycle_enforce_periods') ?? CYCLE_ENFORCE_PERIODS,
  };
}

/** Detector defaults, for tests and callers without a configuration. */
export function defaultToolBatchConfig(): ToolBatchConfig {
  return readToolBatchConfig({});
}

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

function evidenceFor(record: BatchRecord, digest: RoundDigest, outcome: RepeatOutcome | 'refused'): Evidence {
  return {
    signature: displayId(record.batch.signature),
    calls: record.batch.order.length,
    tools: [...new Set(record.batch.names)].join(','),
    read_only: record.readOnly,
    costly: record.costly,
    answers_known: digest.answersKnown,
    answers: outcome,
  };
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
          findings: [finding(result.kind, true, strike, evidenceFor(record, digest, 'refused'), crossed)],
          measurements,
          novel,
        };
      }
      const outcome = detector.recordResults(record, digest.answers);
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
        findings: [finding('repeated_batch', false, strike, evidenceFor(record, digest, outcome), [])],
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

/** `recurring_failure` over rounds, session-scoped: the ledger keeps one across the turns of a session. */
export function createRecurringFailureRoundDetector(config: ToolBatchConfig): ResumableRoundDetector {
  return createRecurringFailureDetector({ occurrences: config.recurringFailureOccurrences });
}
