// The human ledger: per session a header, one row per entry with Off · Telemetry · Enforce side
// by side, then a summary. Fits `options.width`: it picks the first layout that fits, going from
// full to abbreviated headers and values, merged turn/round, dropping the constant Off column and
// confidence, then shortening kinds (the configured mode's column is never dropped); below that it falls back to one line per entry.

import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import type {
  EnforceLevel,
  LedgerEntry,
  LedgerReport,
  RoundVerdict,
  SessionLedger,
} from '../ledger/types.js';
import type { ModeName, ReportOptions } from './index.js';
import { enforceText, fmtJudge, judgeUsageLine } from './judge-text.js';
import { sanitize } from './sanitize.js';
import {
  displayWidth,
  entryLabel,
  fmtConfidence,
  fmtEvidence,
  fmtMeasurement,
  fmtStrike,
  outcomePhrase,
  plural,
  truncateTo,
  wrap,
} from './text.js';

interface Layout {
  abbrev: boolean;
  merge: boolean;
  dropOff: boolean;
  dropConf: boolean;
  /** Columns for the kind cell (content only), or null for its natural width. */
  kindWidth: number | null;
  /** Content width of every column, shared by all sessions so their tables line up. */
  widths: number[];
}

const LAYOUTS: Omit<Layout, 'kindWidth' | 'widths'>[] = [
  { abbrev: false, merge: false, dropOff: false, dropConf: false },
  { abbrev: true, merge: false, dropOff: false, dropConf: false },
  { abbrev: true, merge: true, dropOff: false, dropConf: false },
  { abbrev: true, merge: true, dropOff: true, dropConf: false },
  { abbrev: true, merge: true, dropOff: true, dropConf: true },
];

// Narrowest kind column still worth a table; below it the list layout reads better.
const MIN_KIND = 8;

const DETECTOR_ABBREV: Record<string, string> = { tool_batch: 'tool', output: 'out', thinking: 'think' };

interface Column {
  head: string;
  align: 'left' | 'right';
  /** Plain text (already sanitized); colour is applied separately. */
  text: (e: LedgerEntry) => string;
  level?: (e: LedgerEntry) => EnforceLevel;
  isKind?: boolean;
}

const AFTER_STOP_MARK = '*';

function columns(layout: Layout, mode: ModeName | undefined): Column[] {
  const mark = (e: LedgerEntry) => (e.after_stop ? AFTER_STOP_MARK : '');
  const cols: Column[] = [];
  if (layout.merge) {
    cols.push({ head: 't.r', align: 'right', text: (e) => `${e.turn}.${e.round}${mark(e)}` });
  } else {
    cols.push({ head: 'turn', align: 'right', text: (e) => String(e.turn) });
    cols.push({ head: 'round', align: 'right', text: (e) => `${e.round}${mark(e)}` });
  }
  cols.push({
    head: layout.abbrev ? 'det' : 'detector',
    align: 'left',
    text: (e) => sanitize(layout.abbrev ? (DETECTOR_ABBREV[e.detector] ?? e.detector) : e.detector),
  });
  cols.push({ head: 'kind', align: 'left', text: (e) => sanitize(e.kind), isKind: true });
  if (!layout.dropConf) {
    cols.push({ head: layout.abbrev ? 'conf' : 'confidence', align: 'right', text: (e) => fmtConfidence(e.confidence) });
  }
  cols.push({ head: 'strikes', align: 'left', text: (e) => fmtStrike(e.strike) });
  // The configured mode's column is marked, never the only one: the point is the comparison.
  const head = (m: ModeName, full: string, short: string) => {
    const h = layout.abbrev ? short : full;
    return m === mode ? `[${h}]` : h;
  };
  if (!layout.dropOff || mode === 'off') {
    cols.push({ head: head('off', 'Off', 'Off'), align: 'left', text: (e) => e.intervention.off, level: (e) => e.intervention.off });
  }
  cols.push({
    head: head('telemetry', 'Telemetry', 'Tel.'),
    align: 'left',
    text: (e) => e.intervention.telemetry,
    level: (e) => e.intervention.telemetry,
  });
  cols.push({
    head: head('enforce', 'Enforce', 'Enf.'),
    align: 'left',
    text: enforceText,
    level: (e) => e.intervention.enforce,
  });
  return cols;
}

/** Width of a cli-table3 table: each column plus one space of padding each side, plus borders. */
function tableWidth(colWidths: number[]): number {
  return colWidths.reduce((a, w) => a + w + 2, 0) + colWidths.length + 1;
}

function naturalWidths(cols: Column[], entries: LedgerEntry[]): number[] {
  return cols.map((c) => Math.max(displayWidth(c.head), ...entries.map((e) => displayWidth(c.text(e)))));
}

