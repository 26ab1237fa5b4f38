// The overview as the table format prints it: a heading, one aligned row per session with
// findings (worst first), a totals row over every session, and a line of counts. Built for a
// person scanning hundreds of sessions: no borders, the enforce outcome first and coloured, the
// columns that matter kept longest when the terminal is narrow.

import { sessionFindings } from '../ledger/runs.js';
import type { ChalkInstance } from 'chalk';
import type { LedgerReport, SessionLedger } from '../ledger/types.js';
import type { EnforceLevel } from '../vocabulary.js';
import { fitColumns, fittedWidth, formatHead, formatRow, GAP, type FitColumn, type Fitted } from './columns.js';
import { fmtTokens, fmtUsd, NOT_KNOWN } from './amounts.js';
import {
  costCell,
  outcomeCell,
  presentColumns,
  projectCell,
  savedCell,
  cutCell,
  preventedAmountCell,
  sessionNames,
  shortModel,
  tokensCell,
  type OverviewPlan,
  type SessionSort,
} from './overview.js';
import { loopShapeLines } from './loop-shapes.js';
import { startedCell } from './times.js';
import { sanitize } from '../sanitize.js';
import { count, plural, truncateTo, wrap } from './text.js';
import { type Sorter, sortInMemory } from './lists.js';

const SORT_WORDS: Record<SessionSort, string> = {
  level: 'worst first',
  saved: 'most saved by Enforce first',
  cost: 'costliest first',
  path: 'by path',
  date: 'newest first',
};

type Row = { kind: 'session'; s: SessionLedger; name: string } | { kind: 'total'; cells: Record<string, string> };


type KeyedColumn = FitColumn<Row> & { key: string };

/** Session names are cut to a fifth of the width, 12 to 24 columns, in the middle, so they stay
 *  distinct (sessionLabels): at 80 columns the findings still fit beside them. */
const sessionNameColumns = (width: number) => Math.max(12, Math.min(24, Math.floor(width / 5)));

function overviewColumns(present: ReturnType<typeof presentColumns> & { started: boolean }, zone: string): KeyedColumn[] {
  const cell = (key: string, f: (s: SessionLedger, long: boolean) => string) => (r: Row, long: boolean) =>
    r.kind === 'session' ? f(r.s, long) : (r.cells[key] ?? '');
  const cols: KeyedColumn[] = [
    { key: 'enforce', head: 'enforce', align: 'left', priority: Infinity, text: cell('enforce', (s) => outcomeCell(s).text) },
  ];
  if (present.project) {
    cols.push({ key: 'project', head: 'project', align: 'left', priority: 40, min: 10, cut: 'start', text: cell('project', (s) => sanitize(projectCell(s))) });
  }
  cols.push(
    // Never cut further: names are already as short as they can be while distinct.
    { key: 'session', head: 'session', align: 'left', priority: 90, text: (r) => (r.kind === 'session' ? r.name : (r.cells['session'] ?? '')) },
    { key: 'model', head: 'model', align: 'left', priority: 20, min: 10, text: cell('model', (s, long) => sanitize(shortModel(s.model, long))) },
    { key: 'rounds', head: 'rounds', align: 'right', priority: 60, text: cell('rounds', (s) => count(s.rounds)) },
    { key: 'findings', head: 'findings', align: 'right', priority: 30, text: cell('findings', (s) => count(sessionFindings(s))) },
  );
  // When it started tells apart sessions whose names look alike; it gives way before the figures.
  if (present.started) cols.splice(cols.findIndex((c) => c.key === 'model'), 0, { key: 'started', head: 'started', align: 'left', priority: 25, text: cell('started', (s) => startedCell(s, zone)) });
  if (present.tokens) cols.push({ key: 'tokens', head: 'tokens', align: 'right', priority: 10, text: cell('tokens', tokensCell) });
  if (present.cost) cols.push({ key: 'cost', head: 'cost', align: 'right', priority: 50, text: cell('cost', costCell) });
  if (present.saved) cols.push({ key: 'saved', head: 'saved', align: 'right', priority: 70, text: cell('saved', savedCell) });
  // Beside saved, so the trade-off reads in one glance: what a stop would have broken.
  if (present.cut) cols.push({ key: 'cut', head: 'cut', align: 'right', priority: 65, text: cell('cut', cutCell) });
  return cols;
}


/** The totals under the figures' columns; the label spans the text columns to their left. */
function totalsLine(fitted: Fitted<Row>, totals: Record<string, string>, label: string): string {
  const first = fitted.columns.findIndex((c) => c.align === 'right');
  const span = first < 0 ? fitted.columns.length : first;
  let spanWidth = GAP.length * Math.max(0, span - 1);
  for (let i = 0; i < span; i += 1) spanWidth += fitted.widths[i]!;
  const cells: string[] = [truncateTo(label, spanWidth).padEnd(spanWidth)];
  for (let i = span; i < fitted.columns.length; i += 1) {
    const text = truncateTo(totals[fitted.columns[i]!.key ?? ''] ?? '', fitted.widths[i]!);
    cells.push(text.padStart(fitted.widths[i]!));
  }
  return cells.join(GAP).trimEnd();
}

