// Seed 000's `LoopDetector`, to the letter: run-length counting of one unbroken run of a batch
// signature, result-aware strikes, the read-only tier and the ceiling on changing answers.

import type { ToolCall } from '../../model/transcript.js';
import { compileObservationPatterns, compileToolPatterns, ObservationCache, type CallClass, type CallClassifier, type ToolMatcher } from './patterns.js';
import { batchSignature, type BatchSignature } from './signature.js';

/** The current unbroken run of one signature. */
interface Run {
  signature: string;
  /** Strike count: restarts at 1 when an occurrence's answers differ from the previous one's. */
  count: number;
  /** Every occurrence of the run, whatever came back: what the ceiling reads. */
  total: number;
  /** The previous recorded occurrence's answers (digested only if compared); null when not yet recorded. */
  answers: (() => string | null) | null;
  /** Every answer of the previous recorded occurrence was an error. */
  failed: boolean;
}

/** What `check` hands back so the answers can be recorded against the batch it counted. */
export interface BatchRecord {
  batch: BatchSignature;
  /** Which occurrence of the run this was, so a stale record (the run moved on) is ignored. */
  total: number;
  count: number;
  /** The threshold `count` was compared against. */
  threshold: number;
  /** The ceiling `total` was compared against; null when the batch is exempt (read-only, free). */
  ceiling: number | null;
  readOnly: boolean;
  /** Why the batch is (or is not) read-only: the first call that is not, or what made them all so. */
  readOnlyReason: string;
  costly: boolean;
  /** Read-only by a shell rule (or was, until its last answer failed): its answers' failure is tracked. */
  readsByCommand: boolean;
}

/** Which case fired. The seed's error deliberately does not distinguish them; the ledger does. */
type LoopKind = 'repeated_batch' | 'ceiling';

interface LoopDetected {
  loop: true;
  kind: LoopKind;
  record: BatchRecord;
}

export type CheckResult = { loop: false; record: BatchRecord } | LoopDetected;

/**
 * `first`: the run's first recorded answers. `repeated`: the answers matched the previous
 * occurrence's (a strike). `changed`: they differed, so the count restarted. `unknown`: this or the
 * previous occurrence's answers are unknown, which never rescues a run. `stale`: the record names
 * a run that has since moved on, so nothing changed.
 */
export type RepeatOutcome = 'first' | 'repeated' | 'changed' | 'unknown' | 'stale';

/** Every call matches an observation pattern. An empty batch is never read-only (it is never checked). */
export function isObservationBatch(calls: readonly ToolCall[], observationTools: readonly string[] | ToolMatcher): boolean {
  if (typeof observationTools === 'function') return calls.length > 0 && calls.every((c) => observationTools(c.name));
  return batchClass(calls, compileObservationPatterns(observationTools)).readOnly;
}

const EMPTY_BATCH: CallClass = { readOnly: false, reason: 'an empty batch' };
const FAILED_READ: CallClass = { readOnly: false, reason: 'a read-only command whose last answer was an error' };

/** A batch's class: read-only when every call is; the reason is the first call's that is not. */
export function batchClass(calls: readonly ToolCall[], classify: CallClassifier): CallClass {
  if (calls.length === 0) return EMPTY_BATCH;
  let last: CallClass = EMPTY_BATCH;
  let byCommand = false;
  for (const c of calls) {
    last = classify(c);
    // The call's own class, not a new object naming it: this runs for every batch of a session.
    if (!last.readOnly) return last;
    if (last.byCommand === true) byCommand = true;
  }
  return byCommand && last.byCommand !== true ? { ...last, byCommand: true } : last;
}

/**
 * A read-only batch that is nevertheless not free to repeat (it changes nothing only here: a
 * paid search, a rate-limited API): any call naming a `costly_tools` pattern withholds the waiver.
 */
export function isCostlyBatch(calls: readonly ToolCall[], costlyTools: readonly string[] | ToolMatcher): boolean {
  const matches = typeof costlyTools === 'function' ? costlyTools : compileToolPatterns(costlyTools);
  return calls.some((c) => matches(c.name));
}

/** LoopDetector state as plain JSON: `answers` null until the run's latest occurrence is recorded. */
export interface LoopDetectorSnapshot {
  run: { signature: string; count: number; total: number; answers: { digest: string | null } | null; failed?: true } | null;
}

export class LoopDetector {
  /** "The current unbroken run, or None until the first batch arrives." */
  private run: Run | null = null;

  private readonly costly: ToolMatcher;
  private readonly observation = new ObservationCache();

  /** Create once per agent run (or per turn: see `breakRun`). */
  constructor(costlyTools: readonly string[] = []) {
    this.costly = compileToolPatterns(costlyTools);
  }

  /**
   * "Count this batch and error if it has now repeated too often." The caller skips empty batches
   * (they are transparent); counting one anyway would break the run, so it is refused here too.
   */
  check(
    calls: readonly ToolCall[],
    maxStrikes: number,
    observationTools: readonly string[],
    maxObservationSteps: number | null,
  ): CheckResult {
    return this.checkBatch(batchSignature(calls), calls, maxStrikes, observationTools, maxObservationSteps);
  }

