// The human ledger: per session a header, one row per entry with Telemetry · Enforce side by side
// (Off runs nothing: its column would always say none, so it is shown only when Off is the
// configured mode), then a summary. Fits `options.width`: it picks the first layout that fits,
// going from full to abbreviated headers and values, merged turn/round, dropping confidence, then
// shortening kinds and then what was repeated; below that it falls back to one line per entry. With more sessions than `--top`, an overview of every session with findings comes
// first and only the top sessions follow in full. Written in pieces (a generator): a session of a
// million entries never becomes one string, and no width is computed by spreading an array.

import { Chalk, type ChalkInstance } from 'chalk';
import { interruptPhrase } from '../ledger/interrupts.js';
import type {
  EnforceLevel,
  LedgerReport,
  RoundVerdict,
  SessionLedger,
} from '../ledger/types.js';
import { type ReportOptions, whole } from './options.js';
import { collapsedRows, everyRow, firstRound, lastRound, type Row, rowTools, strikeSpan } from './rows.js';
import { nextSteps } from './next-steps.js';
import { mapped, some } from './lists.js';
import type { Mode } from '../vocabulary.js';
import { enforceText, fmtJudge, judgeUsageLine } from './judge-text.js';
import { listPriceNote, loopCostPhrase, savedPhrase, sessionCostPhrase, totalsPhrases } from './money.js';
import { DEFAULT_TOP, planOverview, type SessionSort } from './overview.js';
import { overviewLines } from './overview-table.js';
import { periodTableLines, sessionSpan } from './times.js';
import { sanitize } from '../sanitize.js';
import {
  count,
  displayWidth,
  entryLabel,
  entryTools,
  fmtConfidence,
  fmtEvidence,
  fmtMeasurement,
  fmtStrike,
  outcomePhrase,
  plural,
  strikeLegend,
  strikeParts,
  truncateTo,
  wrap,
  unlistedPhrase,
} from './text.js';

interface Layout {
  abbrev: boolean;
  merge: boolean;
  dropConf: boolean;
  /** Columns for the kind cell (content only), or null for its natural width. */
  kindWidth: number | null;
  /** Columns for the tools cell, or null for its natural width. */
  toolsWidth: number | null;
  /** Whether any entry names tools (otherwise the column is left out). */
  tools: boolean;
  /** Whether the detector column is shown: left out of the narrowest layout when every row has the same one. */
  det: boolean;
  /** Content width of every column, shared by all sessions so their tables line up. */
  widths: number[];
}

const LAYOUTS: Omit<Layout, 'kindWidth' | 'toolsWidth' | 'widths' | 'tools' | 'det'>[] = [
  { abbrev: false, merge: false, dropConf: false },
  { abbrev: true, merge: false, dropConf: false },
  { abbrev: true, merge: true, dropConf: false },
  { abbrev: true, merge: true, dropConf: true },
];

// Narrowest kind column still worth a table; below it the list layout reads better.
const MIN_KIND = 8;
// Letters a cut kind keeps before its count (`repe… ×1799`).
const KIND_LETTERS = 4;
// What was repeated gives way after kinds (the legend and overview name the kinds; only this cell
// says which command looped), down to a name's first few letters.
const MIN_TOOLS = 5;
// Columns a call keeps before a layout abbreviates, merges or drops anything (`Bash(npm test -- --run …`).
const TOOLS_COMFORT = 28;

const DETECTOR_ABBREV: Record<string, string> = { tool_batch: 'tool', output: 'out', thinking: 'think' };

/** Rows shown per session by default; the rest are counted ("N more rows: --all"). */
const MAX_SESSION_ROWS = 20;

/** `3` or `3–40` (the turns, or the rounds, a row spans). */
const span = (a: number, b: number) => (a === b ? count(a) : `${count(a)}–${count(b)}`);

interface Column {
  /** Identifies the text function (head and variant), so natural widths are measured once per report. */
  id: string;
  head: string;
  align: 'left' | 'right';
  /** Plain text (already sanitized); colour is applied separately. */
  text: (r: Row) => string;
  level?: (r: Row) => EnforceLevel;
  isKind?: boolean;
  isTools?: boolean;
}

const AFTER_STOP_MARK = '*';
/** Why the table has no Off column (docs/cli.md says so too). */
const OFF_NOTE = 'Off (not shown) runs nothing: every finding would be none';

