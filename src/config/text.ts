// Plain-text helpers for the calibration commands' tables. Values can come from a config file or
// the command line: callers pass them through `sanitize` (src/sanitize.ts) before they get here.

import { Chalk, type ChalkInstance } from 'chalk';

/** An explicit colour level: the caller has already weighed --no-color, NO_COLOR and the TTY. */
export function painter(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}

export interface Column {
  header: string;
  align?: 'left' | 'right';
}

/**
 * Columns padded to the widest cell, two spaces apart, trailing blanks trimmed. Widths are measured
 * on the plain text and padding stays outside the styling, so colour codes never skew alignment.
 */
export function renderTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  style: (row: number, column: number, text: string) => string = (_r, _c, s) => s,
  headerStyle: (s: string) => string = (s) => s,
): string {
  const widths = columns.map((col, i) => Math.max(col.header.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[], paint: (i: number, s: string) => string) => {
    const out = columns.map((col, i) => {
      const text = cells[i] ?? '';
      const gap = ' '.repeat((widths[i] ?? 0) - text.length);
      const painted = text === '' ? '' : paint(i, text);
      return col.align === 'right' ? gap + painted : painted + gap;
    });
    return out.join('  ').trimEnd();
  };
  const lines = [line(columns.map((c) => c.header), (_i, s) => headerStyle(s))];
  rows.forEach((row, r) => lines.push(line(row, (i, s) => style(r, i, s))));
  return `${lines.join('\n')}\n`;
}
