// `sweep --format html`: the swept values against the sessions that fire, steer and stop and, with
// labels, precision, recall and false-positive rate as lines, the recommended value marked and the
// `--max-fpr` bound drawn; the sweep's table under the charts. With two keys, one pair of charts
// per value of the first (at most MAX_SWEEP_CHARTS), the second along the axis.

import type { SweepValue } from '../../calibrate/param.js';
import type { PreventedTotal } from '../../ledger/summary.js';
import { fmtTokens, fmtUsd } from '../amounts.js';
import type { SweepPoint, SweepResult } from '../../calibrate/sweep.js';
import { count } from '../text.js';
import { esc, num } from './escape.js';
import { pageHead, pageTail } from './shell.js';

const MAX_SWEEP_CHARTS = 24;
/** Table rows at most (a grid can hold 10,000 points). */
const MAX_ROWS = 2000;

const W = 900;
const L = 56;
const R = 150;
const T = 22;
const H = 180;
const B = 38;

interface Series {
  cls: string;
  label: string;
  value: (p: SweepPoint) => number | null;
}

/** `67 · $0.28` or `67 · 530k tok`: rounds, and their price or else tokens when known (`–` for a partial written before 0.3). */
export function preventedCell(p: PreventedTotal | undefined): string {
  if (p === undefined) return '–';
  if (p.rounds === 0) return '0';
  if (p.usd !== null) return `${p.rounds} · ${fmtUsd(p.usd)}`;
  return p.tokens !== null ? `${p.rounds} · ${fmtTokens(p.tokens)} tok` : String(p.rounds);
}

function value(v: SweepValue | undefined): string {
  return v === null || v === undefined ? 'none' : String(v);
}

function rate(v: number | null | undefined): string {
  return v === null || v === undefined ? '–' : v.toFixed(3);
}

/** One chart: `points` along x (labelled by `key`), each series a line with a dot per point. */
function chart(opts: {
  title: string;
  points: { point: SweepPoint; index: number }[];
  key: string;
  series: Series[];
  max: number;
  percent: boolean;
  recommended: number;
  bound: number | null;
}): string {
  const { points, series, max } = opts;
  const n = points.length;
  const x = (i: number) => L + (n === 1 ? (W - L - R) / 2 : (i / (n - 1)) * (W - L - R));
  const y = (v: number) => T + H - (max > 0 ? (v / max) * H : 0);
  const out: string[] = [];
  out.push(`<svg class="tl" viewBox="0 0 ${W} ${T + H + B}" role="img" aria-label="${esc(opts.title)}">`);
  out.push(`<line class="axis" x1="${L}" y1="${T + H}" x2="${W - R}" y2="${T + H}"/><line class="axis" x1="${L}" y1="${T}" x2="${L}" y2="${T + H}"/>`);
  for (let k = 0; k <= 4; k++) {
    const v = (max * k) / 4;
    const yy = num(y(v));
    const label = opts.percent ? v.toFixed(2) : Number.isInteger(v) ? String(v) : v.toFixed(1);
    out.push(`<line class="tick" x1="${L - 4}" y1="${yy}" x2="${W - R}" y2="${yy}"/><text x="${L - 7}" y="${num(y(v) + 4)}" text-anchor="end">${label}</text>`);
  }
  const every = Math.max(1, Math.ceil(n / 12));
  points.forEach(({ point }, i) => {
    if (i % every !== 0 && i !== n - 1) return;
    out.push(`<text x="${num(x(i))}" y="${T + H + 15}" text-anchor="middle">${esc(value(point.values[opts.key]))}</text>`);
  });
  out.push(`<text x="${num((L + W - R) / 2)}" y="${T + H + 32}" text-anchor="middle">${esc(opts.key)}</text>`);
  if (opts.bound !== null) {
    const yy = num(y(opts.bound));
    out.push(`<line class="bound" x1="${L}" y1="${yy}" x2="${W - R}" y2="${yy}"><title>${esc(`--max-fpr ${opts.bound}`)}</title></line>`);
    out.push(`<text x="${W - R + 6}" y="${num(y(opts.bound) + 4)}">max FPR ${esc(String(opts.bound))}</text>`);
  }
  const rec = points.findIndex(({ index }) => index === opts.recommended);
  if (rec >= 0) {
    const xx = num(x(rec));
    out.push(`<line class="rec" x1="${xx}" y1="${T - 6}" x2="${xx}" y2="${T + H}"><title>recommended</title></line>`);
    out.push(`<text x="${num(x(rec))}" y="${T - 9}" text-anchor="middle">recommended</text>`);
  }
  series.forEach((s, k) => {
    const pts: string[] = [];
    const dots: string[] = [];
    points.forEach(({ point }, i) => {
      const v = s.value(point);
      if (v === null) return;
      pts.push(`${num(x(i))},${num(y(v))}`);
      dots.push(
        `<circle class="dot d-${s.cls.slice(2)}" cx="${num(x(i))}" cy="${num(y(v))}" r="3"><title>${esc(`${opts.key}=${value(point.values[opts.key])}: ${s.label} ${opts.percent ? v.toFixed(3) : v}`)}</title></circle>`,
      );
    });
    if (pts.length > 1) out.push(`<polyline class="${s.cls}" points="${pts.join(' ')}"/>`);
    if (n <= 120) out.push(...dots);
    const ly = T + 10 + k * 16;
    out.push(`<line class="${s.cls}" x1="${W - R + 8}" y1="${ly + 20}" x2="${W - R + 26}" y2="${ly + 20}"/><text x="${W - R + 30}" y="${ly + 24}">${esc(s.label)}</text>`);
  });
  out.push('</svg>');
  return out.join('');
}