const enforceCell = (r: Row) => {
  const text = enforceText(r.top);
  // A row of many rounds says where its steer or stop came.
  return r.count > 1 && (r.top.intervention.enforce === 'stop' || r.top.intervention.enforce === 'steer') ? `${text} r${count(r.top.round)}` : text;
};

function repeatsCell(r: Row, abbrev: boolean): string {
  const cell = fmtStrike(r.first.strike, r.first.kind, abbrev);
  const moved = strikeSpan(r);
  // `2–1999× (max 2)`: the count at the row's first and last round.
  return moved === null ? cell : cell.replace(/^[\d,]+×/, `${count(moved.first)}–${count(moved.last)}×`);
}

function columns(layout: Pick<Layout, 'abbrev' | 'merge' | 'dropConf' | 'tools' | 'det'>, mode: Mode | undefined): Column[] {
  const mark = (r: Row) => (r.afterStop ? AFTER_STOP_MARK : '');
  const cols: Column[] = [];
  if (layout.merge) {
    const at = (r: Row) =>
      firstRound(r) === lastRound(r)
        ? `${count(r.first.turn)}.${count(r.first.round)}`
        : r.first.turn === r.last.turn
          ? `${count(r.first.turn)}.${count(r.first.round)}–${count(lastRound(r))}`
          : `${count(r.first.turn)}.${count(r.first.round)}–${count(r.last.turn)}.${count(lastRound(r))}`;
    cols.push({ id: 't.r', head: 't.r', align: 'right', text: (r) => `${at(r)}${mark(r)}` });
  } else {
    cols.push({ id: 'turn', head: 'turn', align: 'right', text: (r) => span(r.first.turn, r.last.turn) });
    cols.push({ id: 'round', head: 'round', align: 'right', text: (r) => `${span(firstRound(r), lastRound(r))}${mark(r)}` });
  }
  if (layout.det) cols.push({
    id: layout.abbrev ? 'det' : 'detector',
    head: layout.abbrev ? 'det' : 'detector',
    align: 'left',
    text: (r) => sanitize(layout.abbrev ? (DETECTOR_ABBREV[r.first.detector] ?? r.first.detector) : r.first.detector),
  });
  cols.push({ id: 'kind', head: 'kind', align: 'left', text: (r) => `${sanitize(r.first.kind)}${r.count > 1 ? ` ×${count(r.count)}` : ''}`, isKind: true });
  if (layout.tools) cols.push({ id: 'tools', head: 'tools', align: 'left', text: (r) => rowTools(r.first), isTools: true });
  if (!layout.dropConf) {
    cols.push({ id: 'conf', head: layout.abbrev ? 'conf' : 'confidence', align: 'right', text: (r) => fmtConfidence(r.first.confidence) });
  }
  cols.push({
    id: layout.abbrev ? 'repeats-ab' : 'repeats',
    head: 'repeats',
    align: 'left',
    text: (r) => repeatsCell(r, layout.abbrev),
  });
  // The configured mode's column is marked, never the only one: the point is the comparison.
  const head = (m: Mode, full: string, short: string) => {
    const h = layout.abbrev ? short : full;
    return m === mode ? `[${h}]` : h;
  };
  if (mode === 'off') {
    cols.push({ id: 'off', head: head('off', 'Off', 'Off'), align: 'left', text: (r) => r.first.intervention.off, level: (r) => r.first.intervention.off });
  }
  cols.push({
    id: 'tel',
    head: head('telemetry', 'Telemetry', 'Tel.'),
    align: 'left',
    text: (r) => r.telemetry,
    level: (r) => r.telemetry,
  });
  cols.push({
    id: 'enf',
    head: head('enforce', 'Enforce', 'Enf.'),
    align: 'left',
    text: enforceCell,
    level: (r) => r.top.intervention.enforce,
  });
  return cols;
}

/** Width of a boxed table: each column plus one space of padding each side, plus borders. */
function tableWidth(colWidths: number[]): number {
  return colWidths.reduce((a, w) => a + w + 2, 0) + colWidths.length + 1;
}

/**
 * One layout for the whole report, so every session's table has the same columns. The sessions
 * are read once: every column any layout may use is measured in that pass (a merge reads them
 * back from disk, so one pass, not one per layout tried).
 */
