// The intervention ladder (seed 002), one per turn per mode. Pure: findings in, decisions out.
// A decision is made once per round boundary (`decide` is called once per round with all of that
// round's findings); one finding drives it and the rest of the round are only noted.

import { DETECTOR_NAMES, kindInfo } from '../detect/kinds.js';
import type { DetectorName, Finding } from '../detect/types.js';
import { LEVEL_RANK as RANK, type EnforceLevel, type Mode } from '../vocabulary.js';
import type { LadderSettings } from './config.js';
import { boundedExcerpts, type JudgePort, type JudgeUnusable, type JudgeVerdict, NO_JUDGE, usableConfidence } from './judge.js';

type ReminderKind = 'OutputLoopRecovery' | 'ThinkingLoopRecovery' | 'ToolLoopRecovery';

const LOOP_DETECTED = 'loop_detected';

export interface JudgeRecord {
  /** A judge answered this evidence (now or through its cache); false when it was not asked. */
  consulted: boolean;
  /** The effective verdict: `loop`/`progress` only at or above `judge.verdict_confidence_min`. */
  verdict: JudgeVerdict;
  /** The judge's own confidence; null when it gave none usable (or was not asked). */
  confidence: number | null;
  within_budget: boolean;
  /** Why the verdict is Indeterminate. */
  unusable?: JudgeUnusable;
  /** The round whose confident verdict covers this evidence (`judge.carry_verdicts`); nothing was asked. */
  carried_from?: number;
}

/** What the ledger knows about the round being decided. */
export interface RoundContext {
  /** The monitored model (the round's, else the session's): the judge must not be the same. */
  model?: string | null;
  /** Session-wide round index, for `carried_from`. */
  round?: number;
}

/** A confident verdict of this turn, kept for `judge.carry_verdicts`. */
interface Ruling {
  verdict: 'loop' | 'progress';
  /** The finding's confidence the verdict was given on. */
  evidence: number;
  confidence: number | null;
  round: number | undefined;
}

/** What one mode would have done about one finding. */
export interface Decision {
  level: EnforceLevel;
  /** The turn already ended with a stop before this round. */
  afterStop: boolean;
  reminder?: ReminderKind;
  finalizationReason?: typeof LOOP_DETECTED;
  judge?: JudgeRecord;
}

interface Ladder {
  readonly mode: Mode;
  /** The round boundary: one decision per finding, in order. */
  decide(findings: readonly Finding[], context?: RoundContext): Decision[];
  readonly stopped: boolean;
}

/** Telemetry: report only, `noted` wherever a detector fired. */
export class TelemetryLadder implements Ladder {
  readonly mode = 'telemetry' as const;
  readonly stopped = false;
  decide(findings: readonly Finding[]): Decision[] {
    return findings.map(() => ({ level: 'noted', afterStop: false }));
  }
}

function reminderKindFor(detector: DetectorName): ReminderKind {
  if (detector === 'output') return 'OutputLoopRecovery';
  if (detector === 'thinking') return 'ThinkingLoopRecovery';
  return 'ToolLoopRecovery';
}

/**
 * The steer copy: it cites the signal and the root cause to look for, never the repeated text
 * (seed 002: "Steer copy cites the signal and never echoes the repeated text").
 */
export function reminderText(finding: Pick<Finding, 'detector' | 'kind' | 'confidence'>): string {
  const where =
    finding.detector === 'output'
      ? 'your visible output'
      : finding.detector === 'thinking'
        ? 'your reasoning'
        : 'your tool calls';
  const conf = finding.confidence === null ? '' : `, confidence ${finding.confidence.toFixed(2)}`;
  return (
    `Loop detection: ${where} shows a repeating pattern (${finding.kind}${conf}). ` +
    'Do not continue it. State what you are trying to achieve and what is blocking it, ' +
    'then take a different next step or give your final answer.'
  );
}

interface Candidate {
  index: number;
  finding: Finding;
  level: EnforceLevel;
  /** The L2 stop this finding would need a confident judge for. */
  judgeCanStop: boolean;
}

export interface EnforceLadderSnapshot {
  outstanding: DetectorName[];
  unheeded: number;
  verdictsUsed: number;
  stopped: boolean;
  rulings?: [string, Ruling][];
  awaiting?: boolean;
}

/**
 * Enforce: L0 `noted`, L1 `steer`, L2 `stop` after `maxUnheededSteers` unheeded steers.
 *
 * Offline, a steer is unheeded when a later round of the same turn goes on showing its signal:
 * a finding of the same detector that is itself steer-worthy. Unheeded steers are counted across
 * the turn (the seed's attempt counter is the turn's, not a kind's).
 */
