// One session as a picture: rounds along the axis, one lane per detector, a mark per finding
// coloured by what Enforce would have done (its kind and figures on hover, in an SVG <title>),
// dashed lines where a user turn begins, the rounds a stop would have saved shaded, and the
// session's cumulative spend as a line under the lanes. Bounded: however long the session, at
// most MAX_COLUMNS marks per lane (findings in one column are merged into one mark that lists
// them), MAX_TURN_LINES turn lines and the ledger's sampled spend curve.

import { lastRoundOf, roundsOf } from '../../ledger/runs.js';
import type { EnforceSaved, LedgerEntry, SessionLedger } from '../../ledger/types.js';
import { LEVEL_RANK, type EnforceLevel } from '../../vocabulary.js';
import { fmtTokens, fmtUsd } from '../amounts.js';
import { entryTools, fmtConfidence, fmtStrike, plural } from '../text.js';
import { esc, num } from './escape.js';

const WIDTH = 1000;
const LEFT = 86;
const RIGHT = 62;
const PLOT = WIDTH - LEFT - RIGHT;
const TOP = 16;
const LANE_H = 16;
const LANE_GAP = 4;
const COST_H = 26;
const AXIS_H = 18;

/** Marks per lane at most: about 2.5 viewBox units each, below that they would only overlap. */
export const MAX_COLUMNS = 300;
/** Turn lines at most; past that they are a grey wash, so the title says how many there were. */
const MAX_TURN_LINES = 400;
/** Width of a character of a turn label (12px sans-serif digits, with room to spare), and the gap kept after one. */
const LABEL_CHAR = 8;
const LABEL_GAP = 4;
/** More turns than this are drawn as ticks above the lanes, not lines across them. */
const DENSE_TURNS = 30;
/** Findings listed in one mark's title. */
const TITLE_FINDINGS = 6;

const LANES = [
  { detector: 'tool_batch', label: 'tool batch' },
  { detector: 'output', label: 'output' },
  { detector: 'thinking', label: 'thinking' },
] as const;

/** The level a finding is drawn in: a round after a stop would not have happened under Enforce. */
function drawnLevel(e: LedgerEntry): EnforceLevel | 'after' {
  return e.after_stop ? 'after' : e.intervention.enforce;
}

const RANK: Record<EnforceLevel | 'after', number> = { after: -1, ...LEVEL_RANK };

function findingText(e: LedgerEntry): string {
  const tools = entryTools(e);
  const parts = [`round ${e.round} (turn ${e.turn})`, `${e.detector} ${e.kind}`];
  if (tools) parts.push(tools);
  const strike = fmtStrike(e.strike, e.kind);
  if (strike) parts.push(strike);
  if (e.confidence !== null) parts.push(`confidence ${fmtConfidence(e.confidence)}`);
  parts.push(e.after_stop ? 'after a stop: would not have happened' : `enforce ${e.intervention.enforce}`);
  const usd = e.round_usage?.usd;
  if (usd !== null && usd !== undefined) parts.push(`round ${fmtUsd(usd)}`);
  return parts.join(' · ');
}

interface Column {
  level: EnforceLevel | 'after';
  first: number;
  last: number;
  entries: LedgerEntry[];
  count: number;
}

/** Where a stop's saved rounds end: the round before the next turn, else the session's last. */
function savedSpans(s: SessionLedger): { from: number; to: number; turn: number; recoveredAt?: number }[] {
  const stops = s.outcome.enforce.stops;
  if (stops.length === 0) return [];
  const starts = s.timeline?.turn_starts;
  const spans: { from: number; to: number; turn: number; recoveredAt?: number }[] = [];
  for (const stop of stops) {
    let to: number;
    if (starts) {
      const next = starts.find(([, r]) => r > stop.round);
      to = next ? next[1] - 1 : s.rounds;
    } else if (stops.length === 1 && s.outcome.enforce.saved) {
      // One stop: everything Enforce saved or cut follows it in its turn.
      to = stop.round + s.outcome.enforce.saved.rounds + (s.outcome.enforce.cut?.rounds ?? 0);
    } else {
      // Without turn boundaries, at least the rounds after the stop that carry findings.
      to = stop.round;
      for (const e of s.entries) if (e.turn === stop.turn && lastRoundOf(e) > to) to = lastRoundOf(e);
    }
    if (to > stop.round) {
      spans.push({ from: stop.round + 1, to: Math.min(to, s.rounds), turn: stop.turn, ...(stop.recovered_at !== undefined ? { recoveredAt: stop.recovered_at } : {}) });
    }
  }
  return spans;
}

