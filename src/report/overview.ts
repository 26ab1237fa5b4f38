// A whole store at once: when the inputs hold more sessions than `--top N`, the human formats open
// with one row per session that has findings, worst first, then totals over every session, and
// print the per-entry ledger of the top N only. Calm sessions are counted, not listed. This module
// decides what is listed and in which order; table and markdown lay it out.

import type { EnforceSaved, SessionLedger } from '../ledger/types.js';
import { LEVEL_RANK, type EnforceLevel } from '../vocabulary.js';
import { fmtTokens, fmtUsd, NOT_KNOWN, sessionCut, sessionSaved, sessionTokens, sessionUsd } from './amounts.js';
import { sanitize } from '../sanitize.js';
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
  return preventedAmountCell(sessionSaved(s), long);
}

/** What a stop would have cut after the agent recovered, as savedCell shows what it saves. */
export function cutCell(s: SessionLedger, long: boolean): string {
  return preventedAmountCell(sessionCut(s), long);
}

/**
 * A session's or a total's saved or cut rounds: `0` when none (priced or not, so a column never
 * reads "$0" beside "0"), rounds alone when unpriced, else dollars (and rounds when long).
 */
export function preventedAmountCell(sv: Pick<EnforceSaved, 'rounds' | 'usd'> | undefined, long: boolean): string {
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

/**
 * Which optional columns have anything to show. The figures' columns look at every session (their
 * totals row adds up calm ones too); the project column at the listed ones only, so a column of
 * "–" on every row is left out even when a calm session has a project.
 */
export function presentColumns(
  sessions: readonly SessionLedger[],
  listed: readonly SessionLedger[] = sessions,
): { project: boolean; tokens: boolean; cost: boolean; saved: boolean; cut: boolean } {
  const p = { project: false, tokens: false, cost: false, saved: false, cut: false };
  for (const s of sessions) {
    p.tokens ||= s.usage !== undefined;
    p.cost ||= s.cost !== undefined;
    p.saved ||= s.outcome.enforce.saved !== undefined;
    p.cut ||= s.outcome.enforce.cut !== undefined;
  }
  for (const s of listed) p.project ||= projectCell(s) !== NOT_KNOWN;
  return p;
}

/** Code points compared in order; a prefix sorts first. */
function compareCodes(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i += 1;
  return i;
}

/** The fewest trailing path segments that tell the paths of one group apart (all of them when none do). */
function distinguishingTails(paths: readonly string[]): string[] {
  const parts = paths.map((p) => p.split(/[\\/]+/).filter((x) => x !== ''));
  const longest = Math.max(...parts.map((p) => p.length));
  for (let k = 1; k <= longest; k += 1) {
    const tails = parts.map((p) => p.slice(-k).join('/'));
    if (new Set(tails).size === tails.length) return tails;
  }
  return parts.map((p) => p.join('/'));
}

/**
 * The name each session shows in the overview, distinct within the run and at most `max` columns
 * where that can be done. A session is named by its short id (`7c2d41e9`); distinct ids whose short
 * forms collide show whole; one id in several files is prefixed with the fewest trailing path segments
 * that tell the files apart (`copy-b/s.jsonl:7c2d41e9`), and `#2`… when even the paths agree. A name
 * too long is cut in the middle, keeping its start and the shortest end no other name shares
 * (`ohc_claude35_dj…go-11099`), where cutting the end would have left two names the same.
 */
export function sessionLabels(sessions: readonly { id: string; path: string }[], max = Infinity): string[] {
  const groupBy = (keys: readonly string[]) => {
    const groups = new Map<string, number[]>();
    keys.forEach((k, i) => {
      const g = groups.get(k);
      if (g) g.push(i);
      else groups.set(k, [i]);
    });
    return [...groups.values()].filter((g) => g.length > 1);
  };
  const keys = sessions.map((s) => sanitize(shortId(s.id)));
  for (const g of groupBy(keys)) {
    const full = g.map((i) => sanitize(sessions[i]!.id));
    g.forEach((i, j) => {
      if (full.indexOf(full[j]!) === full.lastIndexOf(full[j]!)) keys[i] = full[j]!;
    });
  }
  for (const g of groupBy(keys)) {
    const tails = distinguishingTails(g.map((i) => sanitize(sessions[i]!.path)));
    g.forEach((i, j) => (keys[i] = `${tails[j]}:${keys[i]}`));
  }
  // Until every name differs: a numbered name could meet an id that already reads so.
  for (let groups = groupBy(keys); groups.length > 0; groups = groupBy(keys)) {
    for (const g of groups) g.forEach((i, j) => (keys[i] = `${keys[i]}#${j + 1}`));
  }
  if (!Number.isFinite(max)) return keys;

  // The shortest end of a name that no other name ends with: one more than its longest common
  // end with a neighbour, once the names are sorted by their reversed code points.
  const codes = keys.map((k) => [...k]);
  const reversed = codes.map((c) => [...c].reverse());
  const order = keys.map((_, i) => i).sort((a, b) => compareCodes(reversed[a]!, reversed[b]!));
  const tail = new Array<number>(keys.length).fill(0);
  order.forEach((i, at) => {
    const before = at > 0 ? commonPrefix(reversed[i]!, reversed[order[at - 1]!]!) : 0;
    const after = at + 1 < order.length ? commonPrefix(reversed[i]!, reversed[order[at + 1]!]!) : 0;
    tail[i] = Math.max(before, after) + 1;
  });
  const limit = Math.max(2, Math.floor(max));
  // A third of the name is kept from its end, more when that is what tells it apart: a longer end
  // than the shortest unique one is unique too, and reads better (`…go-11099`, not `…9`).
  const readableEnd = Math.ceil((limit - 1) / 3);
  return codes.map((c, i) => {
    // No end of it is its own (it ends another name): only the whole name is.
    if (c.length <= limit || tail[i]! >= c.length) return keys[i]!;
    const end = c.slice(c.length - Math.max(tail[i]!, readableEnd));
    const head = c.slice(0, Math.max(0, limit - 1 - end.length));
    return `${head.join('')}…${end.join('')}`;
  });
}

/** Sessions with findings per worst enforce level. */
export function levelCounts(sessions: readonly SessionLedger[]): Record<EnforceLevel, number> {
  const n: Record<EnforceLevel, number> = { none: 0, noted: 0, steer: 0, stop: 0 };
  for (const s of sessions) if (s.entries.length > 0) n[outcomeCell(s).level] += 1;
  return n;
}
