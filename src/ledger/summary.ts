// The report around the sessions: SPEC's `loopledger/1` envelope and its summary counts.

import type { ConfigValues } from '../config/spec.js';
import type { InputSummary, JudgeUsage, LedgerReport, LedgerSummary, SessionLedger } from './types.js';

export interface ReportParts {
  version: string;
  /** The effective flat configuration (dotted key → value). */
  config: ConfigValues;
  inputs: readonly InputSummary[];
  sessions: readonly SessionLedger[];
  /** What the judge cost (zeros when none was asked). */
  judge?: JudgeUsage;
}

export function noJudgeUsage(): JudgeUsage {
  return { requests: 0, input_tokens: 0, output_tokens: 0, cached: 0, failed: 0 };
}

export function summarize(
  inputs: readonly InputSummary[],
  sessions: readonly SessionLedger[],
  judge: JudgeUsage = noJudgeUsage(),
): LedgerSummary {
  let rounds = 0;
  let entries = 0;
  let stopped = 0;
  let steered = 0;
  for (const s of sessions) {
    rounds += s.rounds;
    entries += s.entries.length;
    if (s.outcome.enforce.stops.length > 0) stopped += 1;
    if (s.outcome.enforce.steers > 0) steered += 1;
  }
  return {
    sessions: sessions.length,
    rounds,
    entries,
    skipped_lines: inputs.reduce((n, i) => n + i.skipped.length, 0),
    enforce: { sessions_stopped: stopped, sessions_steered: steered },
    judge: { ...judge },
  };
}

export function assembleReport(parts: ReportParts): LedgerReport {
  // Copied in the loader's order (the registry's, so related keys stay together), which is
  // already deterministic: the loader fills every key in spec order before applying overrides.
  const config: Record<string, unknown> = { ...parts.config };
  return {
    schema: 'loopledger/1',
    tool: { name: 'loopledger', version: parts.version },
    config,
    inputs: [...parts.inputs],
    sessions: [...parts.sessions],
    summary: summarize(parts.inputs, parts.sessions, parts.judge),
  };
}