function levelPaint(ch: ChalkInstance, level: EnforceLevel, text: string): string {
  switch (level) {
    case 'stop':
      return ch.red.bold(text);
    case 'steer':
      return ch.yellow(text);
    case 'noted':
      return ch.dim(text);
    default:
      return ch.gray(text);
  }
}

/** The overview block, line by line (the caller joins with newlines). */
export function* overviewLines(
  report: LedgerReport,
  plan: OverviewPlan,
  options: { width: number; sort: SessionSort; top: number; timezone?: string },
  ch: ChalkInstance,
  sorter: Sorter = sortInMemory,
): Generator<string> {
  const { width } = options;
  const all = plan.all;
  const listed = plan.rankedCount;
  const heading =
    listed === 0
      ? `${plural(all, 'session')}, none with findings`
      : `${plural(all, 'session')} · ${count(listed)} with findings, ${SORT_WORDS[options.sort]} · ${count(plan.calm)} calm (not listed)`;
  for (const l of wrap(heading, width, 2)) yield ch.bold(l);
  if (listed === 0) return;
  yield '';
  yield* loopShapeLines(report, width, ch);

  const money = plan.tally.money.totals(report);
  const present = plan.tally.present;
  const names = sessionNames(plan.ranked, sessionNameColumns(width), sorter);
  const cols = overviewColumns(present, options.timezone ?? 'UTC');
  const totals: Record<string, string> = {
    rounds: count(report.summary.rounds),
    findings: count(report.summary.entries),
    tokens: fmtTokens(money.tokens),
    cost: money.usd === undefined ? NOT_KNOWN : fmtUsd(money.usd),
    saved: preventedAmountCell(money.saved, false),
    cut: preventedAmountCell(money.cut, false),
  };
  const totalRow: Row = { kind: 'total', cells: totals };
  // Read as often as they are iterated (twice to fit, once to print): a merge's are on disk.
  const rows: Iterable<Row> = {
    *[Symbol.iterator]() {
      const name = names[Symbol.iterator]();
      for (const s of plan.ranked) yield { kind: 'session', s, name: name.next().value as string };
    },
  };
  const fitted = fitColumns(cols, { *[Symbol.iterator]() { yield* rows; yield totalRow; } }, width);
  yield formatHead(fitted, (_c, t) => ch.bold(t));
  for (const r of rows) {
    const level = r.kind === 'session' ? outcomeCell(r.s).level : 'none';
    yield formatRow(fitted, r, (c, t) => (fitted.columns[c]!.key === 'enforce' ? levelPaint(ch, level, t) : t));
  }
  yield ch.dim('─'.repeat(Math.min(width, fittedWidth(fitted))));
  yield ch.bold(totalsLine(fitted, totals, `all ${plural(all, 'session')}`));

  const n = plan.tally.levels;
  const stopped = report.summary.enforce.sessions_stopped;
  const steered = report.summary.enforce.sessions_steered;
  const counts = [`enforce would stop ${plural(stopped, 'session')} and steer ${steered}`];
  if (n.noted > 0) counts.push(`${n.noted} only noted`);
  counts.push(`${plan.calm} calm`);
  yield* wrap(counts.join(' · '), width, 2);
  if (money.saved !== undefined) {
    const sv = money.saved;
    // An unknown figure is left out of the sentence, not shown as "–".
    const tokens = sv.tokens === null ? '' : `, ${fmtTokens(sv.tokens)} tokens`;
    const usd = sv.usd === null ? '' : `, ${fmtUsd(sv.usd)}`;
    const ct = money.cut;
    const cut = ct === undefined ? '' : ct.rounds === 0 ? ' and cut no new work' : ` and cut ${plural(ct.rounds, 'round')} of new work${ct.usd === null ? '' : `, ${fmtUsd(ct.usd)}`}`;
    yield* wrap(`Enforce would have saved ${plural(sv.rounds, 'round')}${tokens}${usd}${cut}`, width, 2);
  }
  if (money.unpriced > 0) yield* wrap(`${plural(money.unpriced, 'session')} without a price (${NOT_KNOWN}): not in the cost totals`, width, 2);
  const shown = plan.detailedCount;
  const more =
    shown < listed
      ? `${shown === 1 ? 'The first follows' : `The first ${shown} follow`} in full; --top N shows N, --top 0 every session.`
      : `${shown === 1 ? 'It follows' : `All ${shown} follow`} in full.`;
  for (const l of wrap(more, width, 2)) yield ch.dim(l);
}