export class EnforceLadder implements Ladder {
  readonly mode = 'enforce' as const;
  private outstanding: DetectorName[] = [];
  private unheeded = 0;
  private verdictsUsed = 0;
  private stoppedAt = false;
  private readonly rulings = new Map<string, Ruling>();
  /** An arbitration of this turn is pending (its answer not in hand): later ones are speculative. */
  private awaiting = false;

  constructor(
    private readonly settings: LadderSettings,
    private readonly judge: JudgePort = NO_JUDGE,
  ) {}

  get stopped(): boolean {
    return this.stoppedAt;
  }

  get unheededSteers(): number {
    return this.unheeded;
  }

  get verdictsConsulted(): number {
    return this.verdictsUsed;
  }

  /** Plain JSON state (the live hook keeps the turn's ladder between calls). */
  snapshot(): EnforceLadderSnapshot {
    return {
      outstanding: [...this.outstanding],
      unheeded: this.unheeded,
      verdictsUsed: this.verdictsUsed,
      stopped: this.stoppedAt,
      rulings: [...this.rulings.entries()],
      awaiting: this.awaiting,
    };
  }

  restore(snapshot: EnforceLadderSnapshot): void {
    this.outstanding = (Array.isArray(snapshot?.outstanding) ? snapshot.outstanding : []).filter((d) => DETECTOR_NAMES.includes(d));
    this.unheeded = Number.isInteger(snapshot?.unheeded) ? snapshot.unheeded : 0;
    this.verdictsUsed = Number.isInteger(snapshot?.verdictsUsed) ? snapshot.verdictsUsed : 0;
    this.stoppedAt = snapshot?.stopped === true;
    this.rulings.clear();
    for (const [signal, ruling] of Array.isArray(snapshot?.rulings) ? snapshot.rulings : []) this.rulings.set(signal, ruling);
    this.awaiting = snapshot?.awaiting === true;
  }

  decide(findings: readonly Finding[], context: RoundContext = {}): Decision[] {
    // "A stop ends the turn": later rounds would not have happened.
    if (this.stoppedAt) return findings.map(() => ({ level: 'none', afterStop: true }));
    if (findings.length === 0) return [];

    this.markUnheeded(findings);

    const candidates = findings.map((finding, index) => this.candidate(finding, index));
    const driver = pickDriver(candidates);
    const decisions: Decision[] = findings.map(() => ({ level: 'noted', afterStop: false }));
    const decision: Decision = { level: driver.level, afterStop: false };

    const f = driver.finding;
    if (f.ambiguous && RANK[driver.level] >= RANK.steer && this.settings.judge.enabled) {
      const record = this.consult(f, context);
      decision.judge = record;
      // Seed 002: a confident loop makes the evidence strong (stop-eligible, so it stops at L2);
      // a confident progress leaves it noted. Anything else: the heuristic verdict stands.
      if (record.verdict === 'loop' && driver.judgeCanStop) decision.level = 'stop';
      else if (record.verdict === 'progress') decision.level = 'noted';
    }

    if (decision.level === 'steer') {
      decision.reminder = reminderKindFor(f.detector);
      this.outstanding.push(f.detector);
    } else if (decision.level === 'stop') {
      decision.finalizationReason = LOOP_DETECTED;
      this.stoppedAt = true;
    }
    decisions[driver.index] = decision;
    return decisions;
  }

  /** Steers whose signal shows again in this (later) round of the turn were not heeded. */
  private markUnheeded(findings: readonly Finding[]): void {
    if (this.outstanding.length === 0) return;
    const showing = new Set(findings.filter((f) => this.steerWorthy(f)).map((f) => f.detector));
    const still: DetectorName[] = [];
    for (const d of this.outstanding) {
      if (showing.has(d)) this.unheeded += 1;
      else still.push(d);
    }
    this.outstanding = still;
  }

  /** Confidence at or above the steer threshold; no confidence at all is the detector's own say-so. */
  private steerWorthy(f: Finding): boolean {
    return f.confidence === null || f.confidence >= this.settings.steerConfidenceMin;
  }