export function sweepHtml(result: SweepResult): string {
  const keys = result.params.map((p) => p.key);
  const labeled = result.labels !== null;
  const best = result.recommended?.index ?? -1;
  const parts: string[] = [];
  parts.push(pageHead(`loopledger sweep of ${keys.join(' × ')}`, false));
  const sessions = result.points[0]?.sessions ?? 0;
  const rounds = result.points[0]?.rounds ?? 0;
  parts.push(`<header><h1>sweep of <span class="mono">${esc(keys.join(' × '))}</span></h1>`);
  parts.push(`<p class="muted">${result.points.length} points · ${sessions} sessions · ${rounds} rounds · every point replays the whole corpus under enforce</p>`);
  if (labeled) parts.push(`<p class="muted">a labeled session or file counts as flagged when it reaches <b>${esc(result.positive)}</b> under enforce</p>`);
  if (result.recommended) {
    const r = result.recommended;
    const assign = Object.entries(r.values).map(([k, v]) => `${k}=${value(v)}`).join(' ');
    parts.push(`<p><b>recommended: <span class="mono">${esc(assign)}</span></b> (recall ${rate(r.recall)}, FPR ${rate(r.fpr)} ≤ ${esc(String(result.max_fpr))}, precision ${rate(r.precision)})</p>`);
  } else if (result.note && (labeled || result.max_fpr !== null)) {
    parts.push(`<p>no recommendation: ${esc(result.note)}</p>`);
  }
  parts.push('</header>');

  // Groups: one for a single key; one per value of the first key for a grid of two.
  const groups: { title: string; points: { point: SweepPoint; index: number }[] }[] = [];
  const indexed = result.points.map((point, index) => ({ point, index }));
  const axisKey = keys.length === 2 ? keys[1]! : keys[0]!;
  if (keys.length === 2) {
    const outer = keys[0]!;
    const byOuter = new Map<string, { point: SweepPoint; index: number }[]>();
    for (const p of indexed) {
      const k = value(p.point.values[outer]);
      if (!byOuter.has(k)) byOuter.set(k, []);
      byOuter.get(k)!.push(p);
    }
    for (const [k, pts] of byOuter) groups.push({ title: `${outer}=${k}`, points: pts });
  } else {
    groups.push({ title: '', points: indexed });
  }
  // Whole sessions on the axis: four equal integer steps.
  const maxSessions = 4 * Math.max(1, Math.ceil(sessions / 4));
  for (const g of groups.slice(0, MAX_SWEEP_CHARTS)) {
    parts.push('<section class="session">');
    if (g.title) parts.push(`<h3 class="mono">${esc(g.title)}</h3>`);
    parts.push('<p class="meta">sessions (of all swept) that fire, steer and stop under enforce</p>');
    parts.push(
      chart({
        title: `sessions per value of ${axisKey}`,
        points: g.points,
        key: axisKey,
        max: maxSessions,
        percent: false,
        recommended: best,
        bound: null,
        series: [
          { cls: 'l-fired', label: 'fired', value: (p) => p.fired.sessions },
          { cls: 'l-steer', label: 'steered', value: (p) => p.steered.sessions },
          { cls: 'l-stop', label: 'stopped', value: (p) => p.stopped.sessions },
        ],
      }),
    );
    if (labeled) {
      parts.push('<p class="meta">against the labels</p>');
      parts.push(
        chart({
          title: `precision, recall and false-positive rate per value of ${axisKey}`,
          points: g.points,
          key: axisKey,
          max: 1,
          percent: true,
          recommended: best,
          bound: result.max_fpr,
          series: [
            { cls: 'l-precision', label: 'precision', value: (p) => p.metrics?.precision ?? null },
            { cls: 'l-recall', label: 'recall', value: (p) => p.metrics?.recall ?? null },
            { cls: 'l-fpr', label: 'false-positive rate', value: (p) => p.metrics?.fpr ?? null },
          ],
        }),
      );
    }
    parts.push('</section>');
  }
  if (groups.length > MAX_SWEEP_CHARTS) parts.push(`<p class="more">${count(groups.length - MAX_SWEEP_CHARTS)} more values of ${esc(keys[0])} not drawn; the table lists every point.</p>`);

  // The table, as the terminal prints it.
  const heads = [...keys, 'fired', 'steered', 'stopped', 'saved', 'cut', ...(labeled ? ['TP', 'FP', 'TN', 'FN', 'precision', 'recall', 'FPR'] : []), ''];
  parts.push(`<h2>Every point</h2><div class="wrap"><table><thead><tr>${heads.map((h) => `<th class="n">${esc(h)}</th>`).join('')}</tr></thead><tbody>`);
  result.points.slice(0, MAX_ROWS).forEach((p, i) => {
    const cells = [...keys.map((k) => value(p.values[k])), `${p.fired.sessions} / ${p.fired.rounds}`, `${p.steered.sessions} / ${p.steered.rounds}`, `${p.stopped.sessions} / ${p.stopped.rounds}`, preventedCell(p.saved), preventedCell(p.cut)];
    if (labeled) {
      const m = p.metrics;
      cells.push(String(m?.tp ?? '–'), String(m?.fp ?? '–'), String(m?.tn ?? '–'), String(m?.fn ?? '–'), rate(m?.precision), rate(m?.recall), rate(m?.fpr));
    }
    cells.push(i === best ? '← recommended' : '');
    parts.push(`<tr>${cells.map((c) => `<td class="n">${i === best ? `<b>${esc(c)}</b>` : esc(c)}</td>`).join('')}</tr>`);
  });
  parts.push('</tbody></table></div>');
  if (result.points.length > MAX_ROWS) parts.push(`<p class="more">${result.points.length - MAX_ROWS} more points not listed (sweep --format json has them all).</p>`);
  parts.push('<p class="muted small">fired: sessions / rounds with any entry; steered, stopped: sessions / rounds under enforce; saved: rounds the stops prevent while still in the loop; cut: rounds after the agent had recovered.</p>');
  if (result.labels) {
    const unlabeled = result.points[0]?.metrics?.unlabeled_sessions ?? 0;
    parts.push(`<p class="muted small">labels: ${result.labels.loop} loop, ${result.labels.clean} clean; ${unlabeled} unlabeled sessions counted above but not in the metrics</p>`);
    if (result.labels.unmatched.length > 0) parts.push(`<p class="muted small">labels that matched no session: ${result.labels.unmatched.map(esc).join(', ')}</p>`);
  }
  parts.push(pageTail(false));
  return parts.join('\n');
}
