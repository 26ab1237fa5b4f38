// The report around the sessions: SPEC's `loopledger/1` envelope and its summary counts.

import type { ConfigValues } from '../config/spec.js';
import { redactConfigValues } from '../config/redact.js';
import { roundUsd } from '../money/account.js';
import { configHash } from './config-hash.js';
import type { PricingInfo } from '../money/prices.js';
import type { InputSummary } from '../formats/input.js';
import { periodsOf, type PeriodSpec } from './periods.js';
import { PreventionSum, SummaryTally, type PreventedTotal } from './tally.js';
import type { JudgeUsage, LedgerReport, LedgerSummary, NotTranscriptFile, SessionLedger } from './types.js';

// merge and the ledger check read these from here.
export { noJudgeUsage, SummaryTally, type PreventedTotal } from './tally.js';

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
  /** The summary, when the caller added it up itself (a merge, one session at a time): else of `sessions`. */
  summary?: LedgerSummary;
  /** `--by`: the sessions added up per period as well (after the summary). */
  periods?: PeriodSpec;
}

/** The summary of these sessions, in their order. */
export function summarize(inputs: Iterable<InputSummary>, sessions: Iterable<SessionLedger>, judge?: JudgeUsage): LedgerSummary {
  const tally = new SummaryTally();
  for (const s of sessions) tally.add(s);
  return tally.summary(inputs, judge);
}


/** The sessions' saved or cut rounds added up, as the summary adds them. */
export function preventedTotal(sessions: readonly SessionLedger[], part: 'saved' | 'cut'): PreventedTotal {
  const sum = new PreventionSum();
  for (const s of sessions) sum.add(s.outcome.enforce[part]);
  return sum.total();
}

/**
 * Two totals of saved or cut rounds (shards of one run) as one: tokens stay unknown only when no
 * part knew any, dollars only when no part could price any, as PreventionSum decides for sessions.
 */
export function addPrevented(a: PreventedTotal, b: PreventedTotal): PreventedTotal {
  const known = (p: PreventedTotal, v: number | null) => v !== null && p.rounds > 0;
  const rounds = a.rounds + b.rounds;
  const tokensKnown = known(a, a.tokens) || known(b, b.tokens);
  const usdKnown = known(a, a.usd) || known(b, b.usd);
  const unpriced = a.unpriced_sessions + b.unpriced_sessions;
  return {
    rounds,
    tokens: rounds > 0 && !tokensKnown ? null : (a.tokens ?? 0) + (b.tokens ?? 0),
    usd: !usdKnown && unpriced > 0 ? null : roundUsd((a.usd ?? 0) + (b.usd ?? 0)),
    unpriced_sessions: unpriced,
    sessions: a.sessions + b.sessions,
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
    summary: parts.summary ?? summarize(parts.inputs, parts.sessions, parts.judge),
    ...(parts.periods ? periodsOf(parts.sessions, parts.periods) : {}),
  };
}