  private candidate(finding: Finding, index: number): Candidate {
    const s = this.settings;
    if (finding.detector === 'tool_batch') {
      if (finding.kind === 'tool_cycle') return { index, finding, level: cycleLevel(finding, s), judgeCanStop: false };
      // SPEC 0.2: a session-wide tally is never a verdict (seed 000), so a recurring failure is only noted.
      if (kindInfo(finding.detector, finding.kind)?.cap === 'noted') return { index, finding, level: 'noted', judgeCanStop: false };
      // SPEC 0.3: no progress steers, and stops only once its steers went unheeded. A stretch of
      // one batch answered alike is seed 000's run to stop (its read-only allowance stands): steer.
      // SPEC 0.4: repeated_failure and same_error steer first, and stop the same way.
      if (finding.kind === 'repeated_failure' || finding.kind === 'same_error') {
        return { index, finding, level: this.unheeded >= s.maxUnheededSteers ? 'stop' : 'steer', judgeCanStop: false };
      }
      if (finding.kind === 'no_progress') {
        const mayStop = finding.evidence.same_answers !== true && this.unheeded >= s.maxUnheededSteers;
        return { index, finding, level: mayStop ? 'stop' : 'steer', judgeCanStop: false };
      }
      // Seed 000's LoopDetected: past its threshold the batch is refused; the turn ends. With
      // `on_refusal = steer` the refusal steers, and stops once its steers went unheeded.
      if (finding.loop) {
        const steerFirst = s.onRefusal === 'steer' && this.unheeded < s.maxUnheededSteers;
        return { index, finding, level: steerFirst ? 'steer' : 'stop', judgeCanStop: false };
      }
      // A strike below the threshold is a count, not yet a loop.
      return { index, finding, level: 'noted', judgeCanStop: false };
    }
    if (!this.steerWorthy(finding)) return { index, finding, level: 'noted', judgeCanStop: false };
    // Text repeated while the tool answers progress is the seed's "progress that happens to look
    // alike": noted for the record, never steered (the tool-batch ceiling still bounds the poll).
    if (finding.progress && s.progressNotesOnly) return { index, finding, level: 'noted', judgeCanStop: false };
    // Issue 28: sentences opened by one connector ("Then …", "Let me … Then …") between varied,
    // answered tool calls are a plan or narration of the work, not stalling: noted. A run made
    // only of connectors ("wait, wait, wait") and openings without that work still steer.
    // Issue 54: the same holds for reasoning, one sentence a round ("Now let me …") about different, successful work.
    // Openings carried over from earlier rounds (this round's own text holds too few to cross the
    // bar) are that narration too, where the round calls nothing (its closing summary) or repeats:
    // a loop in the work between is the tool-batch detectors' to steer.
    if (finding.kind === 'connector_stalling' && finding.evidence.pattern === 'openings' && (finding.variedWork || finding.evidence.carried === true)) {
      return { index, finding, level: 'noted', judgeCanStop: false };
    }
    // Issue 54 item 5: "connector and opening patterns in reasoning beside varied, answered tool
    // calls never steer on their own", a run of connectors included ("wait" three times running in a long
    // block, then new files read). In visible text, or in reasoning without that work, a run still steers.
    if (finding.kind === 'connector_stalling' && finding.detector === 'thinking' && finding.variedWork) {
      return { index, finding, level: 'noted', judgeCanStop: false };
    }
    // Issue 54 item 5: reasoning that restates its plan within one response (Gemini CLI's thought
    // summaries) beside a new call answered anew is noted, not steered. The same reasoning again in
    // the next response still steers: the tools' answers may be new and say nothing new.
    if (finding.kind === 'thinking_stagnation' && finding.variedWork && finding.evidence.within_round === true) {
      return { index, finding, level: 'noted', judgeCanStop: false };
    }
    const atL2 = this.unheeded >= s.maxUnheededSteers;
    if (!atL2) return { index, finding, level: 'steer', judgeCanStop: false };
    // Beside varied, answered tool work only text that is itself a verbatim loop filling its
    // round may end the turn on heuristics: a phrase the agent keeps saying while it works is no
    // reason to. A confident judge, reading the evidence, still may (as for capped kinds).
    if (finding.variedWork && s.variedWorkSteersOnly && !finding.dominant) {
      return { index, finding, level: 'steer', judgeCanStop: true };
    }
    const heuristicStop =
      !s.cappedKinds.has(finding.kind) &&
      !finding.ambiguous &&
      finding.confidence !== null &&
      finding.confidence >= s.stopConfidenceMin;
    // Past L2 a capped, weak or ambiguous finding keeps steering: only a confident judge may stop it.
    return { index, finding, level: heuristicStop ? 'stop' : 'steer', judgeCanStop: !heuristicStop };
  }

