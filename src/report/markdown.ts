// Markdown for PR comments and CI job summaries: a totals table, then the sessions (every session,
// or with more than `--top` of them an overview of those with findings, worst first), then per
// session with entries its ledger table. Transcript text is sanitized (no control characters, no
// line breaks inside a cell) and markdown-escaped, so it can neither break a table, open a code
// span or HTML tag, nor inject links.
//
// GitHub refuses a job summary over 1 MiB, so the document is written against that budget: what
// does not fit is left out and counted in a closing line, never cut mid-line.

import { sessionFindings } from '../ledger/runs.js';
import type { LedgerEntry, LedgerReport, SessionLedger } from '../ledger/types.js';
import type { EnforceLevel } from '../vocabulary.js';
import { periodMarkdownLines, sessionSpan } from './times.js';
import { type ReportOptions, whole } from './options.js';
import { judgeDecided, judgeUsageLine } from './judge-text.js';
import { fmtTokens, fmtUsd, NOT_KNOWN } from './amounts.js';
import { listPriceNote, loopCostPhrase, savedPhrase, sessionCostPhrase, totalsPhrases } from './money.js';
import {
  costCell,
  DEFAULT_TOP,
  outcomeCell,
  planOverview,
  presentColumns,
  projectCell,
  savedCell,
  cutCell,
  preventedAmountCell,
  sessionNames,
  type OverviewPlan,
  shortModel,
  tokensCell,
  type SessionSort,
} from './overview.js';
import { loopShapeMarkdown } from './loop-shapes.js';
import { filtered, some, type Sorter } from './lists.js';
import { sanitize } from '../sanitize.js';
import { rowTools } from './rows.js';
import {
  entryTools,
  fmtConfidence,
  fmtEvidence,
  fmtMeasurement,
  fmtStrike,
  maxEnforce,
  count,
  outcomePhrase,
  plural,
  strikeLegend,
  strikeParts,
  unlistedPhrase,
} from './text.js';

/** GitHub's limit for `$GITHUB_STEP_SUMMARY` (1 MiB per step). */
export const MARKDOWN_MAX_BYTES = 1024 * 1024;
// Kept free for the closing line that counts what was left out.
const RESERVE_BYTES = 1024;

