// The ledger: a TranscriptSink that replays every round through the detectors and the three
// modes' ladders as the rounds stream in, and keeps only entries and counters (the input may be
// a gigabyte; a round is dropped as soon as it is analyzed).

import { resolveConfig, type ResolvedConfig } from '../config/resolved.js';
import type { ConfigValues } from '../config/spec.js';
import type { Finding, Measurement, RoundDetector } from '../detect/types.js';
import { type ClearPoint, clearedAt, parseClearDetection } from '../ladder/clear.js';
import { type LadderSettings, ladderSettings } from '../ladder/config.js';
import type { JudgePort } from '../ladder/judge.js';
import { createTurnLadders, type TurnLadders } from '../ladder/ladder.js';
import { PolicyResolver } from '../ladder/policy.js';
import { type Pricer, SessionAccount } from '../money/account.js';
import { TimelineRecorder } from './timeline.js';
import type { AgentHalt, Interrupt, RecordedCost, Round, SessionInfo, SessionTimes, TranscriptSink } from '../model/transcript.js';
import { settleInterrupts } from './interrupts.js';
import { RecoveryTracker, recoveryPatterns } from './cut.js';
import { RecentBatches } from './loop-shape.js';
import { MAX_ENTRIES, RunFolder } from './runs.js';
import { decideRound, type DetectorFactories, entryOf, inFeedingOrder, observeRound } from './turn.js';
import type { RoundVerdict, SessionLedger } from './types.js';
import { strongerLevel, type EnforceLevel } from '../vocabulary.js';

export type { DetectorFactories } from './turn.js';

export interface LedgerBuilderOptions {
  /** Parsed (a run's: shared by its files, each tier parsed once for all), or flat, parsed here. */
  config: ConfigValues | ResolvedConfig;
  factories: DetectorFactories;
  /** Attach at most three 80-character excerpts per entry. */
  excerpts?: boolean;
  /** Attach the thresholds each entry crossed. */
  explain?: boolean;
  /** Attach every round's verdict with its near misses. */
  verbose?: boolean;
  /** Attach each session's turn boundaries and spend curve (`timeline`, for the html page). */
  timeline?: boolean;
  onWarning?: (m: string) => void;
  /** The arbitration judge (synchronous: see ladder/verdicts.ts); none answers Indeterminate. */
  judge?: JudgePort;
  /** Prices requests; without one, tokens are counted and every cost is null ("not priced"). */
  pricer?: Pricer | null;
}

/** `times_reason` of a session none of whose records carries a time (some formats record none). */
const NO_TIMES = 'no record of this session carries a time';

/** A statistic within this fraction of its threshold, without crossing it, is a near miss. */
const NEAR_MISS_FRACTION = 0.1;

interface TurnState {
  turn: number;
  /** Created lazily at the turn's first round (the tier reads that round's model); null after a clear. */
  detectors: RoundDetector[] | null;
  ladders: TurnLadders;
}

interface SessionState {
  ledger: SessionLedger;
  isSubagent: boolean;
  turn: TurnState | null;
  /** `scope: replay`: one tool-batch detector walked across the whole session. */
  replayToolBatch: (RoundDetector & { breakRun(): void }) | null;
  /** Lives as long as the session (created at its first round, with that round's tier). */
  sessionDetector: RoundDetector | null;
  clear: ClearPoint | undefined;
  cleared: boolean;
  account: SessionAccount;
  timeline: TimelineRecorder | null;
  interrupts: Interrupt[];
  /** The turn's last batches, for a tool cycle's shape (ledger/loop-shape.ts). */
  recent: RecentBatches;
  /** Splits the rounds a stop prevents into saved and cut (ledger/cut.ts). */
  recovery: RecoveryTracker;
  /** Holds a long run of the same finding as one entry (ledger/runs.ts): memory bounded in rounds. */
  runs: RunFolder;
}

/** Stands in for a detector that failed, for the rest of its turn. */
const SILENT: RoundDetector = { name: 'output', observe: () => ({ findings: [], measurements: [] }) };

