// The short trace `loopledger label` shows: a sink that keeps, for each session, only the rounds
// of its window and only the first characters of each call and answer, so a store of long
// sessions is labelled in bounded memory.

import type { Round, SessionInfo, TranscriptSink } from '../model/transcript.js';
import type { TraceRound } from './items.js';

/** More than any terminal line shows: the screen cuts again to its width. */
const KEPT_CHARS = 240;

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, KEPT_CHARS);
}

function argsText(args: unknown): string {
  if (typeof args === 'string') return oneLine(args);
  try {
    return oneLine(JSON.stringify(args) ?? '');
  } catch {
    return '';
  }
}

export class TraceCollector implements TranscriptSink {
  private readonly kept = new Map<string, TraceRound[]>();

  /** `windows`: session id → the rounds (1-based, inclusive) to keep. */
  constructor(private readonly windows: ReadonlyMap<string, { from: number; to: number }>) {}

  session(_info: SessionInfo): void {}
  turn(): void {}
  end(): void {}

  round(sessionId: string, round: Round): void {
    const w = this.windows.get(sessionId);
    if (!w || round.index < w.from || round.index > w.to) return;
    const list = this.kept.get(sessionId) ?? [];
    list.push({
      turn: round.turn,
      round: round.index,
      text: oneLine(round.text),
      calls: round.calls.map((c, i) => {
        const a = round.answers?.[i];
        return { name: oneLine(c.name), args: argsText(c.arguments), answer: a ? oneLine(a.content) : null, failed: a ? a.isError || a.failed === true : false };
      }),
    });
    this.kept.set(sessionId, list);
  }

  trace(sessionId: string): TraceRound[] {
    return this.kept.get(sessionId) ?? [];
  }
}
