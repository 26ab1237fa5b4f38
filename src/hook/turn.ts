// One user turn's detectors and ladders with their state saved between hook calls. The round
// itself (feeding order, tool context, ladders, entry) is the ledger's own (ledger/turn.ts), so
// `analyze` over the same rounds gives the same entries; only the saving is the hook's.

import type { Config } from '../config/registry.js';
import type { ResolvedConfig } from '../config/resolved.js';
import { createToolBatchDetector } from '../detect/tool-batch/index.js';
import type { Finding, ResumableRoundDetector, RoundDetector } from '../detect/types.js';
import type { LadderSettings } from '../ladder/config.js';
import { createTurnLadders, type Decision, type EnforceLadderSnapshot, type TurnLadders } from '../ladder/ladder.js';
import { createDetectorFactories } from '../ledger/detectors.js';
import { decideRound, inFeedingOrder, observeRound, type TurnDetectors } from '../ledger/turn.js';
import type { Round } from '../model/transcript.js';

export { entryOf } from '../ledger/turn.js';

export interface TurnSnapshot {
  turn: number;
  /** The policy tier's threshold scale the detectors were built with. */
  scale: number;
  detectors: unknown[];
  enforce: EnforceLadderSnapshot;
}

export interface RoundOutcome {
  findings: Finding[];
  telemetry: Decision[];
  enforce: Decision[];
}

export class TurnGuard {
  private readonly ladders: TurnLadders;
  /** Built (and restored) on first use: a call that closes no round never pays for the windows. */
  private live: TurnDetectors<ResumableRoundDetector> | null = null;

  private constructor(
    readonly turn: number,
    readonly scale: number,
    /** The configuration parsed with the tier's thresholds. */
    private readonly config: Readonly<Config>,
    settings: LadderSettings,
    /** The saved state, until the detectors are brought back to life. */
    private saved: unknown[] | null,
  ) {
    // No judge on the hook path (its latency budget): ambiguous evidence keeps its heuristic verdict.
    this.ladders = createTurnLadders(settings);
  }

  get enforce(): TurnLadders['enforce'] {
    return this.ladders.enforce;
  }

  /** The turn was ended by a refusal the saved state no longer holds (read back from the transcript). */
  markEnded(): void {
    if (!this.enforce.stopped) this.enforce.restore({ ...this.enforce.snapshot(), stopped: true });
  }

  /** Fresh detectors and ladders for `turn`, their thresholds scaled by the tier. */
  static create(turn: number, scale: number, config: ResolvedConfig, settings: LadderSettings): TurnGuard {
    return new TurnGuard(turn, scale, config.atScale(scale), settings, null);
  }

  static restore(snapshot: TurnSnapshot, config: ResolvedConfig, settings: LadderSettings): TurnGuard {
    const guard = new TurnGuard(snapshot.turn, snapshot.scale, config.atScale(snapshot.scale), settings, snapshot.detectors);
    guard.enforce.restore(snapshot.enforce);
    return guard;
  }

  /**
   * The ledger's detectors (ledger/detectors.ts) in its feeding order, without the session's own:
   * that one is kept across turns by the caller and lent to each round (`observe`). The saved
   * state lists them in this order, so the order of a state file is the feeding order's.
   */
  private detectors(): TurnDetectors<ResumableRoundDetector> {
    if (this.live) return this.live;
    const f = createDetectorFactories();
    this.live = {
      toolBatch: f.toolBatch(this.config),
      toolCycle: f.toolCycle(this.config),
      session: null,
      output: f.output(this.config),
      thinking: f.thinking(this.config),
      noProgress: f.noProgress(this.config),
    };
    if (this.saved) inFeedingOrder(this.live).forEach((d, i) => d.restore(this.saved![i]));
    this.saved = null;
    return this.live;
  }

  snapshot(): TurnSnapshot {
    return {
      turn: this.turn,
      scale: this.scale,
      detectors: this.live ? inFeedingOrder(this.live).map((d) => d.snapshot()) : (this.saved ?? inFeedingOrder(this.detectors()).map((d) => d.snapshot())),
      enforce: this.enforce.snapshot(),
    };
  }

  /**
   * One complete round through every detector and both ladders, as the ledger runs it. The
   * session's own detector (`recurring_failure`, kept across turns by the caller) takes its place
   * in the feeding order.
   */
  observe(round: Round, session: RoundDetector | null = null): RoundOutcome {
    const { findings } = observeRound(inFeedingOrder<RoundDetector>({ ...this.detectors(), session }), round);
    return { findings, ...decideRound(this.ladders, findings, round, round.model) };
  }

  /**
   * Seed 000 `check` without counting: would this batch be refused before it runs? Asked of a
   * copy of the tool-batch detector, so a refused call never becomes an occurrence.
   */
  wouldRefuse(round: Round): Finding | null {
    const probe = createToolBatchDetector(this.config.toolBatch);
    // The saved state lists the tool-batch detector first (the feeding order's first).
    probe.restore(this.live ? this.live.toolBatch.snapshot() : (this.saved?.[0] ?? null));
    return probe.observe(round).findings.find((f) => f.loop) ?? null;
  }
}