// CommonMark lets any ASCII punctuation be backslash-escaped; these are the ones that can start
// markup inline or in a table cell (`$` opens math on GitHub). `\` first, so escapes already
// present stay literal.
const MD_SPECIAL = /[\\`*_[\]<>|#~!&$]/g;

function mdEscape(text: unknown): string {
  return sanitize(text).replace(MD_SPECIAL, (c) => '\\' + c);
}

function level(l: EnforceLevel): string {
  return l === 'stop' ? '**stop**' : l === 'steer' ? '*steer*' : l;
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function entryRow(e: LedgerEntry, tools: boolean, off: boolean): string {
  const decided = judgeDecided(e) ? ' (judge)' : '';
  const modes = [...(off ? [e.intervention.off] : []), e.intervention.telemetry, level(e.intervention.enforce) + decided];
  return row([
    count(e.turn),
    `${e.run ? `${count(e.round)}–${count(e.run.last_round)}` : count(e.round)}${e.after_stop ? ' (after stop)' : ''}`,
    e.line === null ? '' : String(e.line),
    mdEscape(e.detector),
    mdEscape(e.kind) + (e.run ? ` ×${count(e.run.count)}` : ''),
    // What was repeated, as the table names it (the call, cut short).
    ...(tools ? [mdEscape(rowTools(e))] : []),
    fmtConfidence(e.confidence),
    mdEscape(fmtStrike(e.strike, e.kind)),
    ...modes,
  ]);
}

/** A session's section, line by line; entries last so a cut can count them. */
function* sessionSection(s: SessionLedger, o: ReportOptions): Generator<{ line: string; entry?: boolean }> {
  const tools = s.entries.some((e) => entryTools(e) !== '');
  const heads = ['turn', 'round', 'line', 'detector', 'kind', ...(tools ? ['tools'] : []), 'confidence', 'repeats'];
  const mark = (m: string, h: string) => (m === o.mode ? `${h} (configured)` : h);
  // Off runs nothing: its column would say none on every row, so it is shown only when it is the configured mode.
  const off = o.mode === 'off';
  heads.push(...(off ? [mark('off', 'Off')] : []), mark('telemetry', 'Telemetry'), mark('enforce', 'Enforce'));
  const meta = [
    `format ${mdEscape(s.format)}`,
    `model ${s.model === null ? 'unknown' : mdEscape(s.model)}`,
    s.project !== undefined && s.project !== null ? `project ${mdEscape(s.project)}` : null,
    s.parent !== null ? `sub-agent of ${mdEscape(s.parent)}` : null,
    sessionSpan(s, o.timezone ?? 'UTC'),
    plural(s.turns, 'turn'),
    plural(s.rounds, 'round'),
    plural(s.tool_calls, 'tool call'),
    `enforce: ${outcomePhrase(s)}`,
  ].filter((x): x is string => x !== null);
  const money = [sessionCostPhrase(s), loopCostPhrase(s), savedPhrase(s)].filter((x): x is string => x !== null);
  const unlisted = unlistedPhrase(s);
  const intro = [`### ${mdEscape(s.path)} · ${mdEscape(s.id)}`, '', meta.join(' · '), '', ...(money.length ? [mdEscape(money.join(' · ')), ''] : []), ...(unlisted !== null ? [mdEscape(unlisted), ''] : [])];
  for (const line of [...intro, row(heads)]) yield { line };
  yield { line: row(heads.map((h) => (['turn', 'round', 'line', 'confidence'].includes(h) ? '---:' : '---'))) };
  for (const e of s.entries) yield { line: entryRow(e, tools, off), entry: true };
  let first = true;
  for (const e of s.entries) {
    const bits: string[] = [];
    if (o.explain) {
      for (const m of e.explain ?? []) bits.push(mdEscape(`${m.detector}/${m.kind} ${fmtMeasurement(m)}`));
      const ev = fmtEvidence(e);
      if (ev) bits.push(`evidence: ${mdEscape(ev)}`);
    }
    if (o.excerpts) for (const x of e.excerpts ?? []) bits.push(`excerpt: “${mdEscape(x)}”`);
    if (bits.length === 0) continue;
    if (first) yield { line: '' };
    first = false;
    yield { line: `- turn ${e.turn} round ${e.round} ${mdEscape(e.detector)}/${mdEscape(e.kind)}: ${bits.join('; ')}` };
  }
  yield { line: '' };
}

/** Lines written while they fit the byte budget; afterwards only counted. */
class Budget {
  private used = 0;
  full = false;
  constructor(private readonly limit: number) {}
  take(line: string): boolean {
    if (this.full) return false;
    const n = Buffer.byteLength(line, 'utf8') + 1;
    if (this.used + n > this.limit) {
      this.full = true;
      return false;
    }
    this.used += n;
    return true;
  }
}

