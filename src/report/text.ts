// Small helpers shared by the formats: wording, numbers, terminal width. Pure functions only.

import type { LedgerEntry, SessionLedger } from '../ledger/types.js';
import type { Strike } from '../detect/types.js';
import type { RecordedMeasurement } from '../ledger/types.js';
import { sanitize } from '../sanitize.js';
import { strongerLevel, type EnforceLevel } from '../vocabulary.js';

export function maxEnforce(session: SessionLedger): EnforceLevel {
  let best: EnforceLevel = 'none';
  for (const e of session.entries) best = strongerLevel(best, e.intervention.enforce);
  return best;
}

/** Integers as they are; fractions to at most three decimals, trailing zeros dropped, so the
 *  same number always prints the same way in every format. */
function fmtNum(n: number | null | undefined): string {
  if (n === null || n === undefined) return '';
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return String(n);
  return String(Number(n.toFixed(3)));
}

export function fmtConfidence(c: number | null): string {
  return c === null ? '' : c.toFixed(2);
}

/**
 * The strike cell, read the way a person says it: `3× (max 2)` is "the same batch got the same
 * answers 3 times in a row; 2 are allowed". The run against the ceiling (every occurrence, whatever
 * came back) is added only when it says more: `1× (max 2), run 16× (max 15)`. `read-only` (`ro`
 * abbreviated) marks the observation tier, whose allowance is `max_observation_steps`.
 */
export function fmtStrike(s: Strike | null, kind?: string, abbrev = false): string {
  if (!s) return '';
  let out = `${count(s.count)}× (max ${count(s.threshold)})`;
  if (s.ceiling !== null && (s.total !== s.count || kind === 'ceiling')) out += `, run ${count(s.total)}× (max ${count(s.ceiling)})`;
  if (s.read_only) out += abbrev ? ' ro' : ' read-only';
  return out;
}

/** The same in a sentence, ASCII only, for CI messages. */
export function strikePhrase(s: Strike, kind?: string): string {
  let out = `same batch and answers ${s.count} in a row (max ${s.threshold})`;
  if (s.ceiling !== null && (s.total !== s.count || kind === 'ceiling')) {
    out += `, ${s.total} in the run whatever the answers (ceiling ${s.ceiling})`;
  }
  if (s.read_only) out += ', read-only tools';
  return out;
}

/** The legend under tables that show strikes; the parts about the ceiling and read-only tools only
 *  when such a cell is shown. */
export function strikeLegend(shown: { run?: boolean; readOnly?: boolean } = {}): string {
  const parts = ['repeats: 3× (max 2) = the same tool batch got the same answers 3 times in a row, and Enforce allows 2'];
  if (shown.run) parts.push('run 16× (max 15) = 16 times in a row whatever the answers, against the ceiling');
  if (shown.readOnly) parts.push('read-only (ro) = observation tools, allowed more repeats');
  return parts.join('; ');
}

/** Which optional parts of the strike legend an entry's cell shows. */
export function strikeParts(e: LedgerEntry): { strike: boolean; run: boolean; readOnly: boolean } {
  const s = e.strike;
  if (!s) return { strike: false, run: false, readOnly: false };
  return { strike: true, run: s.ceiling !== null && (s.total !== s.count || e.kind === 'ceiling'), readOnly: s.read_only };
}

/** The tool(s) of a tool-batch entry, from its evidence (`Read`, `Bash,Grep`, `Read>Edit` for a cycle). */
export function entryTools(e: LedgerEntry): string {
  if (e.detector !== 'tool_batch') return '';
  const t = e.evidence['tools'] ?? e.evidence['tool'];
  return typeof t === 'string' ? sanitize(t) : '';
}

export function entryLabel(e: LedgerEntry): string {
  return `${sanitize(e.detector)}/${sanitize(e.kind)}`;
}

/** How far past (or short of) its line a statistic was, signed so that positive means "fired". */
function margin(m: RecordedMeasurement): number {
  return m.direction === 'above' ? m.value - m.threshold : m.threshold - m.value;
}

export function fmtMeasurement(m: RecordedMeasurement): string {
  const op = m.direction === 'above' ? '>=' : '<=';
  const d = margin(m);
  const sign = d >= 0 ? '+' : '-';
  return `${sanitize(m.statistic)} ${fmtNum(m.value)} (fires at ${op} ${fmtNum(m.threshold)}, margin ${sign}${fmtNum(Math.abs(d))})`;
}

export function fmtEvidence(e: LedgerEntry): string {
  return Object.keys(e.evidence)
    .sort()
    .map((k) => {
      const v = e.evidence[k];
      const shown = Array.isArray(v)
        ? `[${v.map((x) => fmtNum(x)).join(',')}]`
        : typeof v === 'number'
          ? fmtNum(v)
          : String(v);
      return `${sanitize(k)}=${sanitize(shown)}`;
    })
    .join(' ');
}

