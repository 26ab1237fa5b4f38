// A transcript's sink events as one flat array, so they can be kept and replayed (a sweep replays
// its corpus once per value) or posted to another thread (the two-thread pipeline): one array
// clones faster than an object per event.
//   's' info | 't' sessionId turn line | 'r' sessionId round | 'e' sessionId | 'k' skipped
//   'c' sessionId recordedCost | 'i' sessionId interrupt | 'h' sessionId agent halt
//   | 'm' sessionId startedMs endedMs

import type { SkippedLine } from '../read/skipped.js';
import type { AgentHalt, Interrupt, RecordedCost, Round, SessionInfo, SessionTimes, TranscriptSink } from './transcript.js';

export type TranscriptEvents = unknown[];

/**
 * A sink that appends every event to `target()` (read at each event, so the caller may swap in a
 * fresh array, as a batching sender does). `mapRound` may rewrite a round before it is kept;
 * `onRound` sees the round as delivered.
 */
export function eventRecorder(
  target: () => TranscriptEvents,
  hooks: { mapRound?: (round: Round) => Round; onRound?: (round: Round) => void } = {},
): TranscriptSink & { skip(skipped: SkippedLine): void } {
  return {
    session(info: SessionInfo) {
      target().push('s', info);
    },
    turn(sessionId: string, turn: number, line: number | null) {
      target().push('t', sessionId, turn, line);
    },
    round(sessionId: string, round: Round) {
      target().push('r', sessionId, hooks.mapRound ? hooks.mapRound(round) : round);
      hooks.onRound?.(round);
    },
    end(sessionId: string) {
      target().push('e', sessionId);
    },
    recordedCost(sessionId: string, cost: RecordedCost) {
      target().push('c', sessionId, cost);
    },
    skip(skipped: SkippedLine) {
      target().push('k', skipped);
    },
    interrupt(sessionId: string, interrupt: Interrupt) {
      target().push('i', sessionId, interrupt);
    },
    halt(sessionId: string, halt: AgentHalt) {
      target().push('h', sessionId, halt);
    },
    times(sessionId: string, times: SessionTimes) {
      target().push('m', sessionId, times.startedMs, times.endedMs);
    },
  };
}

/** Deliver recorded events to `sink`, in order; skipped lines go to `onSkip`. */
export function deliverEvents(
  events: TranscriptEvents,
  sink: TranscriptSink,
  onSkip?: (skipped: SkippedLine) => void,
): void {
  let i = 0;
  while (i < events.length) {
    switch (events[i] as string) {
      case 's':
        sink.session(events[i + 1] as SessionInfo);
        i += 2;
        break;
      case 't':
        sink.turn(events[i + 1] as string, events[i + 2] as number, events[i + 3] as number | null);
        i += 4;
        break;
      case 'r':
        sink.round(events[i + 1] as string, events[i + 2] as Round);
        i += 3;
        break;
      case 'e':
        sink.end(events[i + 1] as string);
        i += 2;
        break;
      case 'k':
        onSkip?.(events[i + 1] as SkippedLine);
        i += 2;
        break;
      case 'c':
        sink.recordedCost?.(events[i + 1] as string, events[i + 2] as RecordedCost);
        i += 3;
        break;
      case 'i':
        sink.interrupt?.(events[i + 1] as string, events[i + 2] as Interrupt);
        i += 3;
        break;
      case 'h':
        sink.halt?.(events[i + 1] as string, events[i + 2] as AgentHalt);
        i += 3;
        break;
      case 'm':
        sink.times?.(events[i + 1] as string, { startedMs: events[i + 2] as number, endedMs: events[i + 3] as number });
        i += 4;
        break;
      default:
        throw new Error(`transcript events: unknown event ${String(events[i])}`);
    }
  }
}
