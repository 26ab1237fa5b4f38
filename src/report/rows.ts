// The rows of a session's table (issue 56 item 2, "a first screen that fits"): by default one row
// per run of the same finding (same detector, kind, what was repeated and turn), with its rounds
// first–last, its count and the level it reached; with `--all`, one row per round's finding, the
// ledger's runs (ledger/runs.ts) expanded.

import { expandRun, lastRoundOf, roundsOf } from '../ledger/runs.js';
import type { LedgerEntry, TelemetryLevel } from '../ledger/types.js';
import type { Strike } from '../detect/types.js';
import { sanitize } from '../sanitize.js';
import { LEVEL_RANK } from '../vocabulary.js';
import { entryTools } from './text.js';

export interface Row {
  first: LedgerEntry;
  /** The last entry of the row (its last round: lastRoundOf). */
  last: LedgerEntry;
  /** Findings (rounds) in the row. */
  count: number;
  /** The first entry that reached the row's strongest enforce level. */
  top: LedgerEntry;
  telemetry: TelemetryLevel;
  /** Some of its rounds came after a stop. */
  afterStop: boolean;
}

const single = (e: LedgerEntry): Row => ({ first: e, last: e, count: roundsOf(e), top: e, telemetry: e.intervention.telemetry, afterStop: e.after_stop });

/** A tool-batch finding's loop shape (`Bash(npm test)`), else its tools; '' for text findings and
 *  for those that name no batch (no_progress spans a window of different calls). */
function rowShape(e: LedgerEntry): string {
  const tools = entryTools(e);
  if (tools === '') return '';
  return e.shape !== undefined && e.shape !== '' ? sanitize(e.shape) : tools;
}

/**
 * What a tool-batch finding repeated, as a reader names it: the literal call cut short
 * (`Bash(ls -la …/src)`), else its shape. A run groups by shape, so its rows stay one per loop.
 */
export function rowTools(e: LedgerEntry): string {
  const shape = rowShape(e);
  return shape !== '' && e.call !== undefined && e.call !== '' ? sanitize(e.call) : shape;
}

const keyOf = (e: LedgerEntry) => `${e.turn}\u0000${e.detector}\u0000${e.kind}\u0000${rowShape(e)}`;

/**
 * One row per run of the same finding, in the order the runs begin: the same detector, kind and
 * repeated call in one turn, whatever rounds come between (a batch repeated every other round is
 * one run for seed 000 too, its strikes going on).
 */
export function collapsedRows(entries: readonly LedgerEntry[]): Row[] {
  const rows: Row[] = [];
  const open = new Map<string, Row>();
  for (const e of entries) {
    const key = keyOf(e);
    const row = open.get(key);
    if (row !== undefined) {
      row.last = e;
      row.count += roundsOf(e);
      if (LEVEL_RANK[e.intervention.enforce] > LEVEL_RANK[row.top.intervention.enforce]) row.top = e;
      if (e.intervention.telemetry === 'noted') row.telemetry = 'noted';
      row.afterStop ||= e.after_stop;
      continue;
    }
    const fresh = single(e);
    rows.push(fresh);
    open.set(key, fresh);
  }
  return rows;
}

/** `--all`: every round's finding a row of its own. */
export function* everyRow(entries: readonly LedgerEntry[]): Generator<Row> {
  for (const e of entries) for (const x of expandRun(e)) yield single(x);
}

/** The strike at the row's last round. */
function lastStrike(r: Row): Strike | null {
  return r.last.run?.last_strike ?? r.last.strike;
}

/** The first and last strike of a row whose count moved: `2–1999`; else null. */
export function strikeSpan(r: Row): { first: number; last: number } | null {
  const a = r.first.strike;
  const b = lastStrike(r);
  if (a === null || b === null || a.count === b.count) return null;
  return { first: a.count, last: b.count };
}

/** The rounds a row spans. */
export const firstRound = (r: Row) => r.first.round;
export const lastRound = (r: Row) => lastRoundOf(r.last);
