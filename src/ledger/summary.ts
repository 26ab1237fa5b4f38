// The report around the sessions: SPEC's `loopledger/1` envelope and its summary counts.

import type { ConfigValues } from '../config/spec.js';
import { redactConfigValues } from '../config/redact.js';
import { roundUsd } from '../money/account.js';
import { configHash } from './config-hash.js';
import { loopShapes } from './loop-shapes.js';
import type { PricingInfo } from '../money/prices.js';
import type { InputSummary } from '../formats/input.js';
import type { EnforceSaved, JudgeUsage, LedgerReport, LedgerSummary, NotTranscriptFile, SessionLedger } from './types.js';

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
  const saved = new PreventionSum();
  const cut = new PreventionSum();
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
    saved.add(s.outcome.enforce.saved);
    cut.add(s.outcome.enforce.cut);
  }
  return {
    sessions: sessions.length,
    rounds,
    entries,
    skipped_lines: inputs.reduce((n, i) => n + i.skipped_lines, 0),
    enforce: { sessions_stopped: stopped, sessions_steered: steered, saved: saved.total(), cut: cut.total() },
    // Unpriced sessions are counted, never added as 0; with none priced there is no total at all.
    cost: { usd: priced === 0 && unpriced > 0 ? null : roundUsd(usd), unpriced_sessions: unpriced },
    judge: { ...judge },
    loop_shapes: loopShapes(sessions),
  };
}

/** What the stops prevent over sessions (summary.enforce.saved and .cut). */
export type PreventedTotal = EnforceSaved & { unpriced_sessions: number; sessions: number };

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

/** What the stops prevent, saved or cut, over the sessions: unknown tokens and dollars are counted, never added as 0. */
class PreventionSum {
  private rounds = 0;
  private sessions = 0;
  private tokens = 0;
  private tokensKnown = 0;
  private usd = 0;
  private priced = 0;
  private unpriced = 0;

  add(p: EnforceSaved | undefined): void {
    if (!p || p.rounds === 0) return;
    this.sessions += 1;
    this.rounds += p.rounds;
    if (p.tokens !== null) {
      this.tokens += p.tokens;
      this.tokensKnown += 1;
    }
    if (p.usd === null) this.unpriced += 1;
    else {
      this.usd += p.usd;
      this.priced += 1;
    }
  }

  total(): PreventedTotal {
    return {
      rounds: this.rounds,
      // As for dollars: tokens nobody recorded are unknown, not 0.
      tokens: this.rounds > 0 && this.tokensKnown === 0 ? null : this.tokens,
      usd: this.priced === 0 && this.unpriced > 0 ? null : roundUsd(this.usd),
      unpriced_sessions: this.unpriced,
      sessions: this.sessions,
    };
  }
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