function overviewRows(
  report: LedgerReport,
  plan: OverviewPlan,
  sorter: Sorter | undefined,
): { head: string[]; align: string[]; rows: Generator<string>; total: string } {
  const ranked = plan.ranked;
  const present = plan.tally.present;
  const names = sessionNames(ranked, Infinity, sorter);
  const money = plan.tally.money.totals(report);
  const head = ['enforce', ...(present.project ? ['project'] : []), 'session', 'model', 'rounds', 'findings'];
  const align = ['---', ...(present.project ? ['---'] : []), '---', '---', '---:', '---:'];
  const extra: [string, (s: SessionLedger) => string, string][] = [];
  if (present.tokens) extra.push(['tokens', tokensCell, fmtTokens(money.tokens)]);
  if (present.cost) extra.push(['cost', costCell, money.usd === undefined ? NOT_KNOWN : fmtUsd(money.usd)]);
  if (present.saved) extra.push(['saved', (s) => savedCell(s, true), preventedAmountCell(money.saved, true)]);
  if (present.cut) extra.push(['cut', (s) => cutCell(s, true), preventedAmountCell(money.cut, true)]);
  for (const [h] of extra) {
    head.push(h);
    align.push('---:');
  }
  function* rows(): Generator<string> {
    const name = names[Symbol.iterator]();
    for (const s of ranked) {
      // The outcome's first word is its level, emphasized like the ledger's.
      const o = outcomeCell(s);
      const rest = o.text.split(' ').slice(1);
      yield row([
        [level(o.level), ...rest.map(mdEscape)].join(' '),
        ...(present.project ? [mdEscape(projectCell(s))] : []),
        mdEscape(name.next().value as string),
        mdEscape(shortModel(s.model)),
        count(s.rounds),
        count(sessionFindings(s)),
        ...extra.map(([, f]) => mdEscape(f(s))),
      ]);
    }
  }
  const total = row([
    '**total**',
    ...(present.project ? [plural(plan.all, 'session')] : []),
    present.project ? '' : plural(plan.all, 'session'),
    '',
    count(report.summary.rounds),
    count(report.summary.entries),
    ...extra.map(([, , t]) => mdEscape(t)),
  ]);
  return { head, align, rows: rows(), total };
}

const SORT_WORDS: Record<SessionSort, string> = {
  level: 'worst first',
  saved: 'by what Enforce would have saved',
  cost: 'by cost',
  path: 'by path',
  date: 'newest first',
};