function chooseLayout(sessions: Iterable<SessionLedger>, width: number, mode: Mode | undefined, all: boolean): Layout | null {
  const every = new Map<string, Column>();
  for (const base of LAYOUTS) for (const c of columns({ ...base, tools: true, det: true }, mode)) if (!every.has(c.id)) every.set(c.id, c);
  const measured = [...every.values()];
  const widest = measured.map(() => 0);
  let tools = false;
  const detectors = new Set<string>();
  // The widest ` ×N` of a kind cell: a cut kind keeps its count and a few letters before it.
  let countWidth = 0;
  for (const s of sessions) {
    for (const e of s.entries) {
      if (entryTools(e) !== '') {
        tools = true;
        break;
      }
    }
    for (const r of shownRows(s, all).rows) {
      detectors.add(r.first.detector);
      if (r.count > 1) countWidth = Math.max(countWidth, ` ×${count(r.count)}`.length);
      for (let i = 0; i < measured.length; i += 1) {
        const d = displayWidth(measured[i]!.text(r));
        if (d > widest[i]!) widest[i] = d;
      }
    }
  }
  const cache = new Map(measured.map((c, i) => [c.id, widest[i]!]));
  const naturalWidths = (cols: Column[]) => cols.map((c) => Math.max(displayWidth(c.head), cache.get(c.id)!));
  // Every layout whole first, then each with a long call cut to what is left (down to
  // TOOLS_COMFORT): the call is worth more than full headers.
  for (const cutCall of [false, true]) {
    for (const base of LAYOUTS) {
      const layout: Layout = { ...base, tools, det: true, kindWidth: null, toolsWidth: null, widths: [] };
      const cols = columns(layout, mode);
      const widths = naturalWidths(cols);
      if (tableWidth(widths) <= width) return { ...layout, widths };
      const t = cols.findIndex((c) => c.isTools);
      const spare = t < 0 ? 0 : width - (tableWidth(widths) - widths[t]!);
      if (cutCall && t >= 0 && spare >= TOOLS_COMFORT) {
        widths[t] = spare;
        return { ...layout, toolsWidth: spare, widths };
      }
    }
  }
  // The narrowest layout leaves out a detector column that says the same on every row (the kinds name it).
  const last: Layout = { ...LAYOUTS[LAYOUTS.length - 1]!, tools, det: detectors.size > 1, kindWidth: null, toolsWidth: null, widths: [] };
  const cols = columns(last, mode);
  const widths = naturalWidths(cols);
  // What was repeated gives way down to TOOLS_COMFORT, then kinds down to their floor, then what
  // was repeated again down to MIN_TOOLS: the call is what only this cell says.
  const spare = (i: number) => width - (tableWidth(widths) - widths[i]!);
  const t = cols.findIndex((c) => c.isTools);
  if (t >= 0 && widths[t]! > TOOLS_COMFORT && spare(t) < widths[t]!) {
    widths[t] = Math.max(TOOLS_COMFORT, spare(t));
    last.toolsWidth = widths[t]!;
  }
  if (tableWidth(widths) <= width) return { ...last, widths };
  const k = cols.findIndex((c) => c.isKind);
  widths[k] = Math.max(MIN_KIND, countWidth + KIND_LETTERS + 1, Math.min(widths[k]!, spare(k)));
  last.kindWidth = widths[k]!;
  if (tableWidth(widths) <= width) return { ...last, widths };
  if (t < 0 || spare(t) < Math.max(MIN_TOOLS, displayWidth(cols[t]!.head))) return null;
  widths[t] = spare(t);
  return { ...last, toolsWidth: widths[t]!, widths };
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

// The box is drawn here, in cli-table3's compact style (its characters, one space of padding, a rule
// under the head only). cli-table3 itself spent about a millisecond per row (merging options and
// building regexes per cell), minutes for a ledger of 200k entries; columns have fixed widths here,
// so each row is one line of padding and joining. Rows are yielded in slices of this many.
const ROWS_PER_SLICE = 200;

export const RULES = { top: ['┌', '┬', '┐'], head: ['├', '┼', '┤'], bottom: ['└', '┴', '┘'] } as const;

export function rule(widths: readonly number[], [left, mid, right]: readonly [string, string, string]): string {
  return left + widths.map((w) => '─'.repeat(w + 2)).join(mid) + right;
}

/** Cells are measured without their colour codes; the widths already fit every cell. */
export function boxRow(cells: readonly string[], widths: readonly number[], aligns: readonly ('left' | 'right')[]): string {
  const out = cells.map((c, i) => {
    const pad = ' '.repeat(Math.max(0, widths[i]! - displayWidth(c)));
    return ' ' + (aligns[i] === 'right' ? pad + c : c + pad) + ' ';
  });
  return '│' + out.join('│') + '│';
}

/** The rows a session's table shows, and how many more `--all` would. */
function shownRows(s: SessionLedger, all: boolean): { rows: Iterable<Row>; more: number } {
  if (all) return { rows: everyRow(s.entries), more: 0 };
  const rows = collapsedRows(s.entries);
  if (rows.length <= MAX_SESSION_ROWS) return { rows, more: 0 };
  return { rows: rows.slice(0, MAX_SESSION_ROWS), more: rows.length - MAX_SESSION_ROWS };
}

const moreRows = (n: number, width: number, ch: ChalkInstance) => wrap(`  ${plural(n, 'more row')}: --all`, width, 4).map((l) => ch.dim(l));

/** A kind cut to `width`, its count (` ×1799`) kept whole: the count is what a run's row is for. */
function fitKind(text: string, width: number): string {
  const suffix = / ×[\d,]+$/.exec(text)?.[0] ?? '';
  if (suffix === '' || displayWidth(text) <= width || suffix.length + 2 > width) return truncateTo(text, width);
  return truncateTo(text.slice(0, -suffix.length), width - suffix.length) + suffix;
}

function* sessionTable(s: SessionLedger, layout: Layout, ch: ChalkInstance, mode: Mode | undefined, all: boolean): Generator<string> {
  const cols = columns(layout, mode);
  const aligns = cols.map((c) => c.align);
  const cells = (r: Row) =>
    cols.map((c) => {
      let text = c.text(r);
      if (c.isKind && layout.kindWidth !== null) text = fitKind(text, layout.kindWidth);
      if (c.isTools && layout.toolsWidth !== null) text = truncateTo(text, layout.toolsWidth);
      if (c.level) return levelColor(ch, c.level(r), text);
      return r.first.after_stop ? ch.dim(text) : text;
    });
  const { rows, more } = shownRows(s, all);
  yield [
    rule(layout.widths, RULES.top),
    boxRow(cols.map((c) => ch.bold(c.head)), layout.widths, aligns),
    rule(layout.widths, RULES.head),
  ].join('\n');
  let lines: string[] = [];
  for (const r of rows) {
    lines.push(boxRow(cells(r), layout.widths, aligns));
    if (lines.length === ROWS_PER_SLICE) {
      yield '\n' + lines.join('\n');
      lines = [];
    }
  }
  if (lines.length > 0) yield '\n' + lines.join('\n');
  yield '\n' + rule(layout.widths, RULES.bottom);
  if (more > 0) yield '\n' + moreRows(more, tableWidth(layout.widths), ch).join('\n');
}

function* listLines(s: SessionLedger, width: number, ch: ChalkInstance, all: boolean, mode: Mode | undefined): Generator<string> {
  const { rows, more } = shownRows(s, all);
  for (const r of rows) {
    const e = r.first;
    // Off is named only when it is the configured mode: otherwise it says none on every line.
    const modes = `${mode === 'off' ? `off ${e.intervention.off} · ` : ''}tel ${r.telemetry} · enf ${enforceCell(r)}`;
    const where = firstRound(r) !== lastRound(r) ? `t${span(e.turn, r.last.turn)} r${span(e.round, lastRound(r))}` : `t${count(e.turn)} r${count(e.round)}`;
    const parts = [
      `${where}${r.afterStop ? AFTER_STOP_MARK : ''}`,
      `${entryLabel(e)}${r.count > 1 ? ` ×${count(r.count)}` : ''}`,
      rowTools(e),
      fmtConfidence(e.confidence),
      repeatsCell(r, true),
      modes,
    ].filter((p) => p !== '');
    for (const l of wrap(parts.join(' '), width, 2)) yield levelColor(ch, r.top.intervention.enforce, l);
  }
  if (more > 0) yield* moreRows(more, width, ch);
}

function header(s: SessionLedger, width: number, ch: ChalkInstance, zone: string): string[] {
  const first = wrap(`${sanitize(s.path)}  ${sanitize(s.format)} · ${s.model === null ? 'model unknown' : sanitize(s.model)}`, width, 2);
  const project = s.project !== undefined && s.project !== null ? ` · project ${sanitize(s.project)}` : '';
  const agent = s.agent_type !== undefined ? ` (${sanitize(s.agent_type)})` : '';
  const who = `session ${sanitize(s.id)}${s.parent !== null ? ` · sub-agent${agent} of ${sanitize(s.parent)}` : ''}${project}`;
  const counts =
    `${plural(s.turns, 'turn')} · ${plural(s.rounds, 'round')} · ${plural(s.tool_calls, 'tool call')}` +
    ` · enforce: ${outcomePhrase(s)}`;
  const money = [sessionCostPhrase(s), loopCostPhrase(s), savedPhrase(s)].filter((x): x is string => x !== null);
  const span = sessionSpan(s, zone);
  return [
    ...first.map((l) => ch.bold(l)),
    ...wrap(who, width, 2),
    ...(span !== null ? wrap(span, width, 2) : []),
    ...wrap(counts, width, 2),
    ...(money.length ? wrap(money.join(' · '), width, 2) : []),
    // A trace says less than a transcript: which producer wrote it, and what the detectors could not see.
    ...(s.producer !== undefined ? wrap(`recorded by ${sanitize(s.producer)} telemetry${s.unrecorded?.length ? `; not recorded: ${s.unrecorded.map((u) => sanitize(u)).join(', ')}` : ''}`, width, 2) : []),
    ...(unlistedPhrase(s) !== null ? wrap(unlistedPhrase(s)!, width, 2) : []),
    // The user's own Esc after a repeat: the closest thing to a label a store holds (issue 28.5).
    ...(s.interrupts ?? []).filter((i) => i.after_repeat).flatMap((i) => wrap(`interrupted: ${interruptPhrase(i, s.outcome.enforce.stops)}`, width, 2)),
  ];
}

function where(e: { turn: number; round: number }): string {
  return `t${count(e.turn)} r${count(e.round)}`;
}

function* explainLines(s: SessionLedger, o: ReportOptions, ch: ChalkInstance): Generator<string> {
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
    yield* wrap(`  ${where(e)} ${entryLabel(e)}`, o.width, 4);
    for (const l of lines) for (const x of wrap(`    ${l}`, o.width, 6)) yield ch.dim(x);
  }
}

