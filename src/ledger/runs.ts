// Runs of the same finding (issue 53 item 12, issue 56 item 2, issue 59 item 2). A loop of a
// million rounds is a million findings that differ only in their round, their line, what the
// round cost and a count that rises by one: the ledger holds such a stretch as ONE entry with a
// `run` (docs/json.md "Runs"), so its memory, its JSON and every format's time follow the number of
// distinct findings, not of rounds, while every round's verdict stays recoverable as a range.
//
// What folds: consecutive rounds of one turn whose findings are the same list, entry for entry,
// but for round, line, round_usage, trace ids, and numbers of `strike` and `evidence` that move by
// the same whole step every round. Anything else (a kind, a level, after_stop, a reminder, a judge
// verdict, a shape) starts a new entry, so every steer and stop transition stays an entry of its
// own. A round's entries fold together, so two runs never half-overlap (loop shapes count each
// round once). Short stretches stay as they were: only past FOLD_AFTER rounds do they fold.

import type { Evidence, EvidenceValue } from '../detect/types.js';
import type { RoundUsage } from '../money/usage.js';
import type { EntryRun, LedgerEntry } from './types.js';

/**
 * A stretch of this many rounds stays one entry per round: the ledgers of fixtures and of most real
 * loops (a stop comes at the third repeat) read as before; a longer stretch folds into one entry.
 */
export const FOLD_AFTER = 8;

/** Rounds (findings) an entry stands for. */
export function roundsOf(e: Pick<LedgerEntry, 'run'>): number {
  return e.run?.count ?? 1;
}

/** The last round an entry stands for. */
export function lastRoundOf(e: Pick<LedgerEntry, 'round' | 'run'>): number {
  return e.run?.last_round ?? e.round;
}

/**
 * The rounds an entry stands for, as a key: its round, or its run's range. A round's entries fold
 * together, so two entries' ranges are the same or apart: a set of keys counts each round once.
 */
export function roundsKey(e: Pick<LedgerEntry, 'round' | 'run'>): number | string {
  return e.run === undefined ? e.round : `${e.round}-${e.run.last_round}`;
}

/** Tokens and dollars of every round an entry stands for. */
export function usageOf(e: Pick<LedgerEntry, 'round_usage' | 'run'>): RoundUsage | undefined {
  return e.run?.usage ?? e.round_usage;
}

/** Findings of a list of entries, each round of a run counted (summary.entries, the overview's findings). */
export function findingsOf(entries: Iterable<Pick<LedgerEntry, 'run'>>): number {
  let n = 0;
  for (const e of entries) n += roundsOf(e);
  return n;
}

/** A number at step `i` of a run going from `first` to `last` in `steps` equal steps. */
const at = (first: number, last: number, steps: number, i: number) => (steps === 0 ? first : first + ((last - first) / steps) * i);

/**
 * The entries of every round a run stands for (`--all`), each as it would have been without
 * folding: counts and moved evidence at their step, the line known only at the run's two ends,
 * round_usage only on its first round (the run keeps the sum).
 */
export function* expandRun(e: LedgerEntry): Generator<LedgerEntry> {
  const run = e.run;
  if (run === undefined) {
    yield e;
    return;
  }
  const { run: _run, ...first } = e;
  const steps = run.count - 1;
  for (let i = 0; i < run.count; i++) {
    if (i === 0) {
      yield first;
      continue;
    }
    const { round_usage: _usage, ...rest } = first;
    const strike = e.strike && run.last_strike ? { ...e.strike, count: at(e.strike.count, run.last_strike.count, steps, i), total: at(e.strike.total, run.last_strike.total, steps, i) } : e.strike;
    let evidence = e.evidence;
    if (run.last_evidence !== undefined) {
      evidence = { ...e.evidence };
      for (const [k, v] of Object.entries(run.last_evidence)) {
        const f = e.evidence[k];
        if (typeof f === 'number' && typeof v === 'number') evidence[k] = at(f, v, steps, i);
      }
    }
    yield { ...rest, round: run.first_round + i, line: i === steps ? run.last_line : null, strike, evidence };
  }
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** The step a number took from `a` to `b`, or null when it may not move (not a whole number). */
function step(a: unknown, b: unknown): number | null {
  if (a === b) return 0;
  return isNumber(a) && isNumber(b) ? b - a : null;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return false;
    if (!sameValue((a as Record<string, unknown>)[ka[i]!], (b as Record<string, unknown>)[kb[i]!])) return false;
  }
  return true;
}

/**
 * Fields that may differ between the rounds of a run (the numbers of strike and evidence aside).
 * `call` is a label of the run's first round: the shape says the rounds repeat one loop.
 */
const FREE = new Set(['round', 'line', 'round_usage', 'trace', 'strike', 'evidence', 'call']);

/**
 * Whether `next` (the round after `prev`) continues the run that began with `first` `count`
 * rounds before it: the same but for the free fields, every moving number by the step it took so far.
 */
