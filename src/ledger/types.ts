// The ledger: SPEC's JSON shape (`schema: "loopledger/1"`). Names here are the public contract:
// add fields freely, never rename or remove. Every report format is a function of this object.

import type { DetectorName, Evidence, Measurement, Strike } from '../detect/types.js';

/** A measurement as a ledger records it: its kind a plain string, since a ledger may come from a file (merge). */
export type RecordedMeasurement = Omit<Measurement, 'kind'> & { kind: string };
import type { SessionTimeline } from './timeline.js';
import type { PeriodUnit } from './calendar.js';
import type { FormatName } from '../model/transcript.js';
import type { InputSummary, NotTranscript } from '../formats/input.js';
import type { SkippedLine } from '../read/skipped.js';
import type { EnforceSaved, RoundUsage, SessionCost, SessionUsage } from '../money/usage.js';
import type { EnforceLevel } from '../vocabulary.js';

// Produced by reading (formats/input.ts, read/skipped.ts); listed in the ledger as `inputs`, and
// part of the library's public types from here as before.
export type { InputSummary, NotTranscript, SkippedLine };

// Counted by money/ (account.ts); part of each session's ledger and of the public types, as before.
export type { EnforceSaved, RoundUsage, SessionCost, SessionUsage };

export type { EnforceLevel } from '../vocabulary.js';
/** Telemetry only notes (seed 002). */
export type TelemetryLevel = Extract<EnforceLevel, 'none' | 'noted'>;

export interface Intervention {
  off: 'none';
  telemetry: TelemetryLevel;
  enforce: EnforceLevel;
}

/** The arbitration judge's part in an entry (SPEC "The judge"). */
export interface JudgeConsultation {
  /** A judge answered this evidence (now or through its cache); false when it was not asked. */
  consulted: boolean;
  /** `loop` / `progress` only at or above `judge.verdict_confidence_min`; otherwise the heuristic verdict stands. */
  verdict: 'loop' | 'progress' | 'indeterminate';
  /** The judge's own confidence, or null. */
  confidence: number | null;
  /** Whether the per-turn budget (`judge.max_verdicts_per_turn`) allowed consulting. */
  within_budget: boolean;
  /** Why the verdict is Indeterminate: no_judge, over_budget, self_arbitration, timeout, http_429, unparsable, below_gate, … */
  unusable?: string;
  /** The round of this turn whose confident verdict covers this evidence (`judge.carry_verdicts`). */
  carried_from?: number;
}

/** What the judge cost this run: requests actually sent, and their tokens as the endpoint reported them. */
export interface JudgeUsage {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** Distinct pieces of evidence answered from the `judge.cache` file (no request). */
  cached: number;
  /** Requests that gave no usable answer (timeout, HTTP error, unparsable reply). */
  failed: number;
  /**
   * The list price of those requests at `judge.model`'s prices (present once a request was sent
   * and prices were on); null, with `usd_reason`, when the model has no price.
   */
  usd?: number | null;
  usd_reason?: string;
}

/** The rounds one entry stands for; its own fields are those of the run's first round. */
export interface EntryRun {
  first_round: number;
  last_round: number;
  /** Rounds in the run: (last_round − first_round) / period + 1 (one finding each). */
  count: number;
  /**
   * Absent for 1: the run's rounds are every `period`th from first_round (a loop of `period`
   * rounds repeated, A A A B; each of its rounds is an entry with its own run).
   */
  period?: number;
  /** Source line where the last round starts, or null. */
  last_line: number | null;
  /** The strike at the last round; its counts moved by the same step every round. */
  last_strike?: Strike;
  /** The evidence numbers that moved, at the last round (each by the same step every round). */
  last_evidence?: Evidence;
  /** Tokens and dollars of every round of the run (`round_usage` is the first round's). */
  usage?: RoundUsage;
  /**
   * A text finding (output, thinking) whose detail changed from round to round: `last_evidence`
   * is the last round's, the rounds in between are not kept, `max_evidence` the largest of each number.
   */
  evidence_varies?: true;
  max_evidence?: Evidence;
}

/**
 * The findings of a session past the entries it lists (ledger/runs.ts MAX_ENTRIES): counted, not
 * listed, so a session's memory stays bounded whatever its rounds (issue 53). Every finding from
 * `first_round` on is here, none of them in `entries`.
 */
