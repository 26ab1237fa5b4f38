// The report around the sessions: SPEC's `loopledger/1` envelope and its summary counts.

import type { ConfigValues } from '../config/spec.js';
import { redactConfigValues } from '../config/redact.js';
import { roundUsd } from '../money/account.js';
import { configHash } from './config-hash.js';
import { LoopShapeTally } from './loop-shapes.js';
import type { PricingInfo } from '../money/prices.js';
import type { InputSummary } from '../formats/input.js';
import { periodsOf, type PeriodSpec } from './periods.js';
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
  /** The summary, when the caller added it up itself (a merge, one session at a time): else of `sessions`. */
  summary?: LedgerSummary;
  /** `--by`: the sessions added up per period as well (after the summary). */
  periods?: PeriodSpec;
}

export function noJudgeUsage(): JudgeUsage {
  return { requests: 0, input_tokens: 0, output_tokens: 0, cached: 0, failed: 0 };
}

/**
 * The summary's sums, added one session at a time in the order given (dollars are floats: the
 * order one run adds them in is the order that gives its last digit), so a caller that reads
 * sessions back one by one holds none of them.
 */
export class SummaryTally {
  private count = 0;
  private rounds = 0;
  private entries = 0;
  private stopped = 0;
  private steered = 0;
  private usd = 0;
  private priced = 0;
  private unpriced = 0;
  private readonly saved = new PreventionSum();
  private readonly cut = new PreventionSum();
  private readonly shapes = new LoopShapeTally();

  add(s: SessionLedger): void {
    this.count += 1;
    this.rounds += s.rounds;
    this.entries += s.entries.length;
    if (s.outcome.enforce.stops.length > 0) this.stopped += 1;
    if (s.outcome.enforce.steers > 0) this.steered += 1;
    if (s.cost) {
      if (s.cost.usd === null) this.unpriced += 1;
      else {
        this.usd += s.cost.usd;
        this.priced += 1;
      }
    }
    this.saved.add(s.outcome.enforce.saved);
    this.cut.add(s.outcome.enforce.cut);
    this.shapes.add(s);
  }

  /** `inputs` are iterated once (a large merge reads them back from disk as they are iterated). */
  summary(inputs: Iterable<Pick<InputSummary, 'skipped_lines'>>, judge: JudgeUsage = noJudgeUsage()): LedgerSummary {
    let skipped = 0;
    for (const i of inputs) skipped += i.skipped_lines;
    return {
      sessions: this.count,
      rounds: this.rounds,
      entries: this.entries,
      skipped_lines: skipped,
      enforce: { sessions_stopped: this.stopped, sessions_steered: this.steered, saved: this.saved.total(), cut: this.cut.total() },
      // Unpriced sessions are counted, never added as 0; with none priced there is no total at all.
      cost: { usd: this.priced === 0 && this.unpriced > 0 ? null : roundUsd(this.usd), unpriced_sessions: this.unpriced },
      judge: { ...judge },
      loop_shapes: this.shapes.shapes(),
    };
  }
}

/** The summary of these sessions, in their order. */
export function summarize(inputs: Iterable<InputSummary>, sessions: Iterable<SessionLedger>, judge?: JudgeUsage): LedgerSummary {
  const tally = new SummaryTally();
  for (const s of sessions) tally.add(s);
  return tally.summary(inputs, judge);
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
    summary: parts.summary ?? summarize(parts.inputs, parts.sessions, parts.judge),
    ...(parts.periods ? periodsOf(parts.sessions, parts.periods) : {}),
  };
}
