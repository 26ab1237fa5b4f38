// What a producer reader makes of one session's items: turns and rounds with times, delivered to
// the session builder in time order (spans arrive in any order; rounds are numbered as they happened).

import type { SessionBuilder } from '../../model/builder.js';
import type { RoundTrace, ThinkingBlock, ToolAnswer, ToolCall, Usage } from '../../model/transcript.js';
import type { OtelItem } from './items.js';

export interface RoundDraft {
  time: number;
  line: number | null;
  text: string[];
  thinking: ThinkingBlock[];
  calls: ToolCall[];
  /** Answers by call id; calls without ids are answered in order from `positional`. */
  answers: Map<string, ToolAnswer>;
  positional: ToolAnswer[];
  usage: Partial<Usage> | null;
  model: string | null;
  trace: RoundTrace | null;
  /** Calls (by index) a tool span has already answered. */
  spanAnswered: Set<number>;
}

export interface SessionDraft {
  turns: { time: number; line: number | null }[];
  rounds: RoundDraft[];
}

export function newRound(time: number, line: number | null, trace: RoundTrace | null = null): RoundDraft {
  return { time, line, text: [], thinking: [], calls: [], answers: new Map(), positional: [], usage: null, model: null, trace, spanAnswered: new Set() };
}

export function traceOf(item: OtelItem): RoundTrace | null {
  return item.traceId !== null && item.spanId !== null ? { traceId: item.traceId, spanId: item.spanId } : null;
}

/** Items by time; items without one keep their arrival order after those before them. */
export function byTime<T extends { time: number }>(list: T[]): T[] {
  return list
    .map((v, i) => ({ v, i }))
    .sort((a, b) => {
      const ta = Number.isNaN(a.v.time) ? Infinity : a.v.time;
      const tb = Number.isNaN(b.v.time) ? Infinity : b.v.time;
      return ta - tb || a.i - b.i;
    })
    .map((x) => x.v);
}

/**
 * The round that was under way at `time`: the last to start at or before it (the first round when
 * it comes before them all); null when there is no round.
 */
export function roundAt(rounds: readonly RoundDraft[], time: number): RoundDraft | null {
  if (rounds.length === 0) return null;
  if (Number.isNaN(time)) return rounds[rounds.length - 1]!;
  let lo = 0;
  let hi = rounds.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (rounds[mid]!.time <= time) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return rounds[found]!;
}

/** Deliver a session's turns and rounds, merged in time order (a turn opens before a round of the same instant). */
export function deliver(draft: SessionDraft, sb: SessionBuilder): void {
  const turns = byTime(draft.turns);
  const rounds = byTime(draft.rounds);
  let t = 0;
  for (const r of rounds) {
    while (t < turns.length && !(turns[t]!.time > r.time)) sb.userTurn(turns[t++]!.line);
    sb.round({ line: r.line, model: r.model, timestamp: Number.isNaN(r.time) ? null : new Date(r.time).toISOString() });
    if (r.text.length > 0) sb.text(r.text.join('\n'));
    for (const block of r.thinking) sb.thinking(block);
    for (const call of r.calls) sb.call(call);
    for (const call of r.calls) {
      const answer = call.id !== null ? r.answers.get(call.id) : undefined;
      if (answer) sb.answer(call.id, answer);
    }
    for (const answer of r.positional) sb.answer(null, answer);
    if (r.usage) sb.usage(r.usage);
    if (r.trace) sb.trace(r.trace);
    sb.flush();
  }
  while (t < turns.length) sb.userTurn(turns[t++]!.line);
}

/**
 * Attaches tool spans (execute_tool, OpenInference TOOL) to the responses: a span's answer goes to
 * the call with its id; without an id, to the first call of its name in the round under way that no
 * tool span answered yet; a call no response named (message capture off) is added to that round, so
 * names alone still count. Built once per session: the calls are indexed by id.
 */
export class ToolSpans {
  private readonly owner = new Map<string, RoundDraft>();

  constructor(private readonly rounds: readonly RoundDraft[]) {
    for (const r of rounds) for (const c of r.calls) if (c.id !== null && !this.owner.has(c.id)) this.owner.set(c.id, r);
  }

  attach(span: { id: string | null; name: string; arguments: unknown; answer: ToolAnswer | null; time: number }): void {
    const owner = span.id !== null ? this.owner.get(span.id) : undefined;
    if (owner) {
      if (span.answer) owner.answers.set(span.id!, span.answer);
      return;
    }
    const round = roundAt(this.rounds, span.time);
    if (!round) return;
    if (span.id === null) {
      // A message may have answered it already: the span's own result is the better one.
      const index = round.calls.findIndex((c, i) => c.name === span.name && c.id !== null && !round.spanAnswered.has(i));
      if (index >= 0) {
        round.spanAnswered.add(index);
        if (span.answer) round.answers.set(round.calls[index]!.id!, span.answer);
        return;
      }
    }
    round.calls.push({ id: span.id, name: span.name, arguments: span.arguments });
    if (span.id !== null) this.owner.set(span.id, round);
    if (span.answer) {
      if (span.id !== null) round.answers.set(span.id, span.answer);
      else round.positional.push(span.answer);
    }
  }
}

/**
 * The span (of those sorted by end time) that ended closest to `time` and is not yet `used`: the
 * span that recorded a response logged when it ended. A binary search, then the nearest unused on
 * either side, so a session of thousands of responses stays linear-logarithmic.
 */
export function nearestEnded(byEnd: readonly OtelItem[], time: number, used: Set<OtelItem>, accept: (span: OtelItem) => boolean): OtelItem | null {
  let lo = 0;
  let hi = byEnd.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (byEnd[mid]!.end < time) lo = mid + 1;
    else hi = mid;
  }
  // The nearest few on each side: the spans used before lie behind, and are not walked again.
  let left = lo - 1;
  let right = lo;
  const stop = (i: number) => Math.abs(i - lo) > NEAREST_WINDOW;
  while (left >= 0 && !stop(left) && (used.has(byEnd[left]!) || !accept(byEnd[left]!))) left--;
  while (right < byEnd.length && !stop(right) && (used.has(byEnd[right]!) || !accept(byEnd[right]!))) right++;
  const l = left >= 0 && !stop(left) ? byEnd[left]! : null;
  const r = right < byEnd.length && !stop(right) ? byEnd[right]! : null;
  const best = l && r ? (time - l.end <= r.end - time ? l : r) : (l ?? r);
  if (best) used.add(best);
  return best;
}

/** How far from the closest end nearestEnded() looks for an unused span. */
const NEAREST_WINDOW = 64;
