// The report around the sessions: SPEC's `loopledger/1` envelope and its summary counts.

import type { ConfigValues } from '../config/spec.js';
import { redactConfigValues } from '../config/redact.js';
import { roundUsd } from '../money/account.js';
import { configHash } from './config-hash.js';
import { loopShapes } from './loop-shapes.js';
import type { PricingInfo } from '../money/prices.js';
import type { InputSummary } from '../formats/input.js';
import type { JudgeUsage, LedgerReport, LedgerSummary, NotTranscriptFile, SessionLedger } from './types.js';

export interface ReportParts {
  version: string;
  /** The effective flat configuration (dotted key → value). */
  config: ConfigValues;
  inputs: readonly InputSummary[];
  sessions: readonly SessionLedger[];
  /** What the judge cost (zeros when none was asked). */
  judge?: JudgeUsage;
  /** Where prices came from; absent when nothing was priced. */
  pricing?: PricingInfo;
  /** Files found in directories that are no transcripts. */
  notTranscripts?: readonly NotTranscriptFile[];
  /** `--shard K/N`: this ledger holds one shard (merge adds the shards up). */
  shard?: { index: number; count: number };
}

export function noJudgeUsage(): JudgeUsage {
  return { requests: 0, input_tokens: 0, output_tokens: 0, cached: 0, failed: 0 };
}

function summarize(
  inputs: readonly InputSummary[],
  sessions: readonly SessionLedger[],
  judge: JudgeUsage = noJudgeUsage(),
): LedgerSummary {
  let rounds = 0;
  let entries = 0;
  let stopped = 0;
  let steered = 0;
  let usd = 0;
  let priced = 0;
  let unpriced = 0;
  const saved = { rounds: 0, tokens: 0 as number | null, usd: 0 as number | null, unpriced_sessions: 0 };
  let savedTokens = 0;
  let savedKnown = 0;
  let savedUsd = 0;
  let savedPriced = 0;
  for (const s of sessions) {
    rounds += s.rounds;
    entries += s.entries.length;
    if (s.outcome.enforce.stops.length > 0) stopped += 1;
    if (s.outcome.enforce.steers > 0) steered += 1;
    if (s.cost) {
      if (s.cost.usd === null) unpriced += 1;
      else {
        usd += s.cost.usd;
        priced += 1;
      }
    }
    const sv = s.outcome.enforce.saved;
    if (sv && sv.rounds > 0) {
      saved.rounds += sv.rounds;
      if (sv.tokens !== null) {
        savedTokens += sv.tokens;
        savedKnown += 1;
      }
      if (sv.usd === null) saved.unpriced_sessions += 1;
      else {
        savedUsd += sv.usd;
        savedPriced += 1;
      }
    }
  }
  // As for dollars: tokens nobody recorded are unknown, not 0.
  saved.tokens = saved.rounds > 0 && savedKnown === 0 ? null : savedTokens;
  saved.usd = savedPriced === 0 && saved.unpriced_sessions > 0 ? null : roundUsd(savedUsd);
  return {
    sessions: sessions.length,
    rounds,
    entries,
    skipped_lines: inputs.reduce((n, i) => n + i.skipped_lines, 0),
    enforce: { sessions_stopped: stopped, sessions_steered: steered, saved },
    // Unpriced sessions are counted, never added as 0; with none priced there is no total at all.
    cost: { usd: priced === 0 && unpriced > 0 ? null : roundUsd(usd), unpriced_sessions: unpriced },
    judge: { ...judge },
    loop_shapes: loopShapes(sessions),
  };
}

export function assembleReport(parts: ReportParts): LedgerReport {
  // Copied in the loader's order (the registry's, so related keys stay together), which is
  // already deterministic: the loader fills every key in spec order before applying overrides.
  // Recorded redacted: a ledger is shared, and a key in an endpoint's URL must not travel with it.
  const config: Record<string, unknown> = redactConfigValues(parts.config);
  return {
    schema: 'loopledger/1',
    tool: { name: 'loopledger', version: parts.version },
    ...(parts.pricing ? { pricing: parts.pricing } : {}),
    config,
    config_hash: configHash(config),
    ...(parts.shard ? { shard: { index: parts.shard.index, count: parts.shard.count } } : {}),
    inputs: [...parts.inputs],
    not_transcripts: [...(parts.notTranscripts ?? [])],
    sessions: [...parts.sessions],
    summary: summarize(parts.inputs, parts.sessions, parts.judge),
  };
}