export class LedgerBuilder implements TranscriptSink {
  private readonly order: SessionLedger[] = [];
  private readonly live = new Map<string, SessionState>();
  private readonly settings: LadderSettings;
  private readonly policy: PolicyResolver;
  private readonly clearPoints: Map<string, ClearPoint>;
  private readonly replay: boolean;
  /** The configuration, and the same once per tier scale. */
  private readonly config: ResolvedConfig;
  private readonly warn: (m: string) => void;
  private readonly interruptWindow: number;
  private readonly recoveryPatterns: ReturnType<typeof recoveryPatterns>;

  constructor(private readonly options: LedgerBuilderOptions) {
    const seen = new Set<string>();
    // Config warnings are about the configuration, not a session: say each once.
    this.warn = (m) => {
      if (seen.has(m)) return;
      seen.add(m);
      options.onWarning?.(m);
    };
    this.config = resolveConfig(options.config, this.warn);
    const config = this.config.config;
    this.settings = ladderSettings(config.ladder, config.toolBatch);
    this.policy = new PolicyResolver(config.ladder, this.warn);
    this.clearPoints = parseClearDetection(config.ladder.clearDetection, this.warn);
    this.replay = config.run.scope === 'replay';
    this.interruptWindow = config.interrupts.afterRepeatRounds;
    this.recoveryPatterns = recoveryPatterns(config.toolBatch);
  }

  session(info: SessionInfo): void {
    const ledger: SessionLedger = {
      id: info.id,
      path: info.path,
      format: info.format,
      ...(info.agent ? { agent: info.agent } : {}),
      parent: info.parent,
      project: info.project ?? null,
      // Set by times() when a record carries a time; the reason goes with it then.
      started_at: null,
      ended_at: null,
      times_reason: NO_TIMES,
      model: null,
      turns: 0,
      rounds: 0,
      tool_calls: 0,
      // Placeholders, so the JSON lists them before the entries; settled when the session ends.
      usage: undefined,
      cost: undefined,
      entries: [],
      outcome: { enforce: { steers: 0, stops: [], saved: undefined, cut: undefined } },
    };
    if (info.agentType) ledger.agent_type = info.agentType;
    if (info.producer) ledger.producer = info.producer;
    if (info.unrecorded) ledger.unrecorded = [...info.unrecorded];
    if (this.options.verbose) ledger.verdicts = [];
    this.order.push(ledger);
    this.live.set(info.id, {
      ledger,
      isSubagent: info.parent !== null,
      turn: null,
      replayToolBatch: null,
      sessionDetector: null,
      clear: this.clearPoints.get(info.id),
      cleared: false,
      account: new SessionAccount(this.options.pricer ?? null, info.format),
      timeline: this.options.timeline ? new TimelineRecorder() : null,
      interrupts: [],
      recent: new RecentBatches(),
      recovery: new RecoveryTracker(this.recoveryPatterns.transparent, this.recoveryPatterns.reads),
      runs: new RunFolder(),
    });
  }

  turn(sessionId: string, turn: number, _line: number | null = null): void {
    const s = this.state(sessionId);
    if (!s) return;
    s.ledger.turns = Math.max(s.ledger.turns, turn);
    // Turn-owned state ends with its turn: drop it now rather than at the next round.
    if (s.turn && s.turn.turn !== turn) this.endTurn(s);
    // "A user turn ends a run explicitly": the replaying proxy has to be told (seed 000, break_run).
    s.replayToolBatch?.breakRun();
  }

