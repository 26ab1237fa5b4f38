// The 0.2 money fields as the overview shows them. Every field is optional in the ledger (a
// ledger written before pricing, or by a `merge` of old shards), so each reader here returns
// undefined when the field is absent and the renderers print "–".

import type { EnforceSaved, LedgerReport, SessionLedger, SessionUsage } from '../ledger/types.js';

/** What an absent or unknown figure prints as. */
export const NOT_KNOWN = '–';

/** Every billed token of a session: input, cache reads, cache writes and output (SPEC "tokens"). */
export function usageTokens(u: SessionUsage): number {
  return u.tokens ?? u.input_tokens + u.cache_read_tokens + u.cache_write_tokens + u.output_tokens;
}

/** undefined when not known: no usage field, or a format that records none (no request counted). */
export function sessionTokens(s: SessionLedger): number | undefined {
  if (s.usage === undefined || (s.usage.requests === 0 && s.rounds > 0)) return undefined;
  return usageTokens(s.usage);
}

/** The session's list price; null when it has none (no price for the model, no usage recorded). */
export function sessionUsd(s: SessionLedger): number | null | undefined {
  return s.cost === undefined ? undefined : s.cost.usd;
}

export function sessionSaved(s: SessionLedger): EnforceSaved | undefined {
  return s.outcome.enforce.saved;
}

/** The rounds a stop would have cut after the agent recovered; undefined in a ledger written before 0.3. */
export function sessionCut(s: SessionLedger): EnforceSaved | undefined {
  return s.outcome.enforce.cut;
}

/** `$41.20`, `$1,234`, `<$0.01`; "–" when not known. */
export function fmtUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return NOT_KNOWN;
  if (usd === 0) return '$0';
  if (usd > 0 && usd < 0.01) return '<$0.01';
  if (Math.abs(usd) >= 1000) return `$${Math.round(usd).toLocaleString('en-US')}`;
  return `$${usd.toFixed(2)}`;
}

/** `950`, `8.1k`, `812k`, `12.4M`, `1.2B`: three significant figures at most. */
export function fmtTokens(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return NOT_KNOWN;
  const units: [number, string][] = [
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k'],
  ];
  for (const [size, unit] of units) {
    if (Math.abs(n) >= size) {
      const v = n / size;
      return `${v >= 100 ? Math.round(v) : Number(v.toFixed(1))}${unit}`;
    }
  }
  return String(Math.round(n));
}

/** Totals over every session (calm ones included), from the summary when it has them. */
export interface MoneyTotals {
  /** undefined: no session carries the field at all. */
  tokens?: number;
  usd?: number | null;
  unpriced: number;
  saved?: { rounds: number; tokens: number | null; usd: number | null };
  cut?: { rounds: number; tokens: number | null; usd: number | null };
}

type Prevented = NonNullable<MoneyTotals['saved']>;

/** `total` with one session's saved or cut rounds added; undefined while no session carries the field. */
function withSessionPrevented(total: Prevented | undefined, p: { rounds: number; tokens: number | null; usd: number | null } | undefined): Prevented | undefined {
  if (p === undefined) return total;
  const t = total ?? { rounds: 0, tokens: 0, usd: null };
  t.rounds += p.rounds;
  t.tokens = (t.tokens ?? 0) + (p.tokens ?? 0);
  if (p.usd !== null) t.usd = (t.usd ?? 0) + p.usd;
  return t;
}

export function moneyTotals(report: LedgerReport): MoneyTotals {
  const tally = new MoneyTally();
  for (const s of report.sessions) tally.add(s);
  return tally.totals(report);
}

/** moneyTotals added up one session at a time, so a format can count it in a pass it makes anyway. */
export class MoneyTally {
  private tokens: number | undefined;
  private usd: number | undefined;
  private priced = false;
  private unpriced = 0;
  private saved: MoneyTotals['saved'];
  private cut: MoneyTotals['cut'];
  private anyCost = false;

  add(s: SessionLedger): void {
    const t = sessionTokens(s);
    if (t !== undefined) this.tokens = (this.tokens ?? 0) + t;
    if (s.cost !== undefined) {
      this.anyCost = true;
      if (s.cost.usd === null) this.unpriced += 1;
      else {
        this.usd = (this.usd ?? 0) + s.cost.usd;
        this.priced = true;
      }
    }
    this.saved = withSessionPrevented(this.saved, sessionSaved(s));
    this.cut = withSessionPrevented(this.cut, sessionCut(s));
  }

  /** The totals, from the summary when it has them (the sessions added: every one of `report`'s). */
  totals(report: Pick<LedgerReport, 'summary'>): MoneyTotals {
    const sm = report.summary;
    const out: MoneyTotals = { unpriced: sm.cost?.unpriced_sessions ?? this.unpriced };
    if (this.tokens !== undefined) out.tokens = this.tokens;
    if (sm.cost !== undefined) out.usd = sm.cost.usd;
    else if (this.anyCost) out.usd = this.priced ? this.usd! : null;
    const smSaved = sm.enforce.saved;
    if (smSaved !== undefined) out.saved = { rounds: smSaved.rounds, tokens: smSaved.tokens, usd: smSaved.usd };
    else if (this.saved !== undefined) out.saved = this.saved;
    const smCut = sm.enforce.cut;
    if (smCut !== undefined) out.cut = { rounds: smCut.rounds, tokens: smCut.tokens, usd: smCut.usd };
    else if (this.cut !== undefined) out.cut = this.cut;
    return out;
  }
}
