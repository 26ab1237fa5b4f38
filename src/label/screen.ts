// One screen of `loopledger label`: the session, its findings in words, the excerpts the other
// formats show, a short trace of the rounds around the first finding, and the keys. Pure: state
// and terminal size in, lines out (every line fits the width; transcript text is sanitized).

import type { LedgerEntry } from '../ledger/types.js';
import { strikePhrase, truncateTo } from '../report/text.js';
import { sanitize } from '../sanitize.js';
import { LEVEL_RANK, type EnforceLevel } from '../vocabulary.js';
import type { LabelItem, LabelQueue, TraceRound } from './items.js';
import { currentItem, type LabelState } from './state.js';

export const KEY_HELP = '[l] loop   [c] clean   [s] skip   [b/←] back   [q] quit';

export interface ScreenContext {
  width: number;
  /** Terminal rows; the trace is cut to fit. */
  height: number;
  labelsFile: string;
  queue: Pick<LabelQueue, 'flagged' | 'calmTotal' | 'calmShown'>;
  seed: number;
  /** Sessions skipped because the file already labels them (a resumed run). */
  alreadyLabelled: number;
}

/** Of several findings of one kind, the screen shows one line: where it started, how often, the strongest step. */
interface FindingGroup {
  first: LedgerEntry;
  last: LedgerEntry;
  count: number;
  level: EnforceLevel;
}

function groups(findings: readonly LedgerEntry[]): FindingGroup[] {
  const byKind = new Map<string, FindingGroup>();
  for (const e of findings) {
    const k = `${e.detector}/${e.kind}`;
    const g = byKind.get(k);
    if (!g) byKind.set(k, { first: e, last: e, count: 1, level: e.intervention.enforce });
    else {
      g.last = e;
      g.count++;
      if (LEVEL_RANK[e.intervention.enforce] > LEVEL_RANK[g.level]) g.level = e.intervention.enforce;
    }
  }
  return [...byKind.values()];
}

const DETECTOR_WORDS: Record<string, string> = { tool_batch: 'tool calls', output: 'visible text', thinking: 'reasoning' };

/** What a finding says, in words: the tools and how often for a tool batch, the confidence for text. */
function findingWords(e: LedgerEntry): string {
  const tools = e.evidence['tools'] ?? e.evidence['tool'];
  const parts: string[] = [];
  if (typeof tools === 'string' && tools !== '') parts.push(tools);
  if (e.strike) parts.push(strikePhrase(e.strike, e.kind));
  else if (e.confidence !== null) parts.push(`confidence ${e.confidence.toFixed(2)}`);
  if (parts.length === 0) parts.push(DETECTOR_WORDS[e.detector] ?? e.detector);
  return sanitize(parts.join(': '));
}

function findingLine(g: FindingGroup): string {
  const where = g.count > 1 ? `t${g.first.turn} r${g.first.round}-${g.last.round} (${g.count}×)` : `t${g.first.turn} r${g.first.round}`;
  return `  ${where}  ${sanitize(g.first.kind)}  ${findingWords(g.last)}  → ${g.level}`;
}

function traceLines(item: LabelItem): string[] {
  const marked = new Set(item.findings.map((e) => e.round));
  const out: string[] = [];
  const MAX_CALLS = 3;
  for (const r of item.trace as TraceRound[]) {
    const tag = `${marked.has(r.round) ? '!' : ' '}t${r.turn} r${r.round}`;
    const pad = ' '.repeat(tag.length + 3);
    let lead = `  ${tag} `;
    if (r.text !== '') {
      out.push(`${lead}says: ${sanitize(r.text)}`);
      lead = pad;
    }
    for (const c of r.calls.slice(0, MAX_CALLS)) {
      out.push(`${lead}call ${sanitize(c.name)} ${sanitize(c.args)}`);
      lead = pad;
      out.push(`${pad}${c.answer === null ? '→ (no answer)' : `→ ${c.failed ? 'error: ' : ''}${sanitize(c.answer)}`}`);
    }
    if (r.calls.length > MAX_CALLS) out.push(`${pad}… ${r.calls.length - MAX_CALLS} more calls`);
    if (r.text === '' && r.calls.length === 0) out.push(`${lead}(no text, no calls)`);
  }
  return out;
}

function progressLine(state: LabelState, ctx: ScreenContext): string {
  const q = ctx.queue;
  // What matters most comes first: the line is cut at the terminal's width.
  const resumed = ctx.alreadyLabelled > 0 ? ` · ${ctx.alreadyLabelled} already in the file` : '';
  return (
    `loopledger label · ${Math.min(state.index + 1, state.items.length)} of ${state.items.length}${resumed} · ` +
    `${q.flagged} with findings, then ${q.calmShown} of ${q.calmTotal} calm (seed ${ctx.seed})`
  );
}

export function renderScreen(state: LabelState, ctx: ScreenContext): string[] {
  const width = Math.max(20, ctx.width);
  const fit = (line: string) => truncateTo(line, width);
  const item = currentItem(state);
  const head = [progressLine(state, ctx), `labels → ${sanitize(ctx.labelsFile)} (written after every answer)`, ''];
  if (item === null) return [...head, 'nothing left to label', ''].map(fit);

  const lines: string[] = [];
  lines.push(`session ${sanitize(item.key)}`);
  lines.push(`  ${sanitize(item.path)}`);
  lines.push(
    `  ${sanitize(item.model ?? 'model unknown')} · ${item.format} · ${item.turns} turn${item.turns === 1 ? '' : 's'} · ` +
      `${item.rounds} round${item.rounds === 1 ? '' : 's'} · enforce: ${item.level}`,
  );
  lines.push('');
  if (item.findings.length === 0) lines.push('findings: none (a calm session: is it really?)');
  else {
    lines.push('findings:');
    for (const g of groups(item.findings)) lines.push(findingLine(g));
  }
  if (item.interrupt) {
    const i = item.interrupt;
    lines.push(
      i.after_repeat
        ? `you interrupted it at t${i.turn} r${i.round}, right after a repeat: proposed answer loop ([enter] takes it)`
        : `you interrupted it at t${i.turn} r${i.round} (no repeat before it)`,
    );
  }
  if (item.excerpts.length > 0) {
    lines.push('excerpts:');
    for (const x of item.excerpts) lines.push(`  “${sanitize(x)}”`);
  }
  const trace = traceLines(item);
  const footer: string[] = [''];
  const given = state.answers.get(item.key);
  if (given) footer.push(`your label: ${given}`);
  footer.push(item.proposed ? `${KEY_HELP}   [enter] ${item.proposed}` : KEY_HELP);

  const traceHead = item.calm ? 'trace (the first rounds):' : `trace (rounds around the first finding, ! = a round with a finding):`;
  // The trace gives way first when the terminal is short: the findings are what the answer rests on.
  const room = ctx.height - head.length - lines.length - footer.length - 2;
  if (trace.length > 0 && room >= 2) {
    lines.push('', traceHead);
    const shown = trace.length <= room ? trace : [...trace.slice(0, room - 1), `  … ${trace.length - room + 1} more lines`];
    lines.push(...shown);
  }
  return [...head, ...lines, ...footer].map(fit);
}
