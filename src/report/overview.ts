// A whole store at once: when the inputs hold more sessions than `--top N`, the human formats open
// with one row per session that has findings, worst first, then totals over every session, and
// print the per-entry ledger of the top N only. Calm sessions are counted, not listed. This module
// decides what is listed and in which order; table and markdown lay it out.

import { sessionFindings } from '../ledger/runs.js';
import type { EnforceSaved, SessionLedger } from '../ledger/types.js';
import { LEVEL_RANK, type EnforceLevel } from '../vocabulary.js';
import { fmtTokens, fmtUsd, MoneyTally, NOT_KNOWN, sessionCut, sessionSaved, sessionTokens, sessionUsd } from './amounts.js';
import { sanitize } from '../sanitize.js';
import { maxEnforce, plural } from './text.js';
import { filtered, firstOf, mapped, some, type Sorter, sortInMemory } from './lists.js';

export const SESSION_SORTS = ['level', 'saved', 'cost', 'path', 'date'] as const;
export type SessionSort = (typeof SESSION_SORTS)[number];

/** SPEC: the overview appears when the inputs hold more sessions than this. */
export const DEFAULT_TOP = 10;

export interface OverviewPlan {
  /** True when the report opens with the overview (more sessions than `top`, and `top` > 0). */
  overview: boolean;
  /** Sessions with findings, in `sort` order (empty without the overview): a list, iterated as often as needed. */
  ranked: Iterable<SessionLedger>;
  rankedCount: number;
  /** Sessions printed in full, in print order. */
  detailed: Iterable<SessionLedger>;
  detailedCount: number;
  /** Sessions without findings (counted, never listed, in the overview). */
  calm: number;
  /** Every session. */
  all: number;
  /** What the overview shows of every session, counted in the pass that ranks them. */
  tally: OverviewTally;
}

/** What the overview counts over every session (presentColumns, its sessions with findings per worst enforce level, moneyTotals), one session at a time. */
class OverviewTally {
  all = 0;
  calm = 0;
  /** presentColumns of every session, the project's column of those with findings (the listed ones). */
  readonly present = { project: false, tokens: false, cost: false, saved: false, cut: false, started: false };
  /** Sessions with findings per worst enforce level. */
  readonly levels: Record<EnforceLevel, number> = { none: 0, noted: 0, steer: 0, stop: 0 };
  readonly money = new MoneyTally();

  add(s: SessionLedger): void {
    this.all += 1;
    const p = this.present;
    p.tokens ||= s.usage !== undefined;
    p.cost ||= s.cost !== undefined;
    p.saved ||= s.outcome.enforce.saved !== undefined;
    p.cut ||= s.outcome.enforce.cut !== undefined;
    if (s.entries.length === 0) this.calm += 1;
    else {
      p.project ||= projectCell(s) !== NOT_KNOWN;
      // A column of when sessions started only where a listed one has times (no column of "–").
      p.started ||= typeof s.started_at === 'string';
      this.levels[outcomeCell(s).level] += 1;
    }
    this.money.add(s);
  }
}

const cmpText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Larger first; absent and null last. */
const cmpDesc = (a: number | null | undefined, b: number | null | undefined) => {
  const x = a ?? -Infinity;
  const y = b ?? -Infinity;
  return x === y ? 0 : x > y ? -1 : 1;
};

