// The user's own interrupts as weak labels (issue 28.5): an Esc shortly after a repeat finding
// says the person saw a loop, without anyone labelling anything. Each interrupt is matched to the
// latest finding of its turn at most `interrupts.after_repeat_rounds` rounds before it.

import { defineSection } from '../config/section.js';
import type { Interrupt } from '../model/transcript.js';
import { lastRoundOf } from './runs.js';
import type { LedgerEntry, SessionInterrupt } from './types.js';

export interface InterruptConfig {
  afterRepeatRounds: number;
}

export const INTERRUPT_SECTION = defineSection<InterruptConfig>({
  afterRepeatRounds: {
    key: 'interrupts.after_repeat_rounds',
    type: 'integer',
    default: 3,
    min: 0,
    max: 50,
    reason:
      'a person reacts to a repeat within the next call or two (the stop comes one round after the first repeat is noted); ' +
      '3 rounds also covers a parallel batch answered late, while a longer gap is more often new work the person stopped for another reason',
  },
});

/** The session's interrupts, each with the finding it followed (if any within the window). */
export function settleInterrupts(raw: readonly Interrupt[], entries: readonly LedgerEntry[], window: number): SessionInterrupt[] {
  return raw.map((i) => {
    let finding: LedgerEntry | null = null;
    let at = 0;
    for (const e of entries) {
      // A run (ledger/runs.ts) found the same on each of its rounds: its latest one up to the interrupt.
      const round = Math.min(lastRoundOf(e), i.round);
      if (e.turn !== i.turn || e.round > i.round || round < i.round - window) continue;
      if (finding === null || round >= at) {
        finding = e;
        at = round;
      }
    }
    return {
      turn: i.turn,
      round: i.round,
      after_repeat: finding !== null,
      finding: finding ? { detector: finding.detector, kind: finding.kind, turn: finding.turn, round: at } : null,
    };
  });
}

/** "you stopped it at round R; Enforce would have at round R−k", for the interrupts after a repeat. */
export function interruptPhrase(i: SessionInterrupt, stops: readonly { turn: number; round: number }[]): string {
  const stop = stops.find((s) => s.turn === i.turn && s.round <= i.round);
  const you = `you stopped it at round ${i.round}`;
  if (!i.after_repeat) return `${you}, with no repeat before it`;
  if (!stop) return `${you}, ${i.round - i.finding!.round} round(s) after a repeat; Enforce would not have stopped it`;
  const k = i.round - stop.round;
  return `${you}; Enforce would have at round ${stop.round}${k > 0 ? ` (${k} round${k === 1 ? '' : 's'} earlier)` : ''}`;
}