  private consult(f: Finding, context: RoundContext): JudgeRecord {
    const s = this.settings.judge;
    const signal = `${f.detector}/${f.kind}`;
    const ruling = s.carryVerdicts ? this.rulings.get(signal) : undefined;
    if (ruling && f.confidence !== null && (ruling.verdict === 'progress' ? f.confidence <= ruling.evidence : f.confidence >= ruling.evidence)) {
      // The judge already ruled on this signal this turn, on evidence at least as telling.
      const carried: JudgeRecord = { consulted: false, verdict: ruling.verdict, confidence: ruling.confidence, within_budget: true };
      if (ruling.round !== undefined) carried.carried_from = ruling.round;
      return carried;
    }
    if (this.verdictsUsed >= s.maxVerdictsPerTurn) {
      return { consulted: false, verdict: 'indeterminate', confidence: null, within_budget: false, unusable: 'over_budget' };
    }
    this.verdictsUsed += 1;
    let answer: ReturnType<JudgePort['arbitrate']> | undefined;
    try {
      answer = this.judge.arbitrate({
        detector: f.detector,
        kind: f.kind,
        confidence: f.confidence,
        evidence: f.evidence,
        excerpts: boundedExcerpts(f.excerpts),
        model: context.model ?? null,
        speculative: this.awaiting,
      });
    } catch {
      // "every unusable path returns Indeterminate so ... the judge can never break the L1 path"
      answer = undefined;
    }
    if (!answer) return { consulted: false, verdict: 'indeterminate', confidence: null, within_budget: true, unusable: 'not_asked' };
    if (answer.unusable === 'pending') this.awaiting = true;
    const answered = answer.verdict === 'loop' || answer.verdict === 'progress';
    const confidence = usableConfidence(answer.confidence) ? answer.confidence : null;
    const record: JudgeRecord = {
      consulted: answer.consulted ?? answered,
      verdict: 'indeterminate',
      confidence,
      within_budget: true,
    };
    if (!answered) record.unusable = answer.unusable ?? 'not_asked';
    // "an answer without usable confidence never escalates"
    else if (confidence === null) record.unusable = 'no_confidence';
    else if (confidence < s.verdictConfidenceMin) record.unusable = 'below_gate';
    else {
      record.verdict = answer.verdict as 'loop' | 'progress';
      if (f.confidence !== null) {
        this.rulings.set(signal, { verdict: record.verdict, evidence: f.confidence, confidence, round: context.round });
      }
    }
    return record;
  }
}

/**
 * `tool_batch.cycle_enforce` applies to a cycle once it has completed `cycle_enforce_periods` full
 * periods; a shorter one (reported from `cycle_repeats`) is noted, so a level above `noted` never
 * reaches the three-period cycles users and other detectors disagree about.
 */
function cycleLevel(finding: Finding, s: LadderSettings): Decision['level'] {
  if (RANK[s.cycleEnforce] <= RANK.noted) return s.cycleEnforce;
  const periods = finding.evidence.periods;
  return typeof periods === 'number' && periods < s.cycleEnforcePeriods ? 'noted' : s.cycleEnforce;
}

/**
 * The strongest finding drives the round: highest level, then firm over ambiguous evidence, then
 * higher confidence (none counts as lowest), then the feeding order (tool batch, cycle, output,
 * thinking) so ties are deterministic.
 */
function pickDriver(candidates: readonly Candidate[]): Candidate {
  let best = candidates[0]!;
  for (const c of candidates.slice(1)) {
    const byLevel = RANK[c.level] - RANK[best.level];
    if (byLevel !== 0) {
      if (byLevel > 0) best = c;
      continue;
    }
    if (c.finding.ambiguous !== best.finding.ambiguous) {
      if (!c.finding.ambiguous) best = c;
      continue;
    }
    if ((c.finding.confidence ?? -1) > (best.finding.confidence ?? -1)) best = c;
  }
  return best;
}

/** Off has no ladder: nothing runs, and its column is `none` wherever the ledger writes one. */
export interface TurnLadders {
  telemetry: TelemetryLadder;
  enforce: EnforceLadder;
}

/** Fresh ladders for one turn: attempt counters and the judge budget never leak into the next. */
export function createTurnLadders(settings: LadderSettings, judge: JudgePort = NO_JUDGE): TurnLadders {
  return { telemetry: new TelemetryLadder(), enforce: new EnforceLadder(settings, judge) };
}
