// `summary.loop_shapes` (SPEC 0.3): the findings of every session added up by what they looped on
// (their `shape`, ledger/loop-shape.ts), costliest first, so that a store of hundreds of sessions
// says in one table which loop costs the most.
//
// A row is one (detector, shape). Its cost is that of the rounds its findings were made on, each
// round once however many findings it carries: the repeats of a loop, not the first call it
// repeats (that one was work). The row is a pure function of the sessions' entries, so `merge`,
// which rebuilds the summary from the shards' sessions, gets exactly what one run gets; dollars
// are added as whole billionths (what round_usage is rounded to), so no order of adding changes
// the last digit either.

import type { DetectorName } from '../detect/types.js';
import { roundsKey, roundsOf, usageOf } from './runs.js';
import type { LedgerEntry, LoopShape, LoopShapeExample, SessionLedger } from './types.js';

const NANO = 1e9;

/** A shape for an entry written without one (a hand-built ledger): the tool names its evidence records. */
function shapeOf(e: LedgerEntry): string {
  if (e.shape !== undefined) return e.shape;
  if (e.detector !== 'tool_batch') return e.kind;
  const tools = e.evidence['tools'];
  return typeof tools === 'string' && tools !== '' ? [...new Set(tools.split(','))].sort().join(' + ') : e.kind;
}

/** Tokens and dollars of some rounds: sums of the known ones, and whether any was known. */
interface Money {
  tokens: number;
  tokensKnown: boolean;
  nanos: number;
  priced: boolean;
}

const noMoney = (): Money => ({ tokens: 0, tokensKnown: false, nanos: 0, priced: false });

function addMoney(m: Money, tokens: number | null | undefined, usd: number | null | undefined): void {
  if (typeof tokens === 'number') {
    m.tokens += tokens;
    m.tokensKnown = true;
  }
  if (typeof usd === 'number') {
    m.nanos += Math.round(usd * NANO);
    m.priced = true;
  }
}

const tokensOf = (m: Money) => (m.tokensKnown ? m.tokens : null);
const usdOf = (m: Money) => (m.priced ? m.nanos / NANO : null);

/** Rounds counted once each, by roundsKey, with the rounds they hold. */
class RoundSet {
  private readonly keys = new Set<number | string>();
  size = 0;

  /** Whether the entry's rounds are new here (then counted). */
  add(e: LedgerEntry): boolean {
    const key = roundsKey(e);
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    this.size += roundsOf(e);
    return true;
  }
}

/** One session's part of one row. */
interface Part {
  rounds: RoundSet;
  kinds: Map<string, RoundSet>;
  money: Money;
}

interface Row {
  shape: string;
  detector: DetectorName;
  sessions: number;
  rounds: number;
  kinds: Map<string, number>;
  money: Money;
  example: LoopShapeExample | null;
}

const cmpText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Larger first; null last. */
const cmpDesc = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a);

/** Costlier first: dollars, tokens, rounds; then path and id, so the choice never depends on order. */
function worseExample(a: LoopShapeExample, b: LoopShapeExample): number {
  return cmpDesc(a.usd, b.usd) || cmpDesc(a.tokens, b.tokens) || b.rounds - a.rounds || cmpText(a.path, b.path) || cmpText(a.id, b.id);
}

/** Worst first: dollars, tokens, rounds, sessions; ties broken by shape, then detector. */
function worseShape(a: LoopShape, b: LoopShape): number {
  return (
    cmpDesc(a.usd, b.usd) ||
    cmpDesc(a.tokens, b.tokens) ||
    b.rounds - a.rounds ||
    b.sessions - a.sessions ||
    cmpText(a.shape, b.shape) ||
    cmpText(a.detector, b.detector)
  );
}

/** Sessions added one at a time, in any order; `shapes()` at the end. */
export class LoopShapeTally {
  private readonly rows = new Map<string, Row>();

  add(session: SessionLedger): void {
    if (session.entries.length === 0) return;
    const parts = new Map<string, Part & { shape: string; detector: DetectorName }>();
    for (const e of session.entries) {
      const shape = shapeOf(e);
      const key = `${e.detector}\u0000${shape}`;
      let part = parts.get(key);
      if (!part) {
        part = { shape, detector: e.detector, rounds: new RoundSet(), kinds: new Map(), money: noMoney() };
        parts.set(key, part);
      }
      let kindRounds = part.kinds.get(e.kind);
      if (!kindRounds) part.kinds.set(e.kind, (kindRounds = new RoundSet()));
      kindRounds.add(e);
      // A round's usage is the same on each of its entries: counted once.
      if (!part.rounds.add(e)) continue;
      const usage = usageOf(e);
      addMoney(part.money, usage?.tokens, usage?.usd);
    }
    for (const [key, part] of parts) {
      let row = this.rows.get(key);
      if (!row) {
        row = { shape: part.shape, detector: part.detector, sessions: 0, rounds: 0, kinds: new Map(), money: noMoney(), example: null };
        this.rows.set(key, row);
      }
      row.sessions += 1;
      row.rounds += part.rounds.size;
      for (const [kind, rounds] of part.kinds) row.kinds.set(kind, (row.kinds.get(kind) ?? 0) + rounds.size);
      addMoney(row.money, tokensOf(part.money), null);
      row.money.nanos += part.money.nanos;
      row.money.priced ||= part.money.priced;
      const example: LoopShapeExample = {
        id: session.id,
        path: session.path,
        project: session.project ?? null,
        rounds: part.rounds.size,
        tokens: tokensOf(part.money),
        usd: usdOf(part.money),
      };
      if (row.example === null || worseExample(example, row.example) < 0) row.example = example;
    }
  }

  /** Every shape seen, worst first. */
  shapes(): LoopShape[] {
    const out: LoopShape[] = [];
    for (const row of this.rows.values()) {
      let kind = '';
      let most = -1;
      for (const [k, n] of row.kinds) {
        if (n > most || (n === most && k < kind)) {
          kind = k;
          most = n;
        }
      }
      out.push({
        shape: row.shape,
        detector: row.detector,
        kind,
        sessions: row.sessions,
        rounds: row.rounds,
        tokens: tokensOf(row.money),
        usd: usdOf(row.money),
        example: row.example!,
      });
    }
    return out.sort(worseShape);
  }
}