function* verdictLines(verdicts: RoundVerdict[], o: ReportOptions, ch: ChalkInstance): Generator<string> {
  yield '  rounds:';
  for (const v of verdicts) {
    const line = v.line === null ? '' : ` (line ${v.line})`;
    const text = `    ${where(v)}${line}: enforce ${v.enforce}${v.after_stop ? ' (after stop)' : ''}`;
    for (const l of wrap(text, o.width, 6)) yield levelColor(ch, v.enforce, l);
    for (const m of v.near_misses) {
      for (const l of wrap(`      near miss ${sanitize(m.detector)}/${sanitize(m.kind)} ${fmtMeasurement(m)}`, o.width, 8)) yield ch.dim(l);
    }
  }
}

function* inputLines(report: LedgerReport, width: number, ch: ChalkInstance): Generator<string> {
  const problem = (i: LedgerReport['inputs'][number]) => i.error !== undefined || i.skipped.length > 0;
  if (!some(report.inputs, problem)) return;
  yield 'inputs with problems:';
  for (const i of report.inputs) {
    if (i.error !== undefined) {
      yield* wrap(`  ${sanitize(i.path)}: ${sanitize(i.error)}`, width, 6).map((l) => ch.red(l));
    } else if (i.skipped.length > 0) {
      // The CLI prints every skipped line on stderr; here a glimpse is enough.
      const shown = i.skipped
        .slice(0, 3)
        .map((k) => `${k.line === null ? '?' : `line ${k.line}`}: ${sanitize(k.reason)}`)
        .join('; ');
      const more = i.skipped_lines > 3 ? `; ${count(i.skipped_lines - 3)} more` : '';
      yield* wrap(`  ${sanitize(i.path)}: ${plural(i.skipped_lines, 'skipped line')} (${shown}${more})`, width, 6).map((l) => ch.yellow(l));
    }
  }
}