  /** `check` with the signature already computed (the detector shares it with the answer digest). */
  checkBatch(
    batch: BatchSignature,
    calls: readonly ToolCall[],
    maxStrikes: number,
    observationTools: readonly string[],
    maxObservationSteps: number | null,
  ): CheckResult {
    if (calls.length === 0) throw new Error('LoopDetector.check: empty batches are transparent; skip them');
    let cls = batchClass(calls, this.observation.get(observationTools));
    // A shell read whose identical previous run failed observed nothing: a poll is a read that
    // answers, so its retry keeps max_strikes (issue 28: `cat missing.txt` three times is still
    // refused at the third while `cat job.out | tail -1` polls freely). Tool names keep seed 000's tier.
    const previous = this.run !== null && this.run.signature === batch.signature ? this.run : null;
    if (cls.byCommand === true && previous !== null && previous.failed) cls = FAILED_READ;
    const readOnly = cls.readOnly;
    const costly = readOnly && isCostlyBatch(calls, this.costly);
    // "if every call matches an observation pattern, max_observation_steps is used, falling back
    // to max_strikes when None. Otherwise max_strikes."
    const threshold = readOnly ? (maxObservationSteps ?? maxStrikes) : maxStrikes;
    // Read-only batches are exempt from the ceiling only while the tier is on and they are free
    // to repeat. Everyone else is carried by changing answers only inside the read-only allowance,
    // never tighter than max_strikes; with the tier off that collapses to max_strikes.
    const exempt = readOnly && !costly && maxObservationSteps !== null;
    const ceiling = exempt ? null : Math.max(maxObservationSteps ?? maxStrikes, maxStrikes);

    let run: Run;
    if (previous !== null) {
      // "The count is incremented before the comparison."
      run = previous;
      run.count += 1;
      run.total += 1;
    } else {
      // "A batch with a different signature resets the run to one."
      run = { signature: batch.signature, count: 1, total: 1, answers: null, failed: false };
      this.run = run;
    }
    const record: BatchRecord = {
      batch,
      total: run.total,
      count: run.count,
      threshold,
      ceiling,
      readOnly,
      readOnlyReason: cls.reason,
      costly,
      readsByCommand: cls.byCommand === true || cls === FAILED_READ,
    };
    if (run.count > threshold) return { loop: true, kind: 'repeated_batch', record };
    if (ceiling !== null && run.total > ceiling) return { loop: true, kind: 'ceiling', record };
    return { loop: false, record };
  }

  /**
   * "Record what the batch named by record got back." `answers` is null when the batch was
   * unanswered or only partly answered: "Unknown answers never rescue a run", so only two known,
   * different answers restart the count. A function is accepted in place of the digest so that
   * answers are only digested when there is a previous occurrence to compare them with.
   */
  recordResults(record: BatchRecord, answers: string | null | (() => string | null), failed = false): RepeatOutcome {
    const run = this.run;
    if (run === null || run.signature !== record.batch.signature || run.total !== record.total) return 'stale';
    const current = typeof answers === 'function' ? answers : () => answers;
    const before = run.answers;
    run.answers = current;
    run.failed = failed;
    const previous = before === null ? null : before();
    const now = previous === null ? null : current();
    if (previous !== null && now !== null) {
      if (previous === now) return 'repeated';
      // The answer moved: progress that happens to look alike. This occurrence starts the count over.
      run.count = 1;
      return 'changed';
    }
    return run.total === 1 ? 'first' : 'unknown';
  }

  /**
   * How `answers` compare with the run's previous occurrence, without recording them: what a
   * refused batch got back offline (the proxy never sees it), so its evidence says whether the
   * answers were still changing rather than only that it was refused.
   */
  compareWithPrevious(record: BatchRecord, answers: () => string | null): RepeatOutcome {
    const run = this.run;
    if (run === null || run.signature !== record.batch.signature || run.total !== record.total) return 'stale';
    if (run.answers === null) return run.total === 1 ? 'first' : 'unknown';
    const previous = run.answers();
    const now = previous === null ? null : answers();
    if (previous === null || now === null) return 'unknown';
    return previous === now ? 'repeated' : 'changed';
  }

  /** "Forget the current run, as a user turn does." Resets the allowance with the strike count. */
  breakRun(): void {
    this.run = null;
  }

  /**
   * Plain JSON state. The previous occurrence's answers are digested here (they are otherwise
   * digested only when compared), so a restored run compares exactly as the live one would.
   */
  snapshot(): LoopDetectorSnapshot {
    const run = this.run;
    if (run === null) return { run: null };
    return {
      run: {
        signature: run.signature,
        count: run.count,
        total: run.total,
        answers: run.answers === null ? null : { digest: run.answers() },
        // Only when set, so a state written before 0.3 and one written now read alike.
        ...(run.failed ? { failed: true as const } : {}),
      },
    };
  }

  restore(snapshot: LoopDetectorSnapshot): void {
    const saved = snapshot?.run ?? null;
    if (saved === null) {
      this.run = null;
      return;
    }
    const digest = saved.answers === null ? null : saved.answers.digest;
    this.run = {
      signature: String(saved.signature),
      count: Number(saved.count),
      total: Number(saved.total),
      answers: saved.answers === null ? null : () => digest,
      failed: saved.failed === true,
    };
  }

  /** The current run's counts, for measurements; null before the first batch. */
  get current(): { count: number; total: number } | null {
    return this.run === null ? null : { count: this.run.count, total: this.run.total };
  }
}
