// `--format html`: the ledger as one self-contained page. The totals, then the overview (every
// session with findings, worst first, as the terminal overview orders them: compareSessions), then
// a timeline per session with findings. Calm sessions are counted, never drawn.
//
// Bounded and streamed like every renderer: the page is yielded a row or a session at a time, the
// overview lists at most MAX_OVERVIEW_ROWS sessions, and timelines are drawn, worst first, while
// they fit HTML_TIMELINE_BUDGET bytes (and `--top N`, when given); what is left out is counted in
// a line saying so. A 900-session store stays a page of a few MB that a browser draws in seconds.

import { sessionFindings } from '../../ledger/runs.js';
import type { LedgerEntry, LedgerReport, SessionLedger } from '../../ledger/types.js';
import { type ReportOptions, whole } from '../options.js';
import { judgeUsageLine, enforceText } from '../judge-text.js';
import { fmtTokens, fmtUsd, moneyTotals, NOT_KNOWN, sessionCut, sessionSaved, sessionTokens, sessionUsd } from '../amounts.js';
import { listPriceNote, loopCostPhrase, savedPhrase, sessionCostPhrase } from '../money.js';
import { compareSessions, cutCell, outcomeCell, presentColumns, projectCell, savedCell, shortId, shortModel, type SessionSort } from '../overview.js';
import { rowTools } from '../rows.js';
import { count, fmtConfidence, fmtStrike, maxEnforce, outcomePhrase, plural, unlistedPhrase } from '../text.js';
import { LEVEL_RANK } from '../../vocabulary.js';
import { esc } from './escape.js';
import { pageHead, pageTail } from './shell.js';
import { labelControls, labelsPanel, LABELS_SCRIPT } from './labels.js';
import { legendHtml, timelineSvg } from './timeline.js';
import { loopShapesHtml, sessionKey } from './loop-shapes.js';
import { periodsHtml } from './periods.js';
import { sessionSpan, startedCell } from '../times.js';
import { countOf, filtered, firstOf, mapped, sortInMemory } from '../lists.js';

/** Overview rows at most: past that a table is not read, only scrolled. */
export const MAX_OVERVIEW_ROWS = 2000;
/** Bytes of timelines at most (about 10–40 KB each): keeps the page at a few MB. */
export const HTML_TIMELINE_BUDGET = 4 * 1024 * 1024;
/** Findings listed under one timeline; the timeline itself shows every one. */
export const MAX_LISTED_FINDINGS = 16;

const SORT_WORDS: Record<SessionSort, string> = {
  level: 'worst first',
  saved: 'by what Enforce would have saved',
  cost: 'by cost',
  path: 'by path',
  date: 'newest first',
};

function level(l: string): string {
  return `<span class="lvl lvl-${esc(l)}">${esc(l)}</span>`;
}

function anchor(i: number): string {
  return `s${i + 1}`;
}

function totalsHtml(report: LedgerReport): string {
  const sm = report.summary;
  const money = moneyTotals(report);
  const cells: [string, string][] = [
    [count(sm.sessions), 'sessions'],
    [count(sm.rounds), 'rounds'],
    [count(sm.entries), 'findings'],
    [count(sm.enforce.sessions_stopped), 'sessions Enforce would stop'],
    [count(sm.enforce.sessions_steered), 'sessions Enforce would steer'],
  ];
  if (money.tokens !== undefined) cells.push([fmtTokens(money.tokens), 'tokens']);
  if (money.usd !== undefined) cells.push([fmtUsd(money.usd), `list price${money.unpriced > 0 ? ` (${count(money.unpriced)} unpriced)` : ''}`]);
  if (money.saved !== undefined) {
    const sv = money.saved;
    cells.push([sv.usd !== null ? fmtUsd(sv.usd) : plural(sv.rounds, 'round'), `Enforce would have saved${sv.usd !== null ? ` (${plural(sv.rounds, 'round')})` : ''}`]);
  }
  if (money.cut !== undefined) {
    const ct = money.cut;
    cells.push([plural(ct.rounds, 'round'), `of new work Enforce would have cut${ct.usd !== null && ct.rounds > 0 ? ` (${fmtUsd(ct.usd)})` : ''}`]);
  }
  if (sm.skipped_lines > 0) cells.push([count(sm.skipped_lines), 'skipped lines']);
  return `<div class="totals">${cells.map(([v, l]) => `<div><b>${esc(v)}</b><span class="muted">${esc(l)}</span></div>`).join('')}</div>\n`;
}