export interface UnlistedFindings {
  /** Findings (what `entries` would have counted), of which `steers` steer and `stops` stop under enforce. */
  findings: number;
  /** Rounds with at least one such finding, and their tokens and dollars. */
  rounds: number;
  first_round: number;
  last_round: number;
  steers: number;
  stops: number;
  /** Findings per kind. */
  kinds: Record<string, number>;
  usage?: RoundUsage;
  reason: string;
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
  /** What the finding looped on, normalised across sessions (ledger/loop-shape.ts): `Bash(npm test)`, or a text finding's kind. */
  shape?: string;
  /** A tool-batch finding's repeated call, literal but short (ledger/call-text.ts): `Bash(ls -la …/src)`. */
  call?: string;
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
  explain?: RecordedMeasurement[];
  /** Only with `--excerpts`. */
  excerpts?: string[];
  /** What this entry's round cost (0.2 money; absent until priced). */
  round_usage?: RoundUsage;
  /** The trace and span that recorded the round, when the input was a trace (format `otel`): lowercase hex. */
  trace?: EntryTrace;
  /**
   * Present when this entry stands for a run of rounds with the same finding (ledger/runs.ts,
   * docs/json.md "Runs"): its other fields are the run's first round's.
   */
  run?: EntryRun;
}

/** OpenTelemetry ids of the judged round, as OTLP/JSON writes them (32 and 16 hex digits). */
export interface EntryTrace {
  trace_id: string;
  span_id: string;
}

export interface RoundVerdict {
  turn: number;
  round: number;
  line: number | null;
  enforce: EnforceLevel;
  after_stop: boolean;
  /** Statistics within 10% of their threshold that did not fire (`--verbose`). */
  near_misses: RecordedMeasurement[];
}

/** A user interrupt (SPEC 0.3 "Interrupts"): after_repeat when a finding of its turn came at most `interrupts.after_repeat_rounds` rounds before it. */
export interface SessionInterrupt {
  turn: number;
  round: number;
  after_repeat: boolean;
  /** The latest finding within the window, or null. */
  finding: { detector: DetectorName; kind: string; turn: number; round: number } | null;
}

export interface SessionLedger {
  id: string;
  path: string;
  format: FormatName;
  parent: string | null;
  /** A sub-agent's type, when its store names it (Claude Code 2.1 `agent-*.meta.json`). */
  agent_type?: string;
  /** The agent that wrote the session (SPEC 0.4), when its format says. */
  agent?: string;
  /** Traces only (format `otel`): who wrote them (`claude-code`, `codex`, `gemini-cli`, `genai`, `openinference`). */
  producer?: string;
  /** Traces only: what that producer does not record, so a reader knows what the detectors could not see. */
  unrecorded?: string[];
  model: string | null;
  /**
   * The store folder the session came from (e.g. the Claude Code project), or its working directory
   * (Codex); null when neither says. Always set by the ledger builder; optional for hand-built ledgers.
   */
  project?: string | null;
  /**
   * When the session's first and last record were written (SPEC 0.4 "Time"): ISO 8601 in UTC
   * (`Z`), or null with `times_reason` when no record carries a time. Always set by the ledger
   * builder; absent in ledgers written before 0.4.
   */
  started_at?: string | null;
  ended_at?: string | null;
  /** Why `started_at` and `ended_at` are null. */
  times_reason?: string;
  usage?: SessionUsage;
  cost?: SessionCost;
  /** A cost the transcript itself recorded (e.g. Claude Code's result line), beside `cost`. */
  recorded_cost?: { usd: number; source: string };
  turns: number;
  rounds: number;
  tool_calls: number;
  entries: LedgerEntry[];
  /** Findings past the entries a session lists (MAX_ENTRIES); absent when every finding is listed. */
  unlisted?: UnlistedFindings;
  outcome: {
    enforce: {
      steers: number;
      /** `recovered_at`: the first round after the stop, in its turn, where the agent had recovered (the cut begins). */
      stops: { turn: number; round: number; recovered_at?: number }[];
      /** The rounds the stops prevent while the agent is still in the loop. */
      saved?: EnforceSaved;
      /** The rounds the stops prevent after the agent had recovered: new work a stop would break (docs/json.md). */
      cut?: EnforceSaved;
    };
  };
  /** The user's interrupts, in order; absent when the user never interrupted. */
  interrupts?: SessionInterrupt[];
  /** The agent's own loop guard halting the run (Qwen Code, Cline), in order; absent when it never did. */
  agent_halts?: { turn: number; round: number; reason: string }[];
  /** Every round's verdict: present only with `--verbose`. */
  verdicts?: RoundVerdict[];
  /** Turn boundaries and spend along the session: present only when a renderer asks (`--format html`). */
  timeline?: SessionTimeline;
}

