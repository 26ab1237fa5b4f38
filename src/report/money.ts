// Money in sentences, shared by every human and CI format (amounts.ts formats the numbers): what a session cost, what its flagged
// rounds cost, what Enforce would have saved, and the totals. Figures are list-price estimates
// and say so. Pure functions over the ledger.

import { roundsKey, roundsOf, usageOf } from '../ledger/runs.js';
import type { LedgerReport, SessionLedger } from '../ledger/types.js';
import { fmtTokens, fmtUsd, usageTokens } from './amounts.js';
import { sanitize } from '../sanitize.js';
import { plural } from './text.js';

/** `≈ $0.42`: every dollar figure shown to a person is an estimate at list price; a figure
 *  under a cent reads `under $0.01` (not `≈ <$0.01`). */
export function approxUsd(usd: number): string {
  return usd > 0 && usd < 0.01 ? 'under $0.01' : `≈ ${fmtUsd(usd)}`;
}

/** `about $0.19` in a sentence, `under $0.01` below a cent. */
function aboutUsd(usd: number): string {
  return usd > 0 && usd < 0.01 ? 'under $0.01' : `about ${fmtUsd(usd)}`;
}

/** The note that goes with dollar figures. */
export function listPriceNote(report: LedgerReport): string | null {
  const p = report.pricing;
  if (!p) return null;
  const source = `${sanitize(p.source)} ${sanitize(p.version)}, prices as of ${sanitize(p.data_date)}`;
  const extra = p.overrides !== null ? ` plus ${sanitize(p.overrides)}` : '';
  return `Dollar figures are list-price estimates (${source}${extra}); subscription plans are not billed per token.`;
}

/** What a session cost: `74k tokens in 6 requests ≈ $0.42`, or why the dollars are unknown. */
export function sessionCostPhrase(s: SessionLedger): string | null {
  if (!s.usage || !s.cost) return null;
  const tokens = s.usage.requests > 0 ? `${fmtTokens(usageTokens(s.usage))} tokens in ${plural(s.usage.requests, 'request')}` : null;
  const reason = s.cost.reason !== null ? sanitize(s.cost.reason) : null;
  if (s.cost.usd !== null) {
    const head = `${tokens ?? 'no requests'} ${approxUsd(s.cost.usd)}`;
    return reason !== null ? `${head} (${reason})` : head;
  }
  const unknown = `cost unknown: ${reason ?? 'no price'}`;
  return tokens ? `${tokens}, ${unknown}` : unknown;
}

/** Tokens and dollars of the distinct rounds that carry entries: what the loop itself cost. */
export function flaggedRounds(s: SessionLedger): { rounds: number; tokens: number | null; usd: number | null } {
  const seen = new Set<number | string>();
  let rounds = 0;
  let tokens: number | null = null;
  let usd: number | null = 0;
  for (const e of s.entries) {
    const key = roundsKey(e);
    if (seen.has(key)) continue;
    seen.add(key);
    rounds += roundsOf(e);
    const u = usageOf(e);
    if (u?.tokens != null) tokens = (tokens ?? 0) + u.tokens;
    if (u?.usd != null && usd !== null) usd += u.usd;
    else usd = null;
  }
  // Rounds past the entries listed are counted apart, each once (ledger/runs.ts MAX_ENTRIES).
  const past = s.unlisted;
  if (past !== undefined && past.rounds > 0) {
    rounds += past.rounds;
    if (past.usage?.tokens != null) tokens = (tokens ?? 0) + past.usage.tokens;
    if (past.usage?.usd != null && usd !== null) usd += past.usage.usd;
    else usd = null;
  }
  return { rounds, tokens, usd: rounds === 0 ? 0 : usd };
}

function amounts(tokens: number | null, usd: number | null): string {
  const bits: string[] = [];
  if (tokens !== null) bits.push(`${fmtTokens(tokens)} tokens`);
  if (usd !== null) bits.push(approxUsd(usd));
  return bits.join(' ');
}

/** `flagged rounds cost 3 rounds, 6.0k tokens, ≈ $0.02`, or null without entries. */
export function loopCostPhrase(s: SessionLedger): string | null {
  if (s.entries.length === 0 || !s.usage) return null;
  const f = flaggedRounds(s);
  const a = amounts(f.tokens, f.usd);
  return `flagged rounds: ${plural(f.rounds, 'round')}${a ? `, ${a}` : ''}`;
}

/**
 * `Enforce would have saved 3 rounds, 6.0k tokens, ≈ $0.02`, and what it would have cut after the
 * agent recovered (`and cut 25 rounds of new work, 90k tokens`); null when its stops prevent nothing.
 */
export function savedPhrase(s: SessionLedger): string | null {
  const sv = s.outcome.enforce.saved;
  const ct = s.outcome.enforce.cut;
  const saved = sv !== undefined && sv.rounds > 0;
  const cut = ct !== undefined && ct.rounds > 0;
  if (!saved && !cut) return null;
  const head = saved ? `Enforce would have saved ${plural(sv.rounds, 'round')}${withAmounts(sv.tokens, sv.usd)}` : 'Enforce would have saved nothing';
  return cut ? `${head} and cut ${plural(ct.rounds, 'round')} of new work${withAmounts(ct.tokens, ct.usd)}` : head;
}

function withAmounts(tokens: number | null, usd: number | null): string {
  const a = amounts(tokens, usd);
  return a ? `, ${a}` : '';
}

/** The run's money in one or two sentences, or null when nothing was accounted. */
export function totalsPhrases(report: LedgerReport): string[] {
  const sm = report.summary;
  const out: string[] = [];
  if (sm.cost) {
    const unpriced = sm.cost.unpriced_sessions > 0 ? ` (${plural(sm.cost.unpriced_sessions, 'session')} could not be priced)` : '';
    out.push(sm.cost.usd === null ? `list price unknown${unpriced}` : `list price ${approxUsd(sm.cost.usd)}${unpriced}`);
  }
  const sv = sm.enforce.saved;
  if (sv && sm.enforce.sessions_stopped > 0) {
    const parts = [`Enforce would have stopped ${plural(sm.enforce.sessions_stopped, 'session')}`];
    if (sv.rounds > 0) {
      const dollars = sv.usd !== null ? aboutUsd(sv.usd) : '';
      const where = sv.sessions !== undefined ? ` in ${plural(sv.sessions, 'session')}` : '';
      const unpriced = sv.unpriced_sessions > 0 && sv.usd !== null ? `; ${plural(sv.unpriced_sessions, 'session')} unpriced` : '';
      const tokens = sv.tokens !== null ? `${fmtTokens(sv.tokens)} tokens in ` : '';
      parts.push(dollars ? `saved ${dollars}${where} (${tokens}${plural(sv.rounds, 'round')}${unpriced})` : `saved ${tokens}${plural(sv.rounds, 'round')}${where}`);
    }
    // What the stops would have broken, beside what they save (SPEC 0.3 "What a stop cuts").
    const ct = sm.enforce.cut;
    if (ct !== undefined) parts.push(ct.rounds > 0 ? `cut ${plural(ct.rounds, 'round')} of new work in ${ct.sessions}` : 'cut no new work');
    out.push(parts.length > 2 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}` : parts.join(' and '));
  }
  return out;
}