export function* markdownChunks(report: LedgerReport, o: ReportOptions): Generator<string> {
  const budget = new Budget(MARKDOWN_MAX_BYTES - RESERVE_BYTES);
  let omittedRows = 0;
  let omittedEntries = 0;
  let omittedSessions = 0;
  const sm = report.summary;

  const head: string[] = ['## loopledger', ''];
  const totalsHead = ['sessions', 'rounds', 'findings', 'enforce would stop', 'enforce would steer', 'skipped lines'];
  const totals = [sm.sessions, sm.rounds, sm.entries, sm.enforce.sessions_stopped, sm.enforce.sessions_steered, sm.skipped_lines].map(count);
  head.push(row(totalsHead), row(totalsHead.map(() => '---:')), row(totals), '');
  const money = totalsPhrases(report).map((t) => `${t[0]!.toUpperCase()}${t.slice(1)}.`);
  const note = listPriceNote(report);
  if (money.length || note) head.push(mdEscape([...money, ...(note ? [note] : [])].join(' ')), '');
  const judge = judgeUsageLine(sm);
  if (judge) head.push(mdEscape(judge), '');
  if (report.periods !== undefined) head.push(...periodMarkdownLines(report, mdEscape), '');
  for (const l of head) if (budget.take(l)) yield l + '\n';

  const plan = planOverview(report.sessions, { top: o.top ?? DEFAULT_TOP, sort: o.sort ?? 'level', quiet: o.quiet }, o.sorter);
  if (plan.overview) {
    for (const l of loopShapeMarkdown(report, mdEscape)) if (budget.take(l)) yield l + '\n';
    const intro =
      `${plural(plan.all, 'session')}: ${count(plan.rankedCount)} with findings, ${SORT_WORDS[o.sort ?? 'level']}; ` +
      `${count(plan.calm)} calm, not listed. The first ${count(plan.detailedCount)} follow in full.`;
    for (const l of [intro, '']) if (budget.take(l)) yield l + '\n';
    if (plan.rankedCount > 0) {
      const t = overviewRows(report, plan, o.sorter);
      for (const l of [row(t.head), row(t.align)]) if (budget.take(l)) yield l + '\n';
      for (const r of t.rows) {
        if (budget.take(r)) yield r + '\n';
        else omittedRows += 1;
      }
      for (const l of [t.total, '']) if (budget.take(l)) yield l + '\n';
    }
  } else if (plan.detailedCount > 0) {
    const present = presentColumns(plan.detailed);
    const extra: [string, (s: SessionLedger) => string][] = [];
    if (present.tokens) extra.push(['tokens', tokensCell]);
    if (present.cost) extra.push(['list price', costCell]);
    if (present.saved) extra.push(['Enforce would save', (s) => savedCell(s, true)]);
    if (present.cut) extra.push(['Enforce would cut', (s) => cutCell(s, true)]);
    const lines = [
      row(['session', 'path', 'format', 'rounds', 'findings', 'worst under enforce', ...extra.map(([h]) => h)]),
      row(['---', '---', '---', '---:', '---:', '---', ...extra.map(() => '---:')]),
    ];
    for (const l of lines) if (budget.take(l)) yield l + '\n';
    for (const s of plan.detailed) {
      const r = row([
        mdEscape(s.id) + (s.parent !== null ? ` (sub-agent of ${mdEscape(s.parent)})` : ''),
        mdEscape(s.path),
        mdEscape(s.format),
        count(s.rounds),
        count(sessionFindings(s)),
        level(maxEnforce(s)),
        ...extra.map(([, f]) => mdEscape(f(s))),
      ]);
      if (budget.take(r)) yield r + '\n';
      else omittedRows += 1;
    }
    if (budget.take('')) yield '\n';
  }

  const shown = { strike: false, run: false, readOnly: false };
  for (const listed of plan.detailed) {
    if (listed.entries.length === 0) continue;
    // Whole one at a time, as its section is written.
    const s = whole(o, listed);
    let omitted = false;
    for (const { line, entry } of sessionSection(s, o)) {
      if (budget.take(line)) {
        yield line + '\n';
      } else {
        omitted = true;
        if (entry) omittedEntries += 1;
      }
    }
    if (omitted) omittedSessions += 1;
    if (budget.full) continue;
    for (const e of s.entries) {
      const p = strikeParts(e);
      shown.strike ||= p.strike;
      shown.run ||= p.run;
      shown.readOnly ||= p.readOnly;
    }
  }
  const legend = `*${mdEscape(strikeLegend(shown))}*`;
  if (shown.strike && budget.take(legend) && budget.take('')) yield legend + '\n\n';

  const problem = (i: LedgerReport['inputs'][number]) => i.error !== undefined || i.skipped.length > 0;
  let omittedInputs = 0;
  // Read as they are listed (a merge reads its inputs from disk), not gathered.
  if (some(report.inputs, problem)) {
    for (const l of ['### Inputs with problems', '']) if (budget.take(l)) yield l + '\n';
    for (const i of filtered(report.inputs, problem)) {
      const l =
        i.error !== undefined
          ? `- ${mdEscape(i.path)}: ${mdEscape(i.error)}`
          : `- ${mdEscape(i.path)}: ${plural(i.skipped_lines, 'skipped line')}`;
      if (budget.take(l)) yield l + '\n';
      else omittedInputs += 1;
    }
    if (budget.take('')) yield '\n';
  }

  if (budget.full) {
    const left: string[] = [];
    if (omittedRows > 0) left.push(plural(omittedRows, 'session row'));
    if (omittedSessions > 0) left.push(`${plural(omittedEntries, 'finding')} of ${plural(omittedSessions, 'session')}`);
    if (omittedInputs > 0) left.push(plural(omittedInputs, 'input problem'));
    yield `**Cut to fit GitHub's 1 MiB summary limit:** ${left.join(', ') || 'the rest'} not shown. The full ledger: \`--format json\` or \`--format table\`.\n`;
  }
}