function overviewHead(present: ReturnType<typeof presentColumns> & { started: boolean }): string {
  const th = (label: string, numeric = false) => `<th class="c-${label === '#' ? 'rank' : label}${numeric ? ' n' : ''}" scope="col"><button type="button">${label}</button></th>`;
  return (
    '<thead><tr>' +
    th('#', true) +
    th('enforce') +
    (present.project ? th('project') : '') +
    th('session') +
    (present.started ? th('started') : '') +
    th('model') +
    th('rounds', true) +
    th('findings', true) +
    (present.tokens ? th('tokens', true) : '') +
    (present.cost ? th('cost', true) : '') +
    (present.saved ? th('saved', true) : '') +
    (present.cut ? th('cut', true) : '') +
    '</tr></thead>'
  );
}

function overviewRow(s: SessionLedger, rank: number, drawn: boolean, present: ReturnType<typeof presentColumns> & { started: boolean }, zone: string): string {
  const o = outcomeCell(s);
  const rest = o.text.split(' ').slice(1).join(' ');
  const id = esc(shortId(s.id));
  const idCell = drawn ? `<a href="#${anchor(rank)}">${id}</a>` : id;
  const sv = sessionSaved(s);
  const ct = sessionCut(s);
  const n = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));
  const td = (col: string, text: string, v?: string, numeric = false) =>
    `<td class="c-${col}${numeric ? ' n' : ''}"${v !== undefined ? ` data-v="${esc(v)}"` : ''}>${text}</td>`;
  return (
    '<tr>' +
    td('rank', String(rank + 1), String(rank + 1), true) +
    td('enforce', `${level(o.level)}${rest ? ` ${esc(rest)}` : ''}`, String(LEVEL_RANK[o.level] * 1e6 + s.outcome.enforce.steers)) +
    (present.project ? td('project', esc(projectCell(s))) : '') +
    `<td class="c-session mono" title="${esc(s.id)}">${idCell}</td>` +
    (present.started ? td('started', esc(startedCell(s, zone)), s.started_at ?? '') : '') +
    td('model', esc(shortModel(s.model))) +
    td('rounds', count(s.rounds), String(s.rounds), true) +
    td('findings', count(sessionFindings(s)), String(sessionFindings(s)), true) +
    (present.tokens ? td('tokens', esc(fmtTokens(sessionTokens(s))), n(sessionTokens(s)), true) : '') +
    (present.cost ? td('cost', esc(fmtUsd(sessionUsd(s))), n(sessionUsd(s)), true) : '') +
    (present.saved ? td('saved', esc(savedCell(s, true)), n(sv?.usd ?? sv?.rounds), true) : '') +
    (present.cut ? td('cut', esc(cutCell(s, true)), n(ct?.usd ?? ct?.rounds), true) : '') +
    '</tr>\n'
  );
}

function findingRow(e: LedgerEntry, o: ReportOptions): string {
  const td = (t: string, cls = '') => `<td${cls ? ` class="${cls}"` : ''}>${t}</td>`;
  const extra: string[] = [];
  if (o.excerpts) for (const x of e.excerpts ?? []) extra.push(`“${esc(x)}”`);
  return (
    '<tr>' +
    td(String(e.turn), 'n') +
    td(`${e.round}${e.after_stop ? '*' : ''}`, 'n') +
    td(esc(e.detector)) +
    td(esc(e.kind)) +
    td(esc(rowTools(e)), 'tools') +
    td(esc(fmtConfidence(e.confidence)), 'n') +
    td(esc(fmtStrike(e.strike, e.kind))) +
    td(e.after_stop ? level('none') + ' <span class="muted">after stop</span>' : `${level(e.intervention.enforce)}${enforceText(e) !== e.intervention.enforce ? ' (judge)' : ''}`) +
    td(esc(e.round_usage?.usd != null ? fmtUsd(e.round_usage.usd) : e.round_usage?.tokens != null ? `${fmtTokens(e.round_usage.tokens)} tok` : ''), 'n') +
    (o.excerpts ? td(extra.join('<br>'), 'mono') : '') +
    '</tr>'
  );
}