/** One layout for the whole report, so every session's table has the same columns. */
function chooseLayout(entries: LedgerEntry[], width: number, mode: ModeName | undefined): Layout | null {
  for (const base of LAYOUTS) {
    const layout: Layout = { ...base, kindWidth: null, widths: [] };
    const widths = naturalWidths(columns(layout, mode), entries);
    if (tableWidth(widths) <= width) return { ...layout, widths };
  }
  const last: Layout = { ...LAYOUTS[LAYOUTS.length - 1]!, kindWidth: null, widths: [] };
  const cols = columns(last, mode);
  const widths = naturalWidths(cols, entries);
  const k = cols.findIndex((c) => c.isKind);
  const spare = width - (tableWidth(widths) - widths[k]!);
  if (spare >= MIN_KIND) {
    widths[k] = spare;
    return { ...last, kindWidth: spare, widths };
  }
  return null;
}

function levelColor(ch: ChalkInstance, level: EnforceLevel, text: string): string {
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

// cli-table3 lays a table out in time quadratic in its rows (every cell is checked against every
// earlier row for spans), so a session with thousands of entries took many seconds. Slices of
// this many rows are rendered on their own and stitched at their borders: the columns have fixed
// widths, so the result is the same table, in linear time.
const ROWS_PER_SLICE = 200;

function sessionTable(s: SessionLedger, layout: Layout, ch: ChalkInstance, mode: ModeName | undefined): string {
  const cols = columns(layout, mode);
  const rows = s.entries.map((e) =>
    cols.map((c) => {
      let text = c.text(e);
      if (c.isKind && layout.kindWidth !== null) text = truncateTo(text, layout.kindWidth);
      if (c.level) return levelColor(ch, c.level(e), text);
      return e.after_stop ? ch.dim(text) : text;
    }),
  );
  const slices: string[][] = [];
  for (let i = 0; i === 0 || i < rows.length; i += ROWS_PER_SLICE) {
    const table = new Table({
      head: i === 0 ? cols.map((c) => ch.bold(c.head)) : [],
      colAligns: cols.map((c) => c.align),
      // cli-table3 would colour head and borders itself (and ignore NO_COLOR): we colour.
      style: { head: [], border: [], compact: true },
      colWidths: layout.widths.map((w) => w + 2),
    });
    table.push(...rows.slice(i, i + ROWS_PER_SLICE));
    slices.push(table.toString().split('\n'));
  }
  // Drop the bottom border of every slice but the last and the top border of every slice but the first.
  return slices
    .map((lines, k) => lines.slice(k === 0 ? 0 : 1, k === slices.length - 1 ? lines.length : -1))
    .flat()
    .join('\n');
}

function listLines(s: SessionLedger, width: number, ch: ChalkInstance, mode: ModeName | undefined): string[] {
  const out: string[] = [];
  for (const e of s.entries) {
    const modes = `off ${e.intervention.off} · tel ${e.intervention.telemetry} · enf ${enforceText(e)}`;
    const parts = [
      `t${e.turn} r${e.round}${e.after_stop ? AFTER_STOP_MARK : ''}`,
      entryLabel(e),
      fmtConfidence(e.confidence),
      fmtStrike(e.strike),
      modes,
    ].filter((p) => p !== '');
    const lines = wrap(parts.join(' '), width, 2);
    out.push(...lines.map((l) => levelColor(ch, e.intervention.enforce, l)));
  }
  return out;
}

function header(s: SessionLedger, width: number, ch: ChalkInstance): string[] {
  const first = wrap(`${sanitize(s.path)}  ${sanitize(s.format)} · ${s.model === null ? 'model unknown' : sanitize(s.model)}`, width, 2);
  const who = `session ${sanitize(s.id)}${s.parent !== null ? ` · sub-agent of ${sanitize(s.parent)}` : ''}`;
  const counts =
    `${plural(s.turns, 'turn')} · ${plural(s.rounds, 'round')} · ${plural(s.tool_calls, 'tool call')}` +
    ` · enforce: ${outcomePhrase(s)}`;
  return [
    ...first.map((l) => ch.bold(l)),
    ...wrap(who, width, 2),
    ...wrap(counts, width, 2),
  ];
}

function where(e: { turn: number; round: number }): string {
  return `t${e.turn} r${e.round}`;
}

function explainLines(s: SessionLedger, o: ReportOptions, ch: ChalkInstance): string[] {
  const out: string[] = [];
  for (const e of s.entries) {
    const lines: string[] = [];
    if (o.explain) {
      for (const m of e.explain ?? []) lines.push(`${sanitize(m.detector)}/${sanitize(m.kind)} ${fmtMeasurement(m)}`);
      const ev = fmtEvidence(e);
      if (ev) lines.push(`evidence: ${ev}`);
      if (e.judge) lines.push(fmtJudge(e.judge));
      if (e.reminder) lines.push(`steer reminder: ${sanitize(e.reminder)}`);
      if (e.finalization_reason) lines.push(`turn ends: ${sanitize(e.finalization_reason)}`);
    }
    if (o.excerpts) for (const x of e.excerpts ?? []) lines.push(`excerpt: "${sanitize(x)}"`);
    if (lines.length === 0) continue;
    out.push(...wrap(`  ${where(e)} ${entryLabel(e)}`, o.width, 4));
    for (const l of lines) out.push(...wrap(`    ${l}`, o.width, 6).map((x) => ch.dim(x)));
  }
  return out;
}

function verdictLines(verdicts: RoundVerdict[], o: ReportOptions, ch: ChalkInstance): string[] {
  const out: string[] = ['  rounds:'];
  for (const v of verdicts) {
    const line = v.line === null ? '' : ` (line ${v.line})`;
    const text = `    ${where(v)}${line}: enforce ${v.enforce}${v.after_stop ? ' (after stop)' : ''}`;
    out.push(...wrap(text, o.width, 6).map((l) => levelColor(ch, v.enforce, l)));
    for (const m of v.near_misses) {
      out.push(...wrap(`      near miss ${sanitize(m.detector)}/${sanitize(m.kind)} ${fmtMeasurement(m)}`, o.width, 8).map((l) => ch.dim(l)));
    }
  }
  return out;
}

function inputLines(report: LedgerReport, width: number, ch: ChalkInstance): string[] {
  const out: string[] = [];
  for (const i of report.inputs) {
    if (i.error !== undefined) {
      out.push(...wrap(`  ${sanitize(i.path)}: ${sanitize(i.error)}`, width, 6).map((l) => ch.red(l)));
    } else if (i.skipped.length > 0) {
      // The CLI prints every skipped line on stderr; here a glimpse is enough.
      const shown = i.skipped
        .slice(0, 3)
        .map((k) => `${k.line === null ? '?' : `line ${k.line}`}: ${sanitize(k.reason)}`)
        .join('; ');
      const more = i.skipped.length > 3 ? `; ${i.skipped.length - 3} more` : '';
      out.push(...wrap(`  ${sanitize(i.path)}: ${plural(i.skipped.length, 'skipped line')} (${shown}${more})`, width, 6).map((l) => ch.yellow(l)));
    }
  }
  return out.length ? ['inputs with problems:', ...out] : [];
}

function summaryLine(report: LedgerReport, ch: ChalkInstance): string {
  const sm = report.summary;
  const stopped = `stop ${plural(sm.enforce.sessions_stopped, 'session')}`;
  const steered = `steer ${sm.enforce.sessions_steered}`;
  return [
    plural(sm.sessions, 'session'),
    plural(sm.entries, 'entry', 'entries'),
    `enforce would ${sm.enforce.sessions_stopped > 0 ? ch.red(stopped) : stopped}, ${sm.enforce.sessions_steered > 0 ? ch.yellow(steered) : steered}`,
    plural(sm.skipped_lines, 'skipped line'),
  ].join(' · ');
}

export function renderTable(report: LedgerReport, o: ReportOptions): string {
  // An explicit level: chalk's own detection ignores NO_COLOR and the CLI already decided.
  const ch = new Chalk({ level: o.color ? 1 : 0 });
  const width = Math.max(20, Math.floor(o.width) || 80);
  const sessions = o.quiet ? report.sessions.filter((s) => s.entries.length > 0) : report.sessions;
  const all = sessions.flatMap((s) => s.entries);
  const layout = chooseLayout(all, width, o.mode);
  const blocks: string[] = [];
  let anyAfterStop = false;
  let droppedOff = false;
  for (const s of sessions) {
    const lines = header(s, width, ch);
    if (s.entries.length === 0) {
      lines.push(ch.dim('  no findings'));
    } else if (layout) {
      lines.push(sessionTable(s, layout, ch, o.mode));
      droppedOff ||= layout.dropOff && o.mode !== 'off';
    } else {
      lines.push(...listLines(s, width, ch, o.mode));
    }
    anyAfterStop ||= s.entries.some((e) => e.after_stop);
    if (o.explain || o.excerpts) lines.push(...explainLines(s, { ...o, width }, ch));
    if (o.verbose && s.verdicts && s.verdicts.length > 0) lines.push(...verdictLines(s.verdicts, { ...o, width }, ch));
    blocks.push(lines.join('\n'));
  }
  const tail: string[] = [];
  if (sessions.length === 0) tail.push(report.sessions.length === 0 ? 'no sessions found' : 'no findings');
  if (anyAfterStop) {
    tail.push(...wrap(`${AFTER_STOP_MARK} after a stop: under enforce the turn had already ended, so this round would not have happened`, width, 2).map((l) => ch.dim(l)));
  }
  if (droppedOff) tail.push(ch.dim(truncateTo('Off column omitted to fit: it is always none', width)));
  if (o.mode !== undefined && sessions.some((x) => x.entries.length > 0)) {
    tail.push(ch.dim(truncateTo(`[ ] marks the configured mode (${o.mode})`, width)));
  }
  tail.push(...inputLines(report, width, ch));
  tail.push(...wrap(summaryLine(report, ch), width, 2));
  const judge = judgeUsageLine(report.summary);
  if (judge) tail.push(...wrap(judge, width, 2));
  return [...blocks, tail.join('\n')].join('\n\n') + '\n';
}