function continues(first: LedgerEntry, prev: LedgerEntry, next: LedgerEntry, count: number): boolean {
  const keys = Object.keys(next);
  for (const k of Object.keys(prev)) if (!(k in next)) return false;
  for (const k of keys) {
    if (FREE.has(k)) continue;
    if (!sameValue((prev as unknown as Record<string, unknown>)[k], (next as unknown as Record<string, unknown>)[k])) return false;
  }
  const moves = (a: Record<string, unknown>, p: Record<string, unknown>, n: Record<string, unknown>) => {
    const nk = Object.keys(n);
    if (nk.length !== Object.keys(p).length) return false;
    for (const k of nk) {
      const s = step(p[k], n[k]);
      if (s === null) {
        if (!sameValue(p[k], n[k])) return false;
        continue;
      }
      // The step so far: from the first round to `prev` in count − 1 steps.
      const so = step(a[k], p[k]);
      if (so === null || (count > 1 && so !== s * (count - 1))) return false;
      if (count === 1 && so !== 0) return false;
    }
    return true;
  };
  if ((prev.strike === null) !== (next.strike === null)) return false;
  if (prev.strike && next.strike && first.strike && !moves(first.strike as unknown as Record<string, unknown>, prev.strike as unknown as Record<string, unknown>, next.strike as unknown as Record<string, unknown>)) return false;
  return moves(first.evidence, prev.evidence, next.evidence);
}

const NANO = 1e9;

/** Sums round usage as loop shapes do: tokens that are known, dollars as whole billionths. */
class UsageSum {
  private tokens = 0;
  private tokensKnown = false;
  private nanos = 0;
  private priced = false;
  private any = false;

  add(u: RoundUsage | undefined): void {
    if (u === undefined) return;
    this.any = true;
    if (u.tokens !== null) {
      this.tokens += u.tokens;
      this.tokensKnown = true;
    }
    if (u.usd !== null) {
      this.nanos += Math.round(u.usd * NANO);
      this.priced = true;
    }
  }

  total(): RoundUsage | undefined {
    return this.any ? { tokens: this.tokensKnown ? this.tokens : null, usd: this.priced ? this.nanos / NANO : null } : undefined;
  }
}

interface OpenRun {
  /** Index in the session's entries of the run's first round's first entry. */
  at: number;
  first: LedgerEntry[];
  prev: LedgerEntry[];
  count: number;
  lastRound: number;
  turn: number;
  /** Once folded: each entry's running usage. */
  sums: UsageSum[] | null;
}

/** Folds a session's entries as rounds add them (ledger/build.ts, one per session). */
export class RunFolder {
  private open: OpenRun | null = null;

  constructor(private readonly foldAfter = FOLD_AFTER) {}

  /** The entries of round `round` of turn `turn` (none: the run ends), appended to `entries` or folded into its open run. */
  add(entries: LedgerEntry[], added: readonly LedgerEntry[], round: number, turn: number): void {
    const o = this.open;
    if (added.length === 0) {
      this.open = null;
      return;
    }
    if (o !== null && round === o.lastRound + 1 && turn === o.turn && added.length === o.first.length && added.every((e, i) => continues(o.first[i]!, o.prev[i]!, e, o.count))) {
      o.count += 1;
      o.lastRound = round;
      o.prev = [...added];
      if (o.sums !== null) this.extend(o);
      else {
        entries.push(...added);
        if (o.count > this.foldAfter) this.fold(entries, o);
      }
      return;
    }
    entries.push(...added);
    this.open = { at: entries.length - added.length, first: [...added], prev: [...added], count: 1, lastRound: round, turn, sums: null };
  }

  /** The rounds so far become one entry per finding of a round, each with its run. */
  private fold(entries: LedgerEntry[], o: OpenRun): void {
    const width = o.first.length;
    o.sums = o.first.map(() => new UsageSum());
    for (let i = o.at; i < entries.length; i++) o.sums[(i - o.at) % width]!.add(entries[i]!.round_usage);
    entries.length = o.at + width;
    o.first.forEach((e, i) => {
      e.run = { first_round: e.round, last_round: e.round, count: 1, last_line: e.line };
      this.settle(e, o.prev[i]!, o, o.sums![i]!);
    });
  }

  private extend(o: OpenRun): void {
    o.first.forEach((e, i) => {
      o.sums![i]!.add(o.prev[i]!.round_usage);
      this.settle(e, o.prev[i]!, o, o.sums![i]!);
    });
  }

  /** The run's fields as of its last round, `last`. */
  private settle(e: LedgerEntry, last: LedgerEntry, o: OpenRun, sum: UsageSum): void {
    const run: EntryRun = { first_round: e.round, last_round: o.lastRound, count: o.count, last_line: last.line };
    if (last.strike !== null) run.last_strike = { ...last.strike };
    const moved: Evidence = {};
    let anyMoved = false;
    for (const [k, v] of Object.entries(last.evidence) as [string, EvidenceValue][]) {
      if (v !== e.evidence[k]) {
        moved[k] = v;
        anyMoved = true;
      }
    }
    if (anyMoved) run.last_evidence = moved;
    const usage = sum.total();
    if (usage !== undefined) run.usage = usage;
    e.run = run;
  }
}