function summaryLine(report: LedgerReport, ch: ChalkInstance): string {
  const sm = report.summary;
  const stopped = `stop ${plural(sm.enforce.sessions_stopped, 'session')}`;
  const steered = `steer ${count(sm.enforce.sessions_steered)}`;
  return [
    plural(sm.sessions, 'session'),
    plural(sm.entries, 'finding'),
    `enforce would ${sm.enforce.sessions_stopped > 0 ? ch.red(stopped) : stopped}, ${sm.enforce.sessions_steered > 0 ? ch.yellow(steered) : steered}`,
    plural(sm.skipped_lines, 'skipped line'),
  ].join(' · ');
}

/** One session in full: header, ledger table (or list), explanations, verdicts. */
function* sessionBlock(s: SessionLedger, layout: Layout | null, o: ReportOptions, width: number, ch: ChalkInstance): Generator<string> {
  yield header(s, width, ch, o.timezone ?? 'UTC').join('\n');
  if (s.entries.length === 0) {
    yield '\n' + ch.dim('  no findings');
  } else if (layout) {
    yield '\n';
    yield* sessionTable(s, layout, ch, o.mode, o.all === true);
  } else {
    for (const l of listLines(s, width, ch, o.all === true, o.mode)) yield '\n' + l;
  }
  if (o.explain || o.excerpts) for (const l of explainLines(s, { ...o, width }, ch)) yield '\n' + l;
  if (o.verbose && s.verdicts && s.verdicts.length > 0) for (const l of verdictLines(s.verdicts, { ...o, width }, ch)) yield '\n' + l;
}