function niceStep(span: number, ticks: number): number {
  const raw = Math.max(1, span / ticks);
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/** The session's timeline, one `<svg>` element (a bounded string). */
export function timelineSvg(s: SessionLedger): string {
  const rounds = Math.max(1, s.rounds, ...s.entries.slice(-1).map((e) => lastRoundOf(e)));
  const cols = Math.min(MAX_COLUMNS, rounds);
  const perCol = rounds / cols;
  const colOf = (round: number) => Math.min(cols - 1, Math.floor((round - 1) / perCol));
  const x = (round: number) => LEFT + ((round - 1) / rounds) * PLOT; // left edge of a round
  const spend = s.timeline?.spend ?? [];
  const last = spend.at(-1);
  const dollars = last !== undefined && last[2] !== null && last[2] > 0;
  const tokens = !dollars && last !== undefined && last[1] > 0;
  const costBand = dollars || tokens;
  const lanesBottom = TOP + LANES.length * (LANE_H + LANE_GAP);
  const height = lanesBottom + (costBand ? COST_H + 4 : 0) + AXIS_H;
  const out: string[] = [];
  out.push(
    `<svg class="tl" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="timeline of ${esc(plural(rounds, 'round'))}, ${esc(plural(s.entries.length, 'finding'))}">`,
  );

  // Lanes first, under everything.
  LANES.forEach((lane, i) => {
    const y = TOP + i * (LANE_H + LANE_GAP);
    out.push(`<rect class="lane" x="${LEFT}" y="${y}" width="${PLOT}" height="${LANE_H}"/>`);
    out.push(`<text x="${LEFT - 6}" y="${y + LANE_H - 4}" text-anchor="end">${lane.label}</text>`);
  });

  // The rounds a stop would have prevented: saved while still in the loop, cut once the agent had
  // recovered (a shade of its own: what the stop would have broken).
  const single = s.outcome.enforce.stops.length === 1;
  const figures = (p: EnforceSaved | undefined) =>
    p && single ? ` (${[p.tokens !== null ? `${fmtTokens(p.tokens)} tokens` : null, p.usd !== null ? fmtUsd(p.usd) : null].filter(Boolean).join(', ')})` : '';
  const shade = (cls: 'saved' | 'cut', from: number, to: number, title: string) => {
    const x0 = x(from);
    const w = Math.max(1.5, x(to + 1) - x0);
    out.push(`<rect class="${cls}" x="${num(x0)}" y="${TOP - 4}" width="${num(w)}" height="${lanesBottom - TOP + 2}"><title>${esc(title)}</title></rect>`);
  };
  for (const span of savedSpans(s)) {
    const cutFrom = span.recoveredAt !== undefined && span.recoveredAt >= span.from && span.recoveredAt <= span.to ? span.recoveredAt : null;
    const savedTo = cutFrom === null ? span.to : cutFrom - 1;
    if (savedTo >= span.from) {
      const money = figures(s.outcome.enforce.saved);
      shade('saved', span.from, savedTo, `rounds ${span.from}–${savedTo}: Enforce would have ended turn ${span.turn} before them; saved ${plural(savedTo - span.from + 1, 'round')}${money}, still in the loop`);
    }
    if (cutFrom !== null) {
      const money = figures(s.outcome.enforce.cut);
      shade('cut', cutFrom, span.to, `rounds ${cutFrom}–${span.to}: the agent had recovered at round ${cutFrom}; Enforce would have cut ${plural(span.to - cutFrom + 1, 'round')} of new work${money}`);
    }
  }

  // Turn boundaries (the first turn's start is the axis itself).
  const starts = s.timeline?.turn_starts ?? [];
  if (starts.length > 1) {
    // Past DENSE_TURNS, full-height lines would hide the marks: ticks above the lanes instead.
    const dense = starts.length - 1 > DENSE_TURNS;
    const step = Math.ceil((starts.length - 1) / MAX_TURN_LINES);
    for (let i = 1; i < starts.length; i += step) {
      const [turn, round] = starts[i]!;
      const tx = num(x(round));
      const [cls, y2] = dense ? ['turn-tick', TOP - 1] : ['turn', lanesBottom];
      out.push(`<line class="${cls}" x1="${tx}" y1="${TOP - 8}" x2="${tx}" y2="${y2}"><title>${esc(`turn ${turn} starts at round ${round}`)}</title></line>`);
    }
    if (starts.length - 1 <= 20) {
      // A label that would run into the one before it is left out (its line's title still names
      // the turn): close turns drawn side by side read as one ("t1" "t2" as "t12").
      let free = -Infinity;
      for (const [turn, round] of starts) {
        const lx = x(round) + 2;
        const label = `t${turn}`;
        if (lx < free) continue;
        out.push(`<text class="small turn-label" x="${num(lx)}" y="${TOP - 6}">${label}</text>`);
        free = lx + label.length * LABEL_CHAR + LABEL_GAP;
      }
    }
  }

  // Findings: one mark per lane and column, in the strongest level of what it holds.
  LANES.forEach((lane, i) => {
    const columns = new Map<number, Column>();
    for (const e of s.entries) {
      if (e.detector !== lane.detector) continue;
      const c = colOf(e.round);
      const lvl = drawnLevel(e);
      let col = columns.get(c);
      if (!col) {
        col = { level: lvl, first: e.round, last: e.round, entries: [], count: 0 };
        columns.set(c, col);
      }
      // A run (ledger/runs.ts) is drawn as one bar over its rounds.
      col.count += roundsOf(e);
      col.first = Math.min(col.first, e.round);
      col.last = Math.max(col.last, lastRoundOf(e));
      if (RANK[lvl] > RANK[col.level]) col.level = lvl;
      // Keep the strongest few for the title.
      col.entries.push(e);
      if (col.entries.length > TITLE_FINDINGS) {
        col.entries.sort((a, b) => RANK[drawnLevel(b)] - RANK[drawnLevel(a)] || a.round - b.round);
        col.entries.length = TITLE_FINDINGS;
      }
    }
    const y = TOP + i * (LANE_H + LANE_GAP);
    for (const col of [...columns.values()].sort((a, b) => a.first - b.first)) {
      const x0 = x(col.first);
      const w = Math.max(3, x(col.last + 1) - x0 - 0.6);
      const cls = col.level === 'after' ? 'none' : col.level;
      const lines = col.entries.sort((a, b) => a.round - b.round).map(findingText);
      if (col.count > lines.length) lines.push(`and ${col.count - lines.length} more`);
      const head = col.first === col.last ? `round ${col.first}` : `rounds ${col.first}–${col.last}`;
      // Each line escaped on its own: the line breaks are the template's, a transcript's are made visible.
      const title = [`${head}: ${plural(col.count, 'finding')}`, ...lines].map(esc).join('\n');
      out.push(
        `<rect class="m-${cls}" x="${num(x0)}" y="${y + 2}" width="${num(w)}" height="${LANE_H - 4}" rx="1.5" data-kind="${esc(col.entries[0]!.kind)}"><title>${title}</title></rect>`,
      );
    }
  });

  // Spend along the session.
  if (costBand) {
    const top = lanesBottom + 4;
    const max = dollars ? last![2]! : last![1];
    const pts = [`${LEFT},${top + COST_H}`];
    for (const [round, t, usd] of spend) {
      const v = dollars ? (usd ?? 0) : t;
      pts.push(`${num(x(round + 1))},${num(top + COST_H - (v / max) * (COST_H - 2))}`);
    }
    const what = dollars ? fmtUsd(max) : fmtTokens(max);
    out.push(`<rect class="lane" x="${LEFT}" y="${top}" width="${PLOT}" height="${COST_H}"/>`);
    out.push(`<text x="${LEFT - 6}" y="${top + COST_H / 2 + 4}" text-anchor="end">${dollars ? 'cost' : 'tokens'}</text>`);
    out.push(`<polyline class="cost" points="${pts.join(' ')}"><title>${esc(`cumulative ${dollars ? 'list price' : 'tokens'}: ${what} by round ${last![0]}`)}</title></polyline>`);
    out.push(`<text class="costlbl" x="${WIDTH - RIGHT + 4}" y="${top + 10}">${esc(dollars ? fmtUsd(max) : fmtTokens(max))}</text>`);
  }

  // The axis: rounds.
  const ay = height - AXIS_H;
  out.push(`<line class="axis" x1="${LEFT}" y1="${ay}" x2="${LEFT + PLOT}" y2="${ay}"/>`);
  // Small steps count from round 1 (1, 3, 5…); larger ones on round numbers, 1 kept when not crowded.
  const step = niceStep(rounds, 8);
  const ticks: number[] = [];
  if (step <= 5) for (let r = 1; r <= rounds; r += step) ticks.push(r);
  else {
    ticks.push(1);
    for (let r = step; r <= rounds; r += step) if (r - 1 >= step / 2) ticks.push(r);
  }
  for (const r of ticks) {
    const tx = num(x(r) + PLOT / rounds / 2);
    out.push(`<line class="tick" x1="${tx}" y1="${ay}" x2="${tx}" y2="${ay + 4}"/><text x="${tx}" y="${ay + 15}" text-anchor="middle">${r}</text>`);
  }
  out.push(`<text x="${WIDTH - RIGHT + 4}" y="${ay + 15}">round</text>`);
  out.push('</svg>');
  return out.join('');
}

/** A few swatches explaining the marks, drawn once above the timelines. */
export function legendHtml(): string {
  const sw = (cls: string, label: string) =>
    `<span><svg width="14" height="10" aria-hidden="true"><rect class="${cls}" x="0" y="0" width="14" height="10" rx="1.5"/></svg>${label}</span>`;
  return (
    '<div class="legend">' +
    sw('m-stop', 'stop') +
    sw('m-steer', 'steer') +
    sw('m-noted', 'noted') +
    sw('m-none', 'no intervention, or after a stop') +
    sw('saved', 'rounds a stop would have saved (still in the loop)') +
    sw('cut', 'rounds a stop would have cut (the agent had recovered)') +
    '<span><svg width="14" height="10" aria-hidden="true"><line class="turn" x1="7" y1="0" x2="7" y2="10"/></svg>user turn begins</span>' +
    '<span><svg width="14" height="10" aria-hidden="true"><polyline class="cost" points="0,9 7,6 14,1"/></svg>cumulative cost</span>' +
    '<span>levels are what Enforce would have done; hover a mark for its findings</span>' +
    '</div>'
  );
}
