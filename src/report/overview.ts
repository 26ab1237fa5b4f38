// A whole store at once: when the inputs hold more sessions than `--top N`, the human formats open
// with one row per session that has findings, worst first, then totals over every session, and
// print the per-entry ledger of the top N only. Calm sessions are counted, not listed. This module
// decides what is listed and in which order; table and markdown lay it out.

import type { SessionLedger } from '../ledger/types.js';
import { LEVEL_RANK, type EnforceLevel } from '../vocabulary.js';
import { fmtTokens, fmtUsd, NOT_KNOWN, sessionSaved, sessionTokens, sessionUsd } from './amounts.js';
import { maxEnforce, plural } from './text.js';

export const SESSION_SORTS = ['level', 'saved', 'cost', 'path'] as const;
export type SessionSort = (typeof SESSION_SORTS)[number];

/** SPEC: the overview appears when the inputs hold more sessions than this. */
export const DEFAULT_TOP = 10;

export interface OverviewPlan {
  /** True when the report opens with the overview (more sessions than `top`, and `top` > 0). */
  overview: boolean;
  /** Sessions with findings, in `sort` order (empty without the overview). */
  ranked: SessionLedger[];
  /** Sessions printed in full, in print order. */
  detailed: SessionLedger[];
  /** Sessions without findings (counted, never listed, in the overview). */
  calm: number;
}

const cmpText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Larger first; absent and null last. */
const cmpDesc = (a: number | null | undefined, b: number | null | undefined) => {
  const x = a ?? -Infinity;
  const y = b ?? -Infinity;
  return x === y ? 0 : x > y ? -1 : 1;
};

/** The order of the overview. Ties always end on path, then id, so output is deterministic. */
export function compareSessions(sort: SessionSort): (a: SessionLedger, b: SessionLedger) => number {
  const level = (a: SessionLedger, b: SessionLedger) => LEVEL_RANK[maxEnforce(b)] - LEVEL_RANK[maxEnforce(a)];
  const savedUsd = (a: SessionLedger, b: SessionLedger) => cmpDesc(sessionSaved(a)?.usd, sessionSaved(b)?.usd);
  const savedRounds = (a: SessionLedger, b: SessionLedger) => cmpDesc(sessionSaved(a)?.rounds, sessionSaved(b)?.rounds);
  const cost = (a: SessionLedger, b: SessionLedger) => cmpDesc(sessionUsd(a), sessionUsd(b));
  // More stops is worse, then more findings; among equals, more steers.
  const stops = (a: SessionLedger, b: SessionLedger) => b.outcome.enforce.stops.length - a.outcome.enforce.stops.length;
  const steers = (a: SessionLedger, b: SessionLedger) => b.outcome.enforce.steers - a.outcome.enforce.steers;
  const findings = (a: SessionLedger, b: SessionLedger) => b.entries.length - a.entries.length;
  const path = (a: SessionLedger, b: SessionLedger) => cmpText(a.path, b.path) || cmpText(a.id, b.id);
  const chain: ((a: SessionLedger, b: SessionLedger) => number)[] =
    sort === 'level'
      ? [level, savedUsd, savedRounds, stops, findings, steers, path]
      : sort === 'saved'
        ? [savedUsd, savedRounds, level, stops, findings, steers, path]
        : sort === 'cost'
          ? [cost, level, savedUsd, stops, findings, steers, path]
          : [path];
  return (a, b) => {
    for (const c of chain) {
      const d = c(a, b);
      if (d !== 0) return d;
    }
    return 0;
  };
}

export function planOverview(
  sessions: readonly SessionLedger[],
  options: { top: number; sort: SessionSort; quiet: boolean },
): OverviewPlan {
  let calm = 0;
  for (const s of sessions) if (s.entries.length === 0) calm += 1;
  const top = Math.max(0, Math.floor(options.top));
  if (top === 0 || sessions.length <= top) {
    const detailed = options.quiet ? sessions.filter((s) => s.entries.length > 0) : [...sessions];
    return { overview: false, ranked: [], detailed, calm };
  }
  const ranked = sessions.filter((s) => s.entries.length > 0).sort(compareSessions(options.sort));
  return { overview: true, ranked, detailed: ranked.slice(0, top), calm };
}

const UUID_TAIL = /([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id segment ending in a UUID (Claude Code, Codex, Gemini) shows its first 8 hex digits, as
 *  git shows a commit; other segments stay whole (the layout may cut them). */
export function shortId(id: string): string {
  return id
    .split('/')
    .map((seg) => UUID_TAIL.exec(seg)?.[1] ?? seg)
    .join('/');
}

/** A model name without its release date (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`); compact,
 *  without the vendor's prefix where it is the same for a family (`sonnet-4-5`). */
export function shortModel(model: string | null, long = true): string {
  if (model === null) return NOT_KNOWN;
  const dated = model.replace(/[-@]\d{8}$/, '');
  return long ? dated : dated.replace(/^claude-/, '');
}

/** What Enforce does to the session, in a few words: `stop t3 r57`, `stop t3 r57 +1`, `steer ×2`, `noted`. */
export function outcomeCell(s: SessionLedger): { text: string; level: EnforceLevel } {
  const stops = s.outcome.enforce.stops;
  if (stops.length > 0) {
    const first = stops[0]!;
    return { text: `stop t${first.turn} r${first.round}${stops.length > 1 ? ` +${stops.length - 1}` : ''}`, level: 'stop' };
  }
  if (s.outcome.enforce.steers > 0) return { text: `steer ×${s.outcome.enforce.steers}`, level: 'steer' };
  const level = maxEnforce(s);
  return { text: level, level };
}

/** `$18.02 · 203 rounds` (long) or `$18.02` (short); rounds alone when unpriced. */
export function savedCell(s: SessionLedger, long: boolean): string {
  const sv = sessionSaved(s);
  if (sv === undefined) return NOT_KNOWN;
  if (sv.rounds === 0) return '0';
  const rounds = plural(sv.rounds, 'round');
  if (sv.usd === null) return rounds;
  return long ? `${fmtUsd(sv.usd)} · ${rounds}` : fmtUsd(sv.usd);
}

export function tokensCell(s: SessionLedger): string {
  return fmtTokens(sessionTokens(s));
}

export function costCell(s: SessionLedger): string {
  return fmtUsd(sessionUsd(s));
}

export function projectCell(s: SessionLedger): string {
  return s.project === undefined || s.project === null || s.project === '' ? NOT_KNOWN : s.project;
}

/** Which optional columns have anything to show: a column absent from every listed session is left out. */
export function presentColumns(sessions: readonly SessionLedger[]): { project: boolean; tokens: boolean; cost: boolean; saved: boolean } {
  const p = { project: false, tokens: false, cost: false, saved: false };
  for (const s of sessions) {
    p.project ||= s.project !== undefined && s.project !== null;
    p.tokens ||= s.usage !== undefined;
    p.cost ||= s.cost !== undefined;
    p.saved ||= s.outcome.enforce.saved !== undefined;
  }
  return p;
}

/** Sessions with findings per worst enforce level. */
export function levelCounts(sessions: readonly SessionLedger[]): Record<EnforceLevel, number> {
  const n: Record<EnforceLevel, number> = { none: 0, noted: 0, steer: 0, stop: 0 };
  for (const s of sessions) if (s.entries.length > 0) n[outcomeCell(s).level] += 1;
  return n;
}