export interface LedgerSummary {
  sessions: number;
  rounds: number;
  entries: number;
  skipped_lines: number;
  enforce: {
    sessions_stopped: number;
    sessions_steered: number;
    saved?: EnforceSaved & { unpriced_sessions: number; sessions?: number };
    /** `sessions`: those with a cut round. */
    cut?: EnforceSaved & { unpriced_sessions: number; sessions: number };
  };
  cost?: { usd: number | null; unpriced_sessions: number };
  /** Always present in a run's report (zeros without a judge); optional for ledgers assembled elsewhere. */
  judge?: JudgeUsage;
  /** The loops that recur across sessions, costliest first (SPEC 0.3 "Loop shapes"; ledger/loop-shapes.ts). */
  loop_shapes?: LoopShape[];
}

/** One loop shape over every session: what its findings' rounds cost, and the session where it cost most. */
export interface LoopShape {
  /** `Bash(npm test)`, `Read + Grep`, `Read > Edit` (a cycle), or a text finding's kind. */
  shape: string;
  detector: DetectorName;
  /** The kind of finding on most of its rounds (ties: the first by name). */
  kind: string;
  /** Sessions it occurs in. */
  sessions: number;
  /** Rounds with a finding of this shape, each counted once. */
  rounds: number;
  /** Those rounds' billed tokens; null when none records usage. */
  tokens: number | null;
  /** Those rounds' list price (priced rounds only); null when none has a price. */
  usd: number | null;
  example: LoopShapeExample;
}

/** The session where a loop shape cost most, and its share. */
export interface LoopShapeExample {
  id: string;
  path: string;
  project: string | null;
  rounds: number;
  tokens: number | null;
  usd: number | null;
}

/** A file found in a directory that is no transcript: counted on one stderr line, kept here. */
export interface NotTranscriptFile {
  path: string;
  reason: NotTranscript;
  /** What the reader said about it. */
  error: string;
}

export interface Period {
  /** `2026-11-30`, `2026-W48` (ISO week) or `2026-11`. */
  period: string;
  /** The period's bounds on the zone's calendar, ISO 8601 with the zone's offset: [start, end). */
  start: string;
  end: string;
  sessions: number;
  rounds: number;
  /** Findings (ledger entries) of those sessions. */
  entries: number;
  /** Billed tokens of the sessions that record usage; null when none does. */
  tokens: number | null;
  /** List price of the priced sessions; null when none has a price. */
  usd: number | null;
  saved: EnforceSaved & { unpriced_sessions: number; sessions?: number };
  cut: EnforceSaved & { unpriced_sessions: number; sessions: number };
  /** The period's costliest loop shapes, at most three. */
  loop_shapes: LoopShape[];
}

/** The periods part of a report: what `--by` asked for and the sums. */
export interface PeriodsReport {
  periods_by: PeriodUnit;
  timezone: string;
  periods: Period[];
}

export interface LedgerReport {
  schema: 'loopledger/1';
  tool: { name: 'loopledger'; version: string };
  config: Record<string, unknown>;
  /** 16 hex digits of the SHA-256 of `config` (keys sorted): ledgers to be merged or summed must agree on it. */
  config_hash?: string;
  /** Present only in a `--shard K/N` ledger: which shard of how many it holds. */
  shard?: { index: number; count: number };
  /** Where the prices came from (0.2 money): `overrides` names the `--prices` file, if any. */
  pricing?: { source: string; version: string; data_date: string; overrides?: string | null };
  inputs: InputSummary[];
  /**
   * Files found by searching directories that are no transcripts (settings, todos, package.json,
   * loopledger's own reports). A path named explicitly stays in `inputs`, with its error.
   * Always present in reports loopledger writes; optional for hand-built ones.
   */
  not_transcripts?: NotTranscriptFile[];
  sessions: SessionLedger[];
  summary: LedgerSummary;
  /** `--by day|week|month` only (SPEC 0.4 "Time"): the unit, the zone whose calendar cuts the periods, the sums. */
  periods_by?: PeriodUnit;
  timezone?: string;
  /** Sessions no record of which carries a time are in none: `summary.sessions` less their sum. */
  periods?: Period[];
}
