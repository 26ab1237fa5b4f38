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
 * A tool span (execute_tool, OpenInference TOOL) beside the responses: its answer goes to the call
 * with its id; without an id, to the first unanswered call of its name in the round under way; a
 * call no response named (message capture off) is added to that round, so names alone still count.
 */
export function attachToolSpan(rounds: readonly RoundDraft[], span: { id: string | null; name: string; arguments: unknown; answer: ToolAnswer | null; time: number }): void {
  if (span.id !== null) {
    const owner = rounds.find((r) => r.calls.some((c) => c.id === span.id));
    if (owner) {
      if (span.answer) owner.answers.set(span.id, span.answer);
      return;
    }
  }
  const round = roundAt(rounds, span.time);
  if (!round) return;
  if (span.id === null) {
    // The first call of its name no tool span answered yet (a message may have answered it: the span's result is the better one).
    const index = round.calls.findIndex((c, i) => c.name === span.name && c.id !== null && !round.spanAnswered.has(i));
    if (index >= 0) {
      round.spanAnswered.add(index);
      if (span.answer) round.answers.set(round.calls[index]!.id!, span.answer);
      return;
    }
  }
  round.calls.push({ id: span.id, name: span.name, arguments: span.arguments });
  if (span.answer) {
    if (span.id !== null) round.answers.set(span.id, span.answer);
    else round.positional.push(span.answer);
  }
}
