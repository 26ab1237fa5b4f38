// Markdown for PR comments and CI job summaries: a totals line, a table of sessions, then per
// session with entries its ledger table. Transcript text is sanitized (no control characters, no
// line breaks inside a cell) and markdown-escaped, so it can neither break a table, open a code
// span or HTML tag, nor inject links.

import type { EnforceLevel, LedgerEntry, LedgerReport, SessionLedger } from '../ledger/types.js';
import type { ReportOptions } from './index.js';
import { judgeDecided, judgeUsageLine } from './judge-text.js';
import { sanitize } from './sanitize.js';
import {
  fmtConfidence,
  fmtEvidence,
  fmtMeasurement,
  fmtStrike,
  maxEnforce,
  outcomePhrase,
  plural,
} from './text.js';

// CommonMark lets any ASCII punctuation be backslash-escaped; these are the ones that can start
// markup inline or in a table cell. `\` first, so escapes already present stay literal.
const MD_SPECIAL = /[\\`*_[\]<>|#~!&]/g;

export function mdEscape(text: unknown): string {
  return sanitize(text).replace(MD_SPECIAL, (c) => '\\' + c);
}

function level(l: EnforceLevel): string {
  return l === 'stop' ? '**stop**' : l === 'steer' ? '*steer*' : l;
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function entryRow(e: LedgerEntry, o: ReportOptions): string {
  const decided = judgeDecided(e) ? ' (judge)' : '';
  const modes = [e.intervention.off, e.intervention.telemetry, level(e.intervention.enforce) + decided];
  return row([
    String(e.turn),
    `${e.round}${e.after_stop ? ' (after stop)' : ''}`,
    e.line === null ? '' : String(e.line),
    mdEscape(e.detector),
    mdEscape(e.kind),
    fmtConfidence(e.confidence),
    mdEscape(fmtStrike(e.strike)),
    ...modes,
  ]);
}

function sessionSection(s: SessionLedger, o: ReportOptions): string[] {
  const heads = ['turn', 'round', 'line', 'detector', 'kind', 'confidence', 'strikes'];
  const mark = (m: string, h: string) => (m === o.mode ? `${h} (configured)` : h);
  heads.push(mark('off', 'Off'), mark('telemetry', 'Telemetry'), mark('enforce', 'Enforce'));
  const meta = [
    `format ${mdEscape(s.format)}`,
    `model ${s.model === null ? 'unknown' : mdEscape(s.model)}`,
    s.parent !== null ? `sub-agent of ${mdEscape(s.parent)}` : null,
    plural(s.turns, 'turn'),
    plural(s.rounds, 'round'),
    plural(s.tool_calls, 'tool call'),
    `enforce: ${outcomePhrase(s)}`,
  ].filter((x): x is string => x !== null);
  const out = [
    `### ${mdEscape(s.path)} · ${mdEscape(s.id)}`,
    '',
    meta.join(' · '),
    '',
    row(heads),
    row(heads.map((h) => (['turn', 'round', 'line', 'confidence'].includes(h) ? '---:' : '---'))),
    ...s.entries.map((e) => entryRow(e, o)),
  ];
  const details: string[] = [];
  for (const e of s.entries) {
    const bits: string[] = [];
    if (o.explain) {
      for (const m of e.explain ?? []) bits.push(mdEscape(`${m.detector}/${m.kind} ${fmtMeasurement(m)}`));
      const ev = fmtEvidence(e);
      if (ev) bits.push(`evidence: ${mdEscape(ev)}`);
    }
    if (o.excerpts) for (const x of e.excerpts ?? []) bits.push(`excerpt: “${mdEscape(x)}”`);
    if (bits.length) details.push(`- turn ${e.turn} round ${e.round} ${mdEscape(e.detector)}/${mdEscape(e.kind)}: ${bits.join('; ')}`);
  }
  if (details.length) out.push('', ...details);
  return out;
}

export function renderMarkdown(report: LedgerReport, o: ReportOptions): string {
  const sm = report.summary;
  const out: string[] = ['## loopledger', ''];
  out.push(
    row(['sessions', 'rounds', 'entries', 'enforce would stop', 'enforce would steer', 'skipped lines']),
    row(['---:', '---:', '---:', '---:', '---:', '---:']),
    row([sm.sessions, sm.rounds, sm.entries, sm.enforce.sessions_stopped, sm.enforce.sessions_steered, sm.skipped_lines].map(String)),
    '',
  );
  const judge = judgeUsageLine(sm);
  if (judge) out.push(mdEscape(judge), '');
  const listed = o.quiet ? report.sessions.filter((s) => s.entries.length > 0) : report.sessions;
  if (listed.length > 0) {
    out.push(
      row(['session', 'path', 'format', 'rounds', 'entries', 'worst under enforce']),
      row(['---', '---', '---', '---:', '---:', '---']),
      ...listed.map((s) =>
        row([
          mdEscape(s.id) + (s.parent !== null ? ` (sub-agent of ${mdEscape(s.parent)})` : ''),
          mdEscape(s.path),
          mdEscape(s.format),
          String(s.rounds),
          String(s.entries.length),
          level(maxEnforce(s)),
        ]),
      ),
      '',
    );
  }
  for (const s of report.sessions) {
    if (s.entries.length > 0) out.push(...sessionSection(s, o), '');
  }
  const problems = report.inputs.filter((i) => i.error !== undefined || i.skipped.length > 0);
  if (problems.length > 0) {
    out.push('### Inputs with problems', '');
    for (const i of problems) {
      out.push(
        i.error !== undefined
          ? `- ${mdEscape(i.path)}: ${mdEscape(i.error)}`
          : `- ${mdEscape(i.path)}: ${plural(i.skipped.length, 'skipped line')}`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}