/** A whole number as every human format writes it: with thousands separators (`1,801`, never `1801`). */
export const count = (n: number): string => n.toLocaleString('en-US');

export function plural(n: number, one: string, many = one + 's'): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** Enforce outcome of a session in one phrase. */
export function outcomePhrase(s: SessionLedger): string {
  const stops = s.outcome.enforce.stops;
  const parts: string[] = [];
  if (stops.length > 0) {
    parts.push(`stop at ${stops.map((x) => `turn ${x.turn} round ${x.round}`).join(', ')}`);
  }
  if (s.outcome.enforce.steers > 0) parts.push(plural(s.outcome.enforce.steers, 'steer'));
  return parts.length ? parts.join('; ') : 'no intervention';
}

/**
 * The findings a session counts but does not list (past ledger/runs.ts MAX_ENTRIES), or null:
 * `not listed: 12,345 findings in 9,876 rounds, r20,001–r1,000,000 (12 steer, no stop): …`.
 */
export function unlistedPhrase(s: SessionLedger): string | null {
  const u = s.unlisted;
  if (u === undefined) return null;
  const levels = [u.steers > 0 ? plural(u.steers, 'steer') : null, u.stops > 0 ? plural(u.stops, 'stop') : null].filter((x) => x !== null);
  const kinds = Object.entries(u.kinds)
    .map(([k, n]) => `${sanitize(k)} ${count(n)}`)
    .join(', ');
  return `not listed: ${plural(u.findings, 'finding')} in ${plural(u.rounds, 'round')}, r${count(u.first_round)}–r${count(u.last_round)} (${kinds}${levels.length ? `; ${levels.join(', ')}` : ''}): ${sanitize(u.reason)}`;
}

// Only our own SGR colour codes can be present when measuring (transcript text is sanitized).
// oxlint-disable-next-line no-control-regex -- ESC is the point: this strips our SGR codes
const SGR = /\u001b\[[0-9;]*m/g;

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}]/u;

/** Columns a string occupies on a terminal (an approximation of wcwidth, enough for layout). */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s.replace(SGR, '')) {
    if (ZERO_WIDTH.test(ch)) continue;
    w += isWide(ch.codePointAt(0)!) ? 2 : 1;
  }
  return w;
}

/** Columns of one character (a code point) on a terminal, as displayWidth counts them. */
function charWidth(ch: string): number {
  return ZERO_WIDTH.test(ch) ? 0 : isWide(ch.codePointAt(0)!) ? 2 : 1;
}

/** Cut to at most `width` columns, ending in `…` when cut. Input must carry no SGR codes. */
export function truncateTo(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = charWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return out + '…';
}

/** Word-wrap plain text to `width` columns, continuation lines indented by `indent` spaces;
 *  a word longer than a line is broken hard so no line ever exceeds the width. Each character is
 *  measured once (the line's width is carried, never re-measured): a 5 MB unbroken word (a
 *  session id) wraps in linear time (issue 53 item 9). */
export function wrap(text: string, width: number, indent = 2): string[] {
  const lines: string[] = [];
  const max = Math.max(8, width);
  const pad = ' '.repeat(Math.min(indent, Math.floor(max / 2)));
  const lead = /^ */.exec(text)![0];
  let line = lead;
  let used = lead.length;
  let empty = true;
  const push = () => {
    lines.push(line.trimEnd());
    line = pad;
    used = pad.length;
    empty = true;
  };
  for (const word of text.slice(lead.length).split(' ')) {
    const w = displayWidth(word);
    const sep = empty ? 0 : 1;
    if (used + sep + w <= max) {
      line += (sep ? ' ' : '') + word;
      used += sep + w;
      if (word !== '') empty = false;
      continue;
    }
    if (!empty) push();
    if (used + w <= max) {
      line += word;
      used += w;
      empty = word === '';
      continue;
    }
    // Broken hard: characters taken in slices of a line, each measured once.
    let head: string[] = [];
    for (const ch of word) {
      const cw = charWidth(ch);
      if (used + cw > max && head.length > 0) {
        line += head.join('');
        push();
        head = [];
      }
      head.push(ch);
      used += cw;
    }
    line += head.join('');
    empty = head.length === 0;
  }
  if (!empty || lines.length === 0) lines.push(line);
  return lines;
}

const WOULD: Record<EnforceLevel, string> = { none: 'do nothing', noted: 'note it', steer: 'steer', stop: 'stop the turn' };

/** "enforce would …" in plain words. */
export function enforceWould(level: EnforceLevel): string {
  return `enforce would ${WOULD[level]}`;
}
