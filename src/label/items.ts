// What `loopledger label` asks about, in order: every session with a finding, worst first, then a
// seeded sample of calm sessions (a loop the detectors missed is only found by looking at sessions
// they called calm). Pure: sessions in, an ordered list of questions out.

import type { LedgerEntry, SessionLedger } from '../ledger/types.js';
import { LEVEL_RANK, strongerLevel, type EnforceLevel } from '../vocabulary.js';

/** One round of the short trace shown around a finding: each call and its answer, one line each. */
export interface TraceRound {
  turn: number;
  round: number;
  /** The response's visible text, whitespace collapsed ('' when none). */
  text: string;
  calls: { name: string; args: string; answer: string | null; failed: boolean }[];
}

/** A user interrupt shown beside the findings (issue 28.5): after a repeat, it proposes "loop". */
export interface InterruptHint {
  turn: number;
  round: number;
  after_repeat: boolean;
}

export interface LabelItem {
  /** The key written to the labels file: the session id, which `sweep --labels` matches first. */
  key: string;
  path: string;
  model: string | null;
  format: string;
  turns: number;
  rounds: number;
  /** The strongest enforce level over the session's entries ('none' for a calm session). */
  level: EnforceLevel;
  /** Entries that would have happened under enforce, in order; after-stop repeats are left out. */
  findings: LedgerEntry[];
  /** At most three excerpts, as `--excerpts` shows them. */
  excerpts: string[];
  /** Rounds around the first finding (or the session's first rounds, for a calm one). */
  trace: TraceRound[];
  interrupt: InterruptHint | null;
  /** The answer offered as the default: "loop" when the user interrupted right after a repeat. */
  proposed: 'loop' | null;
  /** Where the loop starts if labelled one: the first finding's turn and round. */
  start: { turn: number; round: number } | null;
  calm: boolean;
}

export interface QueueOptions {
  /** How many calm sessions to add after the flagged ones. */
  calm: number;
  seed: number;
  /** The order of the flagged sessions (the overview's, from the command); else worst level, most findings, then place. */
  order?: (a: LabelItem, b: LabelItem) => number;
}

export interface LabelQueue {
  items: LabelItem[];
  flagged: number;
  /** Calm sessions in the input, of which `items` holds `calmShown`. */
  calmTotal: number;
  calmShown: number;
}

function worstLevel(session: SessionLedger): EnforceLevel {
  let level: EnforceLevel = 'none';
  for (const e of session.entries) if (!e.after_stop) level = strongerLevel(level, e.intervention.enforce);
  return level;
}

/** mulberry32: a tiny seeded generator, so the same seed samples the same calm sessions every run. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Order the questions. Flagged: strongest enforce level first, then the most entries, then path and
 * id (stable across runs, so a resumed run asks in the same order). Calm: a seeded sample of
 * `calm`, drawn from the calm sessions sorted by path and id.
 */
export function buildQueue(items: readonly LabelItem[], options: QueueOptions): LabelQueue {
  const byPlace = (a: LabelItem, b: LabelItem) => compareText(a.path, b.path) || compareText(a.key, b.key);
  const order = options.order ?? ((a: LabelItem, b: LabelItem) => LEVEL_RANK[b.level] - LEVEL_RANK[a.level] || b.findings.length - a.findings.length || byPlace(a, b));
  const flagged = items.filter((i) => !i.calm).sort(order);
  const calm = items.filter((i) => i.calm).sort(byPlace);
  const random = seededRandom(options.seed);
  const pool = [...calm];
  const want = Math.max(0, Math.min(options.calm, pool.length));
  // A partial Fisher-Yates: the first `want` places are a uniform sample.
  for (let i = 0; i < want; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  const sample = pool.slice(0, want).sort(byPlace);
  return { items: [...flagged, ...sample], flagged: flagged.length, calmTotal: calm.length, calmShown: sample.length };
}

/** The question for one session, given its trace and, if any, the interrupt that hints at a loop. */
export function labelItem(session: SessionLedger, trace: TraceRound[], interrupt: InterruptHint | null): LabelItem {
  const findings = session.entries.filter((e) => !e.after_stop);
  const first = findings[0] ?? null;
  const excerpts: string[] = [];
  for (const e of findings) for (const x of e.excerpts ?? []) if (excerpts.length < 3 && !excerpts.includes(x)) excerpts.push(x);
  return {
    key: session.id,
    path: session.path,
    model: session.model,
    format: session.format,
    turns: session.turns,
    rounds: session.rounds,
    level: worstLevel(session),
    findings,
    excerpts,
    trace,
    interrupt,
    proposed: interrupt?.after_repeat ? 'loop' : null,
    start: first ? { turn: first.turn, round: first.round } : interrupt ? { turn: interrupt.turn, round: interrupt.round } : null,
    calm: findings.length === 0,
  };
}

/** The rounds the trace shows: two before the first finding to two after it (the first five of a calm session). */
export function traceWindow(session: SessionLedger): { from: number; to: number } {
  const first = session.entries.find((e) => !e.after_stop) ?? session.entries[0];
  if (!first) return { from: 1, to: Math.min(5, session.rounds) };
  return { from: Math.max(1, first.round - 2), to: Math.min(session.rounds, first.round + 2) };
}