/**
 * What Enforce would do in a session: the level as a badge, and the phrase going on from it
 * without saying the level twice ("enforce: stop at turn 1 round 8; 2 steers", "enforce: steer ×3").
 */
function enforceFact(s: SessionLedger): string {
  const top = maxEnforce(s);
  const phrase = outcomePhrase(s);
  if (top === 'stop' && phrase.startsWith('stop ')) return `enforce: ${level(top)} ${esc(phrase.slice('stop '.length))}`;
  if (top === 'steer') return `enforce: ${level(top)} ×${esc(count(s.outcome.enforce.steers))}`;
  return `enforce: ${level(top)}`;
}

/** One session with findings: heading, facts, its timeline and its first findings. A bounded string. */
function sessionHtml(s: SessionLedger, rank: number, o: ReportOptions): string {
  const facts = [
    `${esc(s.format)} · ${esc(s.model ?? 'model unknown')}`,
    s.project != null ? `project ${esc(s.project)}` : null,
    s.parent !== null ? `sub-agent of <span class="mono">${esc(s.parent)}</span>${s.agent_type ? ` (${esc(s.agent_type)})` : ''}` : null,
    sessionSpan(s, o.timezone ?? 'UTC') !== null ? esc(sessionSpan(s, o.timezone ?? 'UTC')) : null,
    `${esc(plural(s.turns, 'turn'))} · ${esc(plural(s.rounds, 'round'))} · ${esc(plural(s.tool_calls, 'tool call'))}`,
    enforceFact(s),
  ].filter((x): x is string => x !== null);
  const money = [sessionCostPhrase(s), loopCostPhrase(s), savedPhrase(s)].filter((x): x is string => x !== null);
  const parts: string[] = [];
  parts.push(`<article class="session" id="${anchor(rank)}" data-session-id="${esc(s.id)}">`);
  parts.push(`<h3><span class="muted">#${rank + 1}</span> <span class="mono">${esc(s.id)}</span></h3>`);
  parts.push(`<p class="meta mono">${esc(s.path)}</p>`);
  parts.push(`<p class="meta">${facts.join(' · ')}</p>`);
  if (money.length) parts.push(`<p class="meta">${esc(money.join(' · '))}</p>`);
  const unlisted = unlistedPhrase(s);
  if (unlisted !== null) parts.push(`<p class="meta">${esc(unlisted)}</p>`);
  if (!s.timeline) parts.push('<p class="meta">turn boundaries and spend along the session are not in this ledger (a merged or older ledger)</p>');
  parts.push(timelineSvg(s));
  parts.push(labelControls(s));
  const shown = s.entries.slice(0, MAX_LISTED_FINDINGS);
  const anyExcerpt = o.excerpts && shown.some((e) => (e.excerpts?.length ?? 0) > 0);
  const heads = ['turn', 'round', 'detector', 'kind', 'tools', 'confidence', 'repeats', 'Enforce', 'round cost', ...(anyExcerpt ? ['excerpts'] : [])];
  const numeric = new Set(['turn', 'round', 'confidence', 'round cost']);
  parts.push(
    `<div class="wrap"><table><thead><tr>${heads.map((h) => `<th${numeric.has(h) ? ' class="n"' : ''}>${h}</th>`).join('')}</tr></thead><tbody>` +
      shown.map((e) => findingRow(e, { ...o, excerpts: anyExcerpt })).join('') +
      '</tbody></table></div>',
  );
  if (s.entries.length > shown.length) {
    parts.push(`<p class="more">${s.entries.length - shown.length} more findings of this session are drawn above but not listed (loopledger --format table lists them all).</p>`);
  }
  parts.push('</article>\n');
  return parts.join('');
}

