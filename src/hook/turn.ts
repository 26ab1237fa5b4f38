// One user turn's detectors and ladders, as the ledger runs them (ledger/build.ts), with their
// state saved between hook calls. The feeding order, the progress marking and the two ladders
// are the ledger's: `analyze` over the same rounds gives the same entries (test/hook pins it).

import { CONFIG_KEYS, parseConfig, type Config } from '../config/registry.js';
import type { ConfigValues } from '../config/spec.js';
import { createOutputRoundDetector } from '../detect/output/index.js';
import { createThinkingRoundDetector } from '../detect/thinking/index.js';
import { createToolBatchDetector, createToolCycleDetector, RoundDigester } from '../detect/tool-batch/index.js';
import { eitherNovel, markToolContext } from '../detect/context.js';
import type { Finding, Novelty, ResumableRoundDetector, RoundDetector } from '../detect/types.js';
import type { LadderSettings } from '../ladder/config.js';
import { type Decision, type EnforceLadderSnapshot, EnforceLadder, TelemetryLadder } from '../ladder/ladder.js';
import { applyTier } from '../ladder/policy.js';
import type { LedgerEntry } from '../ledger/types.js';
import type { Round } from '../model/transcript.js';

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
  private readonly telemetry = new TelemetryLadder();
  readonly enforce: EnforceLadder;
  /** Built (and restored) on first use: a call that closes no round never pays for the windows. */
  private live: ResumableRoundDetector[] | null = null;

  private constructor(
    readonly turn: number,
    readonly scale: number,
    /** The configuration parsed with the tier's thresholds. */
    private readonly config: Readonly<Config>,
    settings: LadderSettings,
    /** The saved state, until the detectors are brought back to life. */
    private saved: unknown[] | null,
  ) {
    this.enforce = new EnforceLadder(settings);
  }

  /** Fresh detectors and ladders for `turn`, their thresholds scaled by the tier. */
  static create(turn: number, scale: number, config: ConfigValues, settings: LadderSettings): TurnGuard {
    return new TurnGuard(turn, scale, parseConfig(applyTier(config, CONFIG_KEYS, scale)), settings, null);
  }

  static restore(snapshot: TurnSnapshot, config: ConfigValues, settings: LadderSettings): TurnGuard {
    const guard = new TurnGuard(snapshot.turn, snapshot.scale, parseConfig(applyTier(config, CONFIG_KEYS, snapshot.scale)), settings, snapshot.detectors);
    guard.enforce.restore(snapshot.enforce);
    return guard;
  }

  /** In feeding order: tool batch, cycle, output, thinking (ledger/detectors.ts). */
  private detectors(): ResumableRoundDetector[] {
    if (this.live) return this.live;
    const digester = new RoundDigester();
    this.live = [
      createToolBatchDetector(this.config.toolBatch, digester),
      createToolCycleDetector(this.config.toolBatch, digester),
      createOutputRoundDetector(this.config.output),
      createThinkingRoundDetector(this.config.thinking),
    ];
    if (this.saved) this.live.forEach((d, i) => d.restore(this.saved![i]));
    this.saved = null;
    return this.live;
  }

  snapshot(): TurnSnapshot {
    return {
      turn: this.turn,
      scale: this.scale,
      detectors: this.live ? this.live.map((d) => d.snapshot()) : (this.saved ?? this.detectors().map((d) => d.snapshot())),
      enforce: this.enforce.snapshot(),
    };
  }

  /**
   * One complete round through every detector and both ladders (ledger/build.ts `round`). The
   * session's own detector (`recurring_failure`, kept across turns by the caller) is fed where the
   * ledger feeds it: after the cycle tracker, before the text detectors.
   */
  observe(round: Round, session: RoundDetector | null = null): RoundOutcome {
    const findings: Finding[] = [];
    let progress = false;
    let novel: Novelty = false;
    const detectors: RoundDetector[] = [...this.detectors()];
    if (session) detectors.splice(2, 0, session);
    for (const detector of detectors) {
      const obs = detector.observe(round);
      findings.push(...obs.findings);
      if (obs.progress) progress = true;
      novel = eitherNovel(novel, obs.novel);
    }
    markToolContext(findings, progress, novel);
    return { findings, telemetry: this.telemetry.decide(findings), enforce: this.enforce.decide(findings, { model: round.model, round: round.index }) };
  }

  /**
   * Seed 000 `check` without counting: would this batch be refused before it runs? Asked of a
   * copy of the tool-batch detector, so a refused call never becomes an occurrence.
   */
  wouldRefuse(round: Round): Finding | null {
    const probe = createToolBatchDetector(this.config.toolBatch);
    probe.restore(this.live ? this.live[0]!.snapshot() : (this.saved?.[0] ?? null));
    return probe.observe(round).findings.find((f) => f.loop) ?? null;
  }
}

/** The ledger entry of one finding, as ledger/build.ts writes it. */
export function entryOf(round: Round, finding: Finding, telemetry: Decision, enforce: Decision): LedgerEntry {
  const entry: LedgerEntry = {
    turn: round.turn,
    round: round.index,
    line: round.line,
    detector: finding.detector,
    kind: finding.kind,
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
  return entry;
}
