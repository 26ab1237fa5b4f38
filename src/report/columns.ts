// Plain aligned columns (no borders) that fit a terminal width: the overview of many sessions and
// `loopledger config` use it. Each column says how it may give way: a compact variant of its text,
// a minimum width it can be cut to (from the end, or from the start where the end says more, as
// for a project path), and its priority when a column has to go.

import { displayWidth, truncateTo } from './text.js';

export interface FitColumn<R> {
  /** A name for the caller to find the column by (heads may repeat or change). */
  key?: string;
  head: string;
  align: 'left' | 'right';
  /** Columns are dropped lowest first when cutting is not enough; Infinity is never dropped. */
  priority: number;
  /** Cut to no fewer than this many columns when space is short; absent: never cut. */
  min?: number;
  /** Which end a cut keeps: `end` keeps the start (`claude-sonn…`), `start` keeps the end (`…src-app`). */
  cut?: 'end' | 'start';
  /** The cell; `long` false asks for the compact variant (default: the same text). */
  text: (row: R, long: boolean) => string;
}

export interface Fitted<R> {
  columns: FitColumn<R>[];
  widths: number[];
  long: boolean;
}

export const GAP = '  ';

/** Each column's natural width, long and compact: one pass over the rows for all of them. */
function naturalWidths<R>(cols: readonly FitColumn<R>[], rows: Iterable<R>): { long: Map<FitColumn<R>, number>; compact: Map<FitColumn<R>, number> } {
  const long = cols.map((c) => displayWidth(c.head));
  const compact = [...long];
  for (const r of rows) {
    for (let i = 0; i < cols.length; i += 1) {
      const l = displayWidth(cols[i]!.text(r, true));
      if (l > long[i]!) long[i] = l;
      const c = displayWidth(cols[i]!.text(r, false));
      if (c > compact[i]!) compact[i] = c;
    }
  }
  return { long: new Map(cols.map((c, i) => [c, long[i]!])), compact: new Map(cols.map((c, i) => [c, compact[i]!])) };
}

const total = (widths: readonly number[]) => widths.reduce((a, w) => a + w, 0) + GAP.length * Math.max(0, widths.length - 1);

const floor = <R>(c: FitColumn<R>) => (c.min === undefined ? Infinity : Math.max(c.min, displayWidth(c.head)));

/** Cut flexible columns one column at a time, always the widest, until the total fits; returns whether it does. */
function shrink<R>(cols: readonly FitColumn<R>[], widths: number[], width: number): boolean {
  for (let over = total(widths) - width; over > 0; over -= 1) {
    let best = -1;
    for (let i = 0; i < cols.length; i += 1) {
      if (widths[i]! > floor(cols[i]!) && (best < 0 || widths[i]! > widths[best]!)) best = i;
    }
    if (best < 0) return false;
    widths[best] = widths[best]! - 1;
  }
  return true;
}

/**
 * The widest layout that fits: long texts, then compact ones, then flexible columns cut, then
 * columns dropped by priority (cutting again after each drop). Rows are read once, both texts
 * measured, so they may be a list read from disk (a merge's sessions).
 */
export function fitColumns<R>(all: readonly FitColumn<R>[], rows: Iterable<R>, width: number): Fitted<R> {
  const { long, compact } = naturalWidths(all, rows);
  const longWidths = all.map((c) => long.get(c)!);
  if (total(longWidths) <= width) return { columns: [...all], widths: longWidths, long: true };
  const widthsOf = (cols: readonly FitColumn<R>[]) => cols.map((c) => compact.get(c)!);
  if (total(widthsOf(all)) <= width) return { columns: [...all], widths: widthsOf(all), long: false };
  let cols = [...all];
  for (;;) {
    const widths = widthsOf(cols);
    if (shrink(cols, widths, width) || cols.length <= 1) return { columns: cols, widths, long: false };
    let drop = -1;
    for (let i = 0; i < cols.length; i += 1) {
      if (cols[i]!.priority !== Infinity && (drop < 0 || cols[i]!.priority < cols[drop]!.priority)) drop = i;
    }
    if (drop < 0) return { columns: cols, widths, long: false };
    cols = cols.filter((_, i) => i !== drop);
  }
}

function cutTo(text: string, width: number, from: 'end' | 'start'): string {
  if (displayWidth(text) <= width) return text;
  if (from === 'end') return truncateTo(text, width);
  const reversed = [...text].reverse().join('');
  const kept = truncateTo(reversed, width);
  // truncateTo ends its cut with `…`; reversed back, the ellipsis leads.
  return [...kept].reverse().join('');
}

/** One line: each cell cut to its width, padded outside `paint` so colour never skews alignment. */
function formatCells<R>(
  fitted: Fitted<R>,
  cells: readonly string[],
  paint: (column: number, text: string) => string = (_c, t) => t,
): string {
  const out = fitted.columns.map((c, i) => {
    const w = fitted.widths[i]!;
    const text = cutTo(cells[i] ?? '', w, c.cut ?? 'end');
    const gap = ' '.repeat(Math.max(0, w - displayWidth(text)));
    const painted = text === '' ? '' : paint(i, text);
    return c.align === 'right' ? gap + painted : painted + gap;
  });
  return out.join(GAP).trimEnd();
}

export function formatRow<R>(fitted: Fitted<R>, row: R, paint?: (column: number, text: string) => string): string {
  return formatCells(fitted, fitted.columns.map((c) => c.text(row, fitted.long)), paint);
}

export function formatHead<R>(fitted: Fitted<R>, paint?: (column: number, text: string) => string): string {
  return formatCells(fitted, fitted.columns.map((c) => c.head), paint);
}

/** Visible width of the fitted table. */
export function fittedWidth<R>(fitted: Fitted<R>): number {
  return total(fitted.widths);
}
