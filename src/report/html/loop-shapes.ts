// The page's "Loops that cost the most": the first rows of summary.loop_shapes, each worst session
// linked to its timeline when the page draws it.

import type { LedgerReport } from '../../ledger/types.js';
import { fmtTokens, fmtUsd } from '../amounts.js';
import { count } from '../text.js';
import { LOOP_SHAPES_NOTE, loopLabel, loopShapesTitle, shownLoopShapes, toolKind } from '../loop-shapes.js';
import { shortId } from '../overview.js';
import { esc } from './escape.js';

/** Key of a session in `anchors`: its path and id (an id alone may repeat across files). */
export const sessionKey = (path: string, id: string) => `${path}\u0000${id}`;

/** The section, one bounded string; '' when no loop was found. `anchors`: drawn sessions' element ids. */
export function loopShapesHtml(report: LedgerReport, anchors: ReadonlyMap<string, string>): string {
  const { rows, all } = shownLoopShapes(report);
  if (rows.length === 0) return '';
  const th = (h: string, n = false) => `<th${n ? ' class="n"' : ''} scope="col">${h}</th>`;
  const td = (t: string, cls = '') => `<td${cls ? ` class="${cls}"` : ''}>${t}</td>`;
  const body = rows
    .map((l) => {
      const id = esc(shortId(l.example.id));
      const href = anchors.get(sessionKey(l.example.path, l.example.id));
      const example = `<span class="mono" title="${esc(`${l.example.id} · ${l.example.path}`)}">${href === undefined ? id : `<a href="#${esc(href)}">${id}</a>`}</span>`;
      return (
        '<tr>' +
        td(esc(loopLabel(l)), 'mono') +
        td(esc(toolKind(l))) +
        td(count(l.sessions), 'n') +
        td(count(l.rounds), 'n') +
        td(esc(fmtTokens(l.tokens)), 'n') +
        td(esc(fmtUsd(l.usd)), 'n') +
        td(example) +
        '</tr>'
      );
    })
    .join('\n');
  return (
    `<section id="loop-shapes">\n<h2>${esc(loopShapesTitle(rows.length, all))}</h2>\n<p class="muted small">${esc(LOOP_SHAPES_NOTE)}.</p>\n` +
    `<div class="wrap"><table class="loop-shapes"><thead><tr>${th('loop')}${th('kind')}${th('sessions', true)}${th('rounds', true)}${th('tokens', true)}${th('cost', true)}${th('worst session')}</tr></thead><tbody>\n${body}\n</tbody></table></div>\n</section>\n`
  );
}
