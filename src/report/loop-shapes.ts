// "Loops that cost the most": the first rows of `summary.loop_shapes` (ledger/loop-shapes.ts) as
// the human formats show them, beside the overview of a store. The cells are shared here; the
// terminal block is here too, markdown and html lay the same cells out in their own files.

import type { ChalkInstance } from 'chalk';
import type { LedgerReport, LoopShape } from '../ledger/types.js';
import { fmtTokens, fmtUsd } from './amounts.js';
import { fitColumns, fittedWidth, formatHead, formatRow, type FitColumn } from './columns.js';
import { shortId } from './overview.js';
import { sanitize } from '../sanitize.js';
import { count, wrap } from './text.js';

/** Rows shown: the few that answer "which loop costs me most"; JSON has every one. */
const LOOP_SHAPES_SHOWN = 5;

const LOOP_SHAPES_TITLE = 'Loops that cost the most';

/** The rows to show, worst first, and how many there are in all. */
export function shownLoopShapes(report: LedgerReport): { rows: LoopShape[]; all: number } {
  const all = report.summary.loop_shapes ?? [];
  return { rows: all.slice(0, LOOP_SHAPES_SHOWN), all: all.length };
}

/** What looped: the tool shape, or for text a finding kind with the detector that made it. */
export function loopLabel(l: LoopShape): string {
  return l.detector === 'tool_batch' ? l.shape : `${l.shape} (${l.detector})`;
}

/** The title with how many rows of how many. */
export function loopShapesTitle(shown: number, all: number): string {
  return all > shown ? `${LOOP_SHAPES_TITLE} (top ${shown} of ${all})` : LOOP_SHAPES_TITLE;
}

/** What a row is, in a line. */
export const LOOP_SHAPES_NOTE = 'One row per tool call shape (values ignored) or finding kind, over all sessions';

/** The kind of a tool loop (repeated_batch, recurring_failure…); a text row's label is its kind already. */
export const toolKind = (l: LoopShape) => (l.detector === 'tool_batch' ? l.kind : '');


/** The terminal block: title, note, an aligned table, and a blank line; nothing when no loop was found. */
export function* loopShapeLines(report: LedgerReport, width: number, ch: ChalkInstance): Generator<string> {
  const { rows, all } = shownLoopShapes(report);
  if (rows.length === 0) return;
  yield ch.bold(loopShapesTitle(rows.length, all));
  for (const l of wrap(LOOP_SHAPES_NOTE, width, 2)) yield ch.dim(l);
  const kind: FitColumn<LoopShape> = { head: 'kind', align: 'left', priority: 10, text: (l) => sanitize(toolKind(l)) };
  const cols: FitColumn<LoopShape>[] = [
    { head: 'loop', align: 'left', priority: Infinity, text: (l) => sanitize(loopLabel(l)) },
    { head: 'sessions', align: 'right', priority: 80, text: (l) => count(l.sessions) },
    { head: 'rounds', align: 'right', priority: 60, text: (l) => count(l.rounds) },
    { head: 'tokens', align: 'right', priority: 50, text: (l) => fmtTokens(l.tokens) },
    { head: 'cost', align: 'right', priority: 90, text: (l) => fmtUsd(l.usd) },
    { head: 'worst session', align: 'left', priority: 40, min: 8, text: (l) => sanitize(shortId(l.example.id)) },
  ];
  // The kind is the first to go: cutting the loop's own name to keep it would hide what looped.
  // The loop's name is what the table is for: the worst session's name, then the figures of least
  // weight give way first, and only a name wider than the terminal is cut.
  const withKind = [cols[0]!, kind, ...cols.slice(1)];
  const wide = rows.some((l) => toolKind(l) !== '') ? fitColumns(withKind, rows, width) : null;
  const whole = wide !== null && wide.columns.includes(kind) && fittedWidth(wide) <= width ? wide : fitColumns(cols, rows, width);
  const fitted = fittedWidth(whole) <= width ? whole : fitColumns([{ ...cols[0]!, min: 14 }, ...cols.slice(1)], rows, width);
  yield formatHead(fitted, (_c, t) => ch.bold(t));
  for (const r of rows) yield formatRow(fitted, r);
  yield '';
}


/** The markdown section (heading, note, table, blank line), cells through the caller's escaper. */
export function loopShapeMarkdown(report: LedgerReport, escape: (text: string) => string): string[] {
  const { rows, all } = shownLoopShapes(report);
  if (rows.length === 0) return [];
  const heads = ['loop', 'kind', 'sessions', 'rounds', 'tokens', 'cost', 'worst session'];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    `### ${escape(loopShapesTitle(rows.length, all))}`,
    '',
    escape(`${LOOP_SHAPES_NOTE}.`),
    '',
    line(heads),
    line(['---', '---', '---:', '---:', '---:', '---:', '---']),
    ...rows.map((l) =>
      line([
        escape(loopLabel(l)),
        escape(toolKind(l)),
        count(l.sessions),
        count(l.rounds),
        escape(fmtTokens(l.tokens)),
        escape(fmtUsd(l.usd)),
        escape(shortId(l.example.id)),
      ]),
    ),
    '',
  ];
}
