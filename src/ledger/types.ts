// The ledger: SPEC's JSON shape (`schema: "loopledger/1"`). Names here are the public contract:
// add fields freely, never rename or remove. Every report format is a function of this object.

import type { DetectorName, Evidence, Measurement, Strike } from '../detect/types.js';
import type { FormatName } from '../model/transcript.js';

export type EnforceLevel = 'none' | 'noted' | 'steer' | 'stop';
export type TelemetryLevel = 'none' | 'noted';

export interface Intervention {
  off: 'none';
  telemetry: TelemetryLevel;
  enforce: EnforceLevel;
}

/** What an arbitration judge would have been asked (the ledger only records it: offline there is none). */
export interface JudgeConsultation {
  /** Whether the per-turn budget (`judge.max_verdicts_per_turn`) allowed consulting. */
  within_budget: boolean;
  /** Offline the verdict is always Indeterminate and the heuristic verdict stands. */
  verdict: 'indeterminate';
}

export interface LedgerEntry {
  /** 1-based. */
  turn: number;
  /** 1-based, counted through the whole session. */
  round: number;
  /** Source line where the round starts, or null. */
  line: number | null;
  detector: DetectorName;
  kind: string;
  confidence: number | null;
  strike: Strike | null;
  evidence: Evidence;
  intervention: Intervention;
  after_stop: boolean;
  /** Under enforce, the reminder a steer would inject (OutputLoopRecovery / ThinkingLoopRecovery / ToolLoopRecovery). */
  reminder?: string;
  /** Under enforce, why the turn would end (`loop_detected`). */
  finalization_reason?: string;
  judge?: JudgeConsultation;
  /** Thresholds crossed (`--explain`). */
  explain?: Measurement[];
  /** Only with `--excerpts`. */
  excerpts?: string[];
}

export interface RoundVerdict {
  turn: number;
  round: number;
  line: number | null;
  enforce: EnforceLevel;
  after_stop: boolean;
  /** Statistics within 10% of their threshold that did not fire (`--verbose`). */
  near_misses: Measurement[];
}

export interface SessionLedger {
  id: string;
  path: string;
  format: FormatName;
  parent: string | null;
  model: string | null;
  turns: number;
  rounds: number;
  tool_calls: number;
  entries: LedgerEntry[];
  outcome: {
    enforce: {
      steers: number;
      stops: { turn: number; round: number }[];
    };
  };
  /** Every round's verdict: present only with `--verbose`. */
  verdicts?: RoundVerdict[];
}

export interface SkippedLine {
  line: number | null;
  reason: string;
}

export interface InputSummary {
  path: string;
  format: FormatName | null;
  sessions: number;
  lines: number;
  skipped: SkippedLine[];
  /** Set when the file could not be analyzed at all (unreadable, binary, no known format). */
  error?: string;
  /** The path could not be read at all (missing, permission denied, I/O error): exit 2. */
  unreadable?: boolean;
}

export interface LedgerSummary {
  sessions: number;
  rounds: number;
  entries: number;
  skipped_lines: number;
  enforce: {
    sessions_stopped: number;
    sessions_steered: number;
  };
}

export interface LedgerReport {
  schema: 'loopledger/1';
  tool: { name: 'loopledger'; version: string };
  config: Record<string, unknown>;
  inputs: InputSummary[];
  sessions: SessionLedger[];
  summary: LedgerSummary;
}
