// When sessions ran, as the human formats show it: a session's span on the reader's clock, and the
// `--by` periods as rows (table, markdown and html draw the same rows). JSON keeps UTC instants.

import type { LedgerReport, SessionLedger } from '../ledger/types.js';
import type { Period } from '../ledger/periods.js';
import { shortStamp } from '../ledger/calendar.js';
import { fmtTokens, fmtUsd, NOT_KNOWN } from './amounts.js';
import { preventedAmountCell } from './overview.js';
import { fitColumns, type FitColumn, formatHead, formatRow } from './columns.js';
import { sanitize } from '../sanitize.js';
import { count, wrap } from './text.js';
import type { ChalkInstance } from 'chalk';

const instant = (iso: string | null | undefined): number | null => {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(ms) ? ms : null;
};

/** `2026-11-30 09:05` where the session started, on `zone`'s clock; "–" without times. */
export function startedCell(s: Pick<SessionLedger, 'started_at'>, zone: string): string {
  const ms = instant(s.started_at);
  return ms === null ? NOT_KNOWN : shortStamp(ms, zone);
}

/** `2026-11-30 09:05 → 09:41` (the end's date only when it differs), or null without times. */
export function sessionSpan(s: Pick<SessionLedger, 'started_at' | 'ended_at'>, zone: string): string | null {
  const start = instant(s.started_at);
  if (start === null) return null;
  const end = instant(s.ended_at) ?? start;
  const a = shortStamp(start, zone);
  const b = shortStamp(end, zone);
  return `${a} → ${a.slice(0, 10) === b.slice(0, 10) ? b.slice(11) : b}`;
}

/** One period as a row of cells, shared by the table, markdown and html. */
export interface PeriodRow {
  period: string;
  sessions: string;
  rounds: string;
  findings: string;
  tokens: string;
  cost: string;
  saved: string;
  cut: string;
  /** The costliest loop shape of the period, or "–". */
  loop: string;
}


export function periodRow(p: Period): PeriodRow {
  return {
    period: p.period,
    sessions: count(p.sessions),
    rounds: count(p.rounds),
    findings: count(p.entries),
    tokens: fmtTokens(p.tokens),
    cost: fmtUsd(p.usd),
    saved: preventedAmountCell(p.saved, false),
    cut: preventedAmountCell(p.cut, false),
    loop: p.loop_shapes[0]?.shape ?? NOT_KNOWN,
  };
}

export const PERIOD_HEADS: readonly [keyof PeriodRow, string][] = [
  ['period', 'period'],
  ['sessions', 'sessions'],
  ['rounds', 'rounds'],
  ['findings', 'findings'],
  ['tokens', 'tokens'],
  ['cost', 'cost'],
  ['saved', 'saved'],
  ['cut', 'cut'],
  ['loop', 'costliest loop'],
];

/** The section's heading: `By week (ISO, Europe/Berlin)`, with the sessions left out for want of times. */
export function periodsHeading(report: LedgerReport): string {
  const unit = report.periods_by === 'week' ? 'week (ISO weeks)' : (report.periods_by ?? 'period');
  let dated = 0;
  for (const p of report.periods ?? []) dated += p.sessions;
  const undated = report.summary.sessions - dated;
  return `By ${unit}, ${report.timezone ?? 'UTC'}${undated > 0 ? ` · ${undated} ${undated === 1 ? 'session' : 'sessions'} without times in none` : ''}`;
}

/** `--by`: one aligned row per period, oldest first, under its heading. */
export function periodTableLines(report: LedgerReport, width: number, ch: ChalkInstance): string[] {
  const rows = (report.periods ?? []).map(periodRow);
  const lines = wrap(periodsHeading(report), width, 2).map((l) => ch.bold(l));
  if (rows.length === 0) return [...lines, 'no session with times'];
  const columns: FitColumn<PeriodRow>[] = PERIOD_HEADS.map(([key, head], i) => ({
    head,
    align: key === 'period' || key === 'loop' ? 'left' : 'right',
    // The period and its cost stay longest; the loop's name goes first when space is short.
    priority: key === 'period' ? Infinity : key === 'loop' ? 5 : key === 'cost' ? 90 : 80 - i,
    ...(key === 'loop' ? { min: 12 } : {}),
    text: (r) => sanitize(r[key]),
  }));
  const fitted = fitColumns(columns, rows, width);
  return [...lines, formatHead(fitted, (_c, t) => ch.bold(t)), ...rows.map((r) => formatRow(fitted, r))];
}

/** `--by` in markdown: the heading as a paragraph, then a pipe table of the periods. */
export function periodMarkdownLines(report: LedgerReport, esc: (text: string) => string): string[] {
  const rows = (report.periods ?? []).map(periodRow);
  const pipe = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const lines = [`**${esc(periodsHeading(report))}**`, ''];
  if (rows.length === 0) return [...lines, 'no session with times'];
  lines.push(pipe(PERIOD_HEADS.map(([, h]) => h)), pipe(PERIOD_HEADS.map(([k]) => (k === 'period' || k === 'loop' ? '---' : '---:'))));
  for (const r of rows) lines.push(pipe(PERIOD_HEADS.map(([k]) => esc(r[k]))));
  return lines;
}