/** When the session started, in ms; null when it has no times. */
function startedMs(s: SessionLedger): number | null {
  const ms = s.started_at ? Date.parse(s.started_at) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

/** The order of the overview. Ties always end on path, then id, so output is deterministic. */
export function compareSessions(sort: SessionSort): (a: SessionLedger, b: SessionLedger) => number {
  const level = (a: SessionLedger, b: SessionLedger) => LEVEL_RANK[maxEnforce(b)] - LEVEL_RANK[maxEnforce(a)];
  const savedUsd = (a: SessionLedger, b: SessionLedger) => cmpDesc(sessionSaved(a)?.usd, sessionSaved(b)?.usd);
  const savedRounds = (a: SessionLedger, b: SessionLedger) => cmpDesc(sessionSaved(a)?.rounds, sessionSaved(b)?.rounds);
  const cost = (a: SessionLedger, b: SessionLedger) => cmpDesc(sessionUsd(a), sessionUsd(b));
  // More stops is worse, then more findings; among equals, more steers.
  const stops = (a: SessionLedger, b: SessionLedger) => b.outcome.enforce.stops.length - a.outcome.enforce.stops.length;
  const steers = (a: SessionLedger, b: SessionLedger) => b.outcome.enforce.steers - a.outcome.enforce.steers;
  const findings = (a: SessionLedger, b: SessionLedger) => sessionFindings(b) - sessionFindings(a);
  const path = (a: SessionLedger, b: SessionLedger) => cmpText(a.path, b.path) || cmpText(a.id, b.id);
  // Newest first; sessions without times last.
  const date = (a: SessionLedger, b: SessionLedger) => cmpDesc(startedMs(a), startedMs(b));
  const chain: ((a: SessionLedger, b: SessionLedger) => number)[] =
    sort === 'level'
      ? [level, savedUsd, savedRounds, stops, findings, steers, path]
      : sort === 'saved'
        ? [savedUsd, savedRounds, level, stops, findings, steers, path]
        : sort === 'cost'
          ? [cost, level, savedUsd, stops, findings, steers, path]
          : sort === 'date'
            ? [date, path]
            : [path];
  return (a, b) => {
    for (const c of chain) {
      const d = c(a, b);
      if (d !== 0) return d;
    }
    return 0;
  };
}

/**
 * What the overview lists and what follows in full. `sessions` is read a few times, never held
 * (a merge reads it from disk); the ranking is sorted by `sorter`.
 */
export function planOverview(
  sessions: Iterable<SessionLedger>,
  options: { top: number; sort: SessionSort; quiet: boolean },
  sorter: Sorter = sortInMemory,
): OverviewPlan {
  const tally = new OverviewTally();
  // Counted as the ranking reads them: one pass (a merge reads them from disk).
  const counted = mapped(sessions, (s) => {
    tally.add(s);
    return s;
  });
  const top = Math.max(0, Math.floor(options.top));
  let ranked: Iterable<SessionLedger> = [];
  if (top === 0) for (const _ of counted);
  else ranked = sorter(filtered(counted, hasFindings), compareSessions(options.sort));
  const { all, calm } = tally;
  if (top === 0 || all <= top) {
    const detailed = options.quiet ? filtered(sessions, hasFindings) : sessions;
    return { overview: false, ranked: [], rankedCount: 0, detailed, detailedCount: options.quiet ? all - calm : all, calm, all, tally };
  }
  return { overview: true, ranked, rankedCount: all - calm, detailed: firstOf(ranked, top), detailedCount: Math.min(top, all - calm), calm, all, tally };
}

const hasFindings = (s: SessionLedger) => s.entries.length > 0;

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
  sessions: Iterable<SessionLedger>,
  listed: Iterable<SessionLedger> = sessions,
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

/** A session's name while sessionNames works it out: its place in the list and its name so far. */
interface Name {
  i: number;
  key: string;
}

/** With what tells sessions whose names collide apart. */
type Named = Name & { id: string; path: string };

/** Equal names side by side, each group in list order: what groupBy gave, without a map of every name. */
const byKey = (a: Name, b: Name) => cmpText(a.key, b.key) || a.i - b.i;

/** The names as sorted by byKey, each group of two or more equal ones changed by `change` first. */
function* regrouped<T extends Name>(sorted: Iterable<T>, change: (group: T[]) => void): Generator<T> {
  let group: T[] = [];
  for (const n of sorted) {
    if (group.length > 0 && group[0]!.key !== n.key) {
      if (group.length > 1) change(group);
      yield* group;
      group = [];
    }
    group.push(n);
  }
  if (group.length > 1) change(group);
  yield* group;
}

/** Whether two names sorted by byKey are the same. */
function repeats(sorted: Iterable<Name>): boolean {
  let last: string | undefined;
  for (const n of sorted) {
    if (n.key === last) return true;
    last = n.key;
  }
  return false;
}

/** Each item with its place in the list, as often as the list is iterated. */
function indexed<T>(items: Iterable<T>): Iterable<[T, number]> {
  return {
    *[Symbol.iterator]() {
      let i = 0;
      for (const item of items) yield [item, i++];
    },
  };
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
  return Array.from(sessionNames(sessions, max));
}

/**
 * sessionLabels as a list in the sessions' order, the sessions read a few times and never held:
 * the names are compared once sorted by `sorter` (a merge sorts on disk), not in a map of them all.
 */
export function sessionNames(sessions: Iterable<{ id: string; path: string }>, max = Infinity, sorter: Sorter = sortInMemory): Iterable<string> {
  const limit = Math.max(2, Math.floor(max));
  const tooLong = (key: string) => key.length > limit && [...key].length > limit;
  // Noted as the first sort reads them: no pass of its own when no name changes below.
  let anyTooLong = false;
  const first = mapped(indexed(sessions), ([s, i]): Named => {
    const key = sanitize(shortId(s.id));
    anyTooLong ||= tooLong(key);
    return { i, key, id: s.id, path: s.path };
  });
  // In the sessions' order while no two short ids collide (most runs); else in byKey's, sorted back at the end.
  let names: Iterable<Name> = first;
  let inOrder = true;
  let sorted = sorter(first, byKey);
  if (repeats(sorted)) {
    sorted = sorter(
      regrouped(sorted, (g) => {
        const full = g.map((n) => sanitize(n.id));
        g.forEach((n, j) => {
          if (full.indexOf(full[j]!) === full.lastIndexOf(full[j]!)) n.key = full[j]!;
        });
      }),
      byKey,
    );
    sorted = sorter(
      regrouped(sorted, (g) => {
        const tails = distinguishingTails(g.map((n) => sanitize(n.path)));
        g.forEach((n, j) => (n.key = `${tails[j]}:${n.key}`));
      }),
      byKey,
    );
    // Until every name differs: a numbered name could meet an id that already reads so.
    while (repeats(sorted)) sorted = sorter(regrouped(sorted, (g) => g.forEach((n, j) => (n.key = `${n.key}#${j + 1}`))), byKey);
    names = mapped(sorted, (n): Name => ({ i: n.i, key: n.key }));
    inOrder = false;
    anyTooLong = Number.isFinite(max) && some(names, (n) => tooLong(n.key));
  }
  if (Number.isFinite(max) && anyTooLong) {
    names = shortened(names, limit, sorter);
    inOrder = false;
  }
  return mapped(inOrder ? names : sorter(names, (a, b) => a.i - b.i), (n) => n.key);
}

/**
 * The names longer than `limit` cut in the middle. The shortest end of a name that no other name
 * ends with is one more than its longest common end with a neighbour, once the names are sorted by
 * their reversed code points.
 */
function shortened(names: Iterable<Name>, limit: number, sorter: Sorter): Iterable<Name> {
  // Reversed as one string: compared by code units, well-formed strings (sanitized) sort as their code points do.
  const byEnd = sorter(
    mapped(names, (n) => ({ i: n.i, key: n.key, end: [...n.key].reverse().join('') })),
    (a, b) => cmpText(a.end, b.end),
  );
  // A third of the name is kept from its end, more when that is what tells it apart: a longer end
  // than the shortest unique one is unique too, and reads better (`…go-11099`, not `…9`).
  const readableEnd = Math.ceil((limit - 1) / 3);
  const cut = (n: { i: number; key: string; end: string }, before: string | undefined, after: string | undefined): Name => {
    const c = [...n.key];
    if (c.length <= limit) return { i: n.i, key: n.key };
    const reversed = [...n.end];
    const tail = Math.max(before === undefined ? 0 : commonPrefix(reversed, [...before]), after === undefined ? 0 : commonPrefix(reversed, [...after])) + 1;
    // No end of it is its own (it ends another name): only the whole name is.
    if (tail >= c.length) return { i: n.i, key: n.key };
    const end = c.slice(c.length - Math.max(tail, readableEnd));
    const head = c.slice(0, Math.max(0, limit - 1 - end.length));
    return { i: n.i, key: `${head.join('')}…${end.join('')}` };
  };
  return {
    *[Symbol.iterator]() {
      let before: { i: number; key: string; end: string } | undefined;
      let at: { i: number; key: string; end: string } | undefined;
      for (const n of byEnd) {
        if (at !== undefined) yield cut(at, before?.end, n.end);
        before = at;
        at = n;
      }
      if (at !== undefined) yield cut(at, before?.end, undefined);
    },
  };
}