  round(sessionId: string, round: Round): void {
    const s = this.state(sessionId);
    if (!s) return;
    const ledger = s.ledger;
    ledger.rounds += 1;
    ledger.turns = Math.max(ledger.turns, round.turn);
    ledger.tool_calls += round.calls.length;
    if (ledger.model === null && round.model) ledger.model = round.model;

    if (!s.turn || s.turn.turn !== round.turn) {
      this.endTurn(s);
      s.turn = { turn: round.turn, detectors: null, ladders: createTurnLadders(this.settings, this.options.judge) };
      s.recent.reset();
    }
    const t = s.turn;
    s.recent.push(round.calls);
    // Priced before the detectors decide (the entries carry the round's figures); whether a round
    // after a stop was saved or cut is known once its findings are (prevented() below).
    s.account.round(round, round.model ?? ledger.model);
    if (s.timeline) {
      const u = s.account.roundUsage();
      s.timeline.round(round.index, round.turn, u.tokens, u.usd);
    }

    if (!s.cleared && clearedAt(s.clear, round.turn, round.index)) {
      // The escape hatch: detection stops at once and the detector state is dropped with it.
      s.cleared = true;
      this.releaseDetectors(s, t);
      s.replayToolBatch = null;
      s.sessionDetector = null;
    }
    if (s.cleared) {
      s.runs.add(ledger.entries, [], round.index, round.turn);
      if (t.ladders.enforce.stopped) this.prevented(s, round, []);
      this.verdict(ledger, round, 'none', t.ladders.enforce.stopped, []);
      return;
    }

    t.detectors ??= this.createDetectors(s, round.model ?? ledger.model);

    const detectors = t.detectors;
    const { findings, measurements } = observeRound(detectors, round, {
      measure: this.options.verbose === true,
      onFailure: (i, detector, e) => {
        // One detector's bug must not cost the other detectors, sessions and files their ledger
        // ("never crash"); its state is suspect, so it sits out the rest of the turn.
        this.options.onWarning?.(
          `${ledger.path}: session ${ledger.id} round ${round.index}: the ${detector.name} detector failed (${(e as Error)?.message ?? String(e)}); it is skipped for the rest of turn ${round.turn}`,
        );
        detectors.splice(i, 1, SILENT);
        if (detector === s.replayToolBatch) s.replayToolBatch = null;
        if (detector === s.sessionDetector) s.sessionDetector = null;
      },
    });

    const afterStop = t.ladders.enforce.stopped;
    const { telemetry, enforce } = decideRound(t.ladders, findings, round, round.model ?? ledger.model);

    let roundLevel: EnforceLevel = 'none';
    let stopsHere = false;
    const usage = findings.length > 0 ? s.account.roundUsage() : null;
    const added = findings.map((finding, i) =>
      entryOf(round, finding, telemetry[i]!, enforce[i]!, { explain: this.options.explain, excerpts: this.options.excerpts, usage: usage!, recent: s.recent }),
    );
    const wasFull = s.runs.full;
    s.runs.add(ledger.entries, added, round.index, round.turn);
    if (!wasFull && s.runs.full) {
      this.options.onWarning?.(`${ledger.path}: session ${ledger.id}: more than ${MAX_ENTRIES.toLocaleString('en-US')} ledger entries; its findings from round ${round.index.toLocaleString('en-US')} on are counted, not listed (JSON: unlisted)`);
    }
    findings.forEach((finding, i) => {
      const d = enforce[i]!;
      roundLevel = strongerLevel(roundLevel, d.level);
      if (d.level === 'steer') ledger.outcome.enforce.steers += 1;
      if (d.level === 'stop') {
        ledger.outcome.enforce.stops.push({ turn: round.turn, round: round.index });
        s.recovery.stopped(round, finding);
        stopsHere = true;
      }
    });
    if (afterStop) this.prevented(s, round, findings);
    else if (!stopsHere) s.recovery.happened(round);
    this.verdict(ledger, round, roundLevel, afterStop, measurements);
  }

  /** A round after its turn's stop: saved while the agent is still in the loop, cut once it had recovered. */
  private prevented(s: SessionState, round: Round, findings: readonly Finding[]): void {
    const part = s.recovery.prevented(round, findings);
    s.account.prevented(part);
    const stop = s.ledger.outcome.enforce.stops.at(-1);
    if (part === 'cut' && stop !== undefined && stop.recovered_at === undefined) stop.recovered_at = round.index;
  }

  end(sessionId: string): void {
    const s = this.state(sessionId);
    if (!s) return;
    // Nothing more can arrive: release the detectors' windows now.
    this.endTurn(s);
    s.replayToolBatch = null;
    s.sessionDetector = null;
    settleMoney(s);
    this.settleInterrupts(s);
    this.live.delete(sessionId);
  }

  interrupt(sessionId: string, interrupt: Interrupt): void {
    this.state(sessionId)?.interrupts.push(interrupt);
  }

  /** Kept as evidence that a loop happened, beside the findings: never an answer, never a finding of its own. */
  halt(sessionId: string, halt: AgentHalt): void {
    const s = this.state(sessionId);
    if (s) (s.ledger.agent_halts ??= []).push({ turn: halt.turn, round: halt.round, reason: halt.reason });
  }

