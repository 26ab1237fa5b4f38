// The page's `--by` section: a small bar chart over time (inline SVG drawn with the page's own
// classes, so the CSP needs nothing new), then the periods' table, the rows the terminal prints.

import type { LedgerReport } from '../../ledger/types.js';
import type { Period } from '../../ledger/periods.js';
import { fmtTokens, fmtUsd } from '../amounts.js';
import { PERIOD_HEADS, periodRow, periodsHeading } from '../times.js';
import { esc, num } from './escape.js';

const WIDTH = 760;
const HEIGHT = 120;
const LEFT = 8;
const BOTTOM = 18;
const TOP = 14;

/** Each period's bar: its cost where any period is priced, else its rounds; the saved part on top of it in the stop colour. */
function chartSvg(periods: readonly Period[]): string {
  const priced = periods.some((p) => p.usd !== null && p.usd > 0);
  const value = (p: Period) => (priced ? (p.usd ?? 0) : p.rounds);
  const saved = (p: Period) => (priced ? (p.saved.usd ?? 0) : p.saved.rounds);
  const max = Math.max(...periods.map(value), 0);
  const slot = (WIDTH - 2 * LEFT) / periods.length;
  const bar = Math.max(2, slot * 0.7);
  const plot = HEIGHT - TOP - BOTTOM;
  const y = (v: number) => (max > 0 ? (v / max) * plot : 0);
  // A label under every bar while they fit, else under every k-th.
  const every = Math.max(1, Math.ceil(periods.length / Math.floor((WIDTH - 2 * LEFT) / 64)));
  const what = priced ? 'list price' : 'rounds';
  const out = [`<svg class="tl" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${esc(`${what} per period, with what Enforce would have saved`)}">`];
  out.push(`<line class="axis" x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH - LEFT}" y2="${HEIGHT - BOTTOM}"/>`);
  periods.forEach((p, i) => {
    const x = LEFT + i * slot + (slot - bar) / 2;
    const h = y(value(p));
    const hs = Math.min(h, y(saved(p)));
    const title = `${p.period}: ${p.sessions} sessions, ${p.rounds} rounds, ${fmtTokens(p.tokens)} tokens, ${fmtUsd(p.usd)}; Enforce would have saved ${p.saved.rounds} rounds`;
    out.push(`<rect class="m-noted" x="${num(x)}" y="${num(HEIGHT - BOTTOM - h)}" width="${num(bar)}" height="${num(h)}"><title>${esc(title)}</title></rect>`);
    if (hs > 0) out.push(`<rect class="m-stop" x="${num(x)}" y="${num(HEIGHT - BOTTOM - h)}" width="${num(bar)}" height="${num(hs)}"><title>${esc(title)}</title></rect>`);
    if (i % every === 0) out.push(`<text class="small" x="${num(x + bar / 2)}" y="${HEIGHT - 4}" text-anchor="middle">${esc(p.period)}</text>`);
  });
  out.push(`<text class="small" x="${LEFT}" y="${TOP - 3}">${esc(`${what} per period (highest ${priced ? fmtUsd(max) : String(max)}); the top part in red: what Enforce would have saved`)}</text>`);
  out.push('</svg>');
  return out.join('');
}

/** The section, one bounded string (a period a row); '' without `--by`. */
export function periodsHtml(report: LedgerReport): string {
  if (report.periods === undefined) return '';
  const head = `<section id="periods">\n<h2>${esc(periodsHeading(report))}</h2>\n`;
  if (report.periods.length === 0) return `${head}<p>No session with times.</p>\n</section>\n`;
  const numeric = (k: string) => k !== 'period' && k !== 'loop';
  const th = PERIOD_HEADS.map(([k, h]) => `<th${numeric(k) ? ' class="n"' : ''} scope="col">${esc(h)}</th>`).join('');
  const rows = report.periods
    .map(periodRow)
    .map((r) => `<tr>${PERIOD_HEADS.map(([k]) => `<td${numeric(k) ? ' class="n"' : k === 'loop' ? ' class="mono"' : ''}>${esc(r[k])}</td>`).join('')}</tr>`)
    .join('\n');
  return `${head}${chartSvg(report.periods)}\n<div class="wrap"><table class="periods"><thead><tr>${th}</tr></thead><tbody>\n${rows}\n</tbody></table></div>\n</section>\n`;
}