export function* tableChunks(report: LedgerReport, o: ReportOptions): Generator<string> {
  // An explicit level: chalk's own detection ignores NO_COLOR and the CLI already decided.
  const ch = new Chalk({ level: o.color ? 1 : 0 });
  const width = Math.max(20, Math.floor(o.width) || 80);
  const top = o.top ?? DEFAULT_TOP;
  const sort: SessionSort = o.sort ?? 'level';
  const plan = planOverview(report.sessions, { top, sort, quiet: o.quiet }, o.sorter);
  // The sessions printed in full, whole, read twice: their widths are shared, then each is printed.
  const sessions = mapped(plan.detailed, (s) => whole(o, s));
  let first = true;
  const gap = () => {
    const g = first ? '' : '\n\n';
    first = false;
    return g;
  };
  if (plan.overview) {
    // Line by line: the overview lists every session with findings.
    let sep = gap();
    for (const l of overviewLines(report, plan, { width, sort, top, timezone: o.timezone ?? 'UTC' }, ch, o.sorter)) {
      yield sep + l;
      sep = '\n';
    }
    if (sep !== '\n') yield sep;
  }
  if (report.periods !== undefined) yield gap() + periodTableLines(report, width, ch).join('\n');
  const layout = chooseLayout(sessions, width, o.mode, o.all === true);
  let anyAfterStop = false;
  const shown = { strike: false, run: false, readOnly: false };
  let printed = 0;
  let anyFindings = false;
  for (const s of sessions) {
    printed += 1;
    anyFindings ||= s.entries.length > 0;
    yield gap();
    yield* sessionBlock(s, layout, o, width, ch);
    for (const e of s.entries) {
      anyAfterStop ||= e.after_stop;
      const p = strikeParts(e);
      shown.strike ||= p.strike;
      shown.run ||= p.run;
      shown.readOnly ||= p.readOnly;
    }
  }
  const tail: string[] = [];
  if (printed === 0 && !plan.overview) tail.push(plan.all === 0 ? 'no sessions found' : 'no findings');
  if (shown.strike) tail.push(...wrap(strikeLegend(shown), width, 2).map((l) => ch.dim(l)));
  if (anyAfterStop) {
    tail.push(...wrap(`${AFTER_STOP_MARK} after a stop: under enforce the turn had already ended, so this round would not have happened`, width, 2).map((l) => ch.dim(l)));
  }
  if (anyFindings && o.mode !== 'off') tail.push(...wrap(OFF_NOTE, width, 2).map((l) => ch.dim(l)));
  if (o.mode !== undefined && anyFindings) {
    tail.push(ch.dim(truncateTo(`[ ] marks the configured mode (${o.mode})`, width)));
  }
  yield gap() + tail.join('\n');
  let sep = tail.length > 0 ? '\n' : '';
  // One line per input with a problem, as they are read (a merge reads its inputs from disk).
  for (const l of inputLines(report, width, ch)) {
    yield sep + l;
    sep = '\n';
  }
  const rest: string[] = [];
  const note = listPriceNote(report);
  if (note) rest.push(...wrap(note, width, 2).map((l) => ch.dim(l)));
  const money = totalsPhrases(report);
  if (money.length) rest.push(...wrap(money.join(' · '), width, 2));
  rest.push(...wrap(summaryLine(report, ch), width, 2));
  const judge = judgeUsageLine(report.summary);
  if (judge) rest.push(...wrap(judge, width, 2));
  if (!o.quiet) for (const step of nextSteps(report)) rest.push(...wrap(`next: ${step}`, width, 8));
  yield sep + rest.join('\n') + '\n';
}