  private settleInterrupts(s: SessionState): void {
    if (s.interrupts.length === 0) return;
    s.ledger.interrupts = settleInterrupts(s.interrupts, s.ledger.entries, this.interruptWindow);
  }

  times(sessionId: string, times: SessionTimes): void {
    const s = this.state(sessionId);
    if (!s) return;
    s.ledger.started_at = new Date(times.startedMs).toISOString();
    s.ledger.ended_at = new Date(times.endedMs).toISOString();
    delete s.ledger.times_reason;
  }

  recordedCost(sessionId: string, cost: RecordedCost): void {
    const s = this.state(sessionId);
    if (s) s.ledger.recorded_cost = { usd: cost.usd, source: cost.source };
  }

  /** Every session's ledger, in the order the sessions were announced. */
  sessions(): SessionLedger[] {
    for (const s of this.live.values()) {
      settleMoney(s);
      this.settleInterrupts(s);
    }
    return [...this.order];
  }

  private endTurn(s: SessionState): void {
    if (s.turn) this.releaseDetectors(s, s.turn);
    s.turn = null;
  }

  /**
   * The turn's own detectors are done: they hand their buffers to the next turn's. The session's
   * (the replaying tool batch, recurring failures) outlive the turn and are not theirs to give.
   */
  private releaseDetectors(s: SessionState, t: TurnState): void {
    for (const d of t.detectors ?? []) if (d !== s.replayToolBatch && d !== s.sessionDetector) d.release?.();
    t.detectors = null;
  }

  private state(sessionId: string): SessionState | undefined {
    const s = this.live.get(sessionId);
    if (!s) this.warn(`ledger: event for unknown or ended session ${sessionId}; ignored`);
    return s;
  }

  /** Fresh detectors from the tier-scaled config, in feeding order (turn.ts), the session's own lent to the turn. */
  private createDetectors(s: SessionState, model: string | null): RoundDetector[] {
    const config = this.config.atScale(this.policy.tierFor(model, s.isSubagent).scale);
    const f = this.options.factories;
    let toolBatch: RoundDetector;
    if (this.replay) {
      s.replayToolBatch ??= f.toolBatch(config);
      toolBatch = s.replayToolBatch;
    } else {
      toolBatch = f.toolBatch(config);
    }
    if (f.session) s.sessionDetector ??= f.session(config);
    return inFeedingOrder({ toolBatch, toolCycle: f.toolCycle(config), session: s.sessionDetector, output: f.output(config), thinking: f.thinking(config), noProgress: f.noProgress?.(config) ?? null });
  }

  private verdict(
    ledger: SessionLedger,
    round: Round,
    enforce: EnforceLevel,
    afterStop: boolean,
    measurements: readonly Measurement[],
  ): void {
    if (!ledger.verdicts) return;
    const v: RoundVerdict = {
      turn: round.turn,
      round: round.index,
      line: round.line,
      enforce,
      after_stop: afterStop,
      near_misses: measurements.filter(isNearMiss),
    };
    ledger.verdicts.push(v);
  }
}

/** The session's usage, cost, what Enforce would have saved and its unlisted findings, as of the rounds seen so far. */
function settleMoney(s: SessionState): void {
  const unlisted = s.runs.unlisted();
  if (unlisted !== undefined) s.ledger.unlisted = unlisted;
  s.ledger.usage = s.account.usage();
  s.ledger.cost = s.account.cost();
  s.ledger.outcome.enforce.saved = s.account.savedByEnforce();
  s.ledger.outcome.enforce.cut = s.account.cutByEnforce();
  if (s.timeline) s.ledger.timeline = s.timeline.snapshot();
}

/** Did not fire, and within NEAR_MISS_FRACTION of its threshold. */
export function isNearMiss(m: Measurement): boolean {
  // A count moves in whole steps: 10% of a threshold of 5 is less than one repeat, so for
  // integer statistics one step short of the line is a near miss too.
  const wholeSteps = Number.isInteger(m.value) && Number.isInteger(m.threshold);
  const margin = Math.max(Math.abs(m.threshold) * NEAR_MISS_FRACTION, wholeSteps ? 1 : 0);
  if (m.direction === 'above') return m.value < m.threshold && m.value >= m.threshold - margin;
  return m.value > m.threshold && m.value <= m.threshold + margin;
}