export function* htmlChunks(report: LedgerReport, o: ReportOptions): Generator<string> {
  const sm = report.summary;
  yield pageHead(`loopledger: ${plural(sm.sessions, 'session')}, ${sm.enforce.sessions_stopped} stopped`, true, LABELS_SCRIPT);
  yield '<header>\n<h1>loopledger</h1>\n';
  yield `<p class="muted">${esc(`${report.tool.name} ${report.tool.version}`)} · ${esc(plural(countOf(report.inputs), 'input'))} · what Off, Telemetry and Enforce would have done in every round</p>\n`;
  yield totalsHtml(report);
  const note = listPriceNote(report);
  if (note) yield `<p class="muted small">${esc(note)}</p>\n`;
  const judge = judgeUsageLine(sm);
  if (judge) yield `<p class="muted small">${esc(judge)}</p>\n`;
  yield '</header>\n';

  const sort = o.sort ?? 'level';
  // Sorted by the caller's sorter (a merge's on disk) and read as often as needed: never all held.
  // Counted as the sort reads them (a merge reads them from disk): the columns every session has.
  let all = 0;
  let withFindings = 0;
  const present = { project: false, tokens: false, cost: false, saved: false, cut: false, started: false };
  const counted = mapped(report.sessions, (s) => {
    all += 1;
    if (s.entries.length > 0) withFindings += 1;
    present.project ||= projectCell(s) !== NOT_KNOWN;
    present.started ||= typeof s.started_at === 'string';
    present.tokens ||= s.usage !== undefined;
    present.cost ||= s.cost !== undefined;
    present.saved ||= s.outcome.enforce.saved !== undefined;
    present.cut ||= s.outcome.enforce.cut !== undefined;
    return s;
  });
  const ranked = (o.sorter ?? sortInMemory)(
    filtered(counted, (s) => s.entries.length > 0),
    compareSessions(sort),
  );
  const calm = all - withFindings;
  // Which sessions get a timeline: worst first, within `--top N` when given and the byte budget.
  const top = o.top !== undefined && o.top > 0 ? o.top : Infinity;
  const drawn: string[] = [];
  const anchors = new Map<string, string>();
  let bytes = 0;
  for (const s of firstOf(ranked, Math.min(withFindings, top))) {
    const i = drawn.length;
    const html = sessionHtml(whole(o, s), i, o);
    if (bytes + html.length > HTML_TIMELINE_BUDGET) break;
    bytes += html.length;
    drawn.push(html);
    anchors.set(sessionKey(s.path, s.id), anchor(i));
  }

  yield loopShapesHtml(report, anchors);
  yield periodsHtml(report);
  yield '<section id="overview">\n<h2>Overview</h2>\n';
  yield `<p>${esc(plural(all, 'session'))}: ${count(withFindings)} with findings, ${esc(SORT_WORDS[sort])} (click a column to sort); ${count(calm)} calm, counted and not drawn.</p>\n`;
  if (withFindings > 0) {
    yield `<div class="wrap"><table class="sortable overview">${overviewHead(present)}<tbody>\n`;
    const listed = Math.min(withFindings, MAX_OVERVIEW_ROWS);
    let i = 0;
    for (const s of firstOf(ranked, listed)) {
      yield overviewRow(s, i, i < drawn.length, present, o.timezone ?? 'UTC');
      i += 1;
    }
    yield '</tbody></table></div>\n';
    if (withFindings > listed) yield `<p class="more">${count(withFindings - listed)} more sessions with findings not listed (loopledger --format json has them all).</p>\n`;
  }
  yield '</section>\n';

  yield '<section id="timelines">\n<h2>Timelines</h2>\n';
  if (withFindings === 0) {
    yield '<p>No session has findings: nothing to draw.</p>\n';
  } else {
    yield legendHtml() + '\n';
    yield labelsPanel();
    // Built above to know how many fit; yielded one session at a time.
    for (let i = 0; i < drawn.length; i++) {
      yield drawn[i]!;
      drawn[i] = '';
    }
    const left = withFindings - drawn.length;
    if (left > 0) {
      const why = drawn.length >= top ? `--top ${top}` : `the page budget of ${HTML_TIMELINE_BUDGET / (1024 * 1024)} MB of timelines`;
      yield `<p class="more">${count(left)} more sessions with findings not drawn (${esc(why)}); the overview lists them.</p>\n`;
    }
  }
  if (calm > 0) yield `<p class="muted">${esc(plural(calm, 'calm session', 'calm sessions'))} (no findings): counted, not drawn.</p>\n`;
  yield '</section>\n';
  yield `<footer class="muted small"><p>${esc(NOT_KNOWN)} = not known. * = a round after a stop: under Enforce the turn had already ended, so it would not have happened.</p></footer>\n`;
  yield pageTail(true, LABELS_SCRIPT);
}
