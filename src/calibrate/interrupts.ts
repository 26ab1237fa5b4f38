// `sweep --labels interrupts`: the user's own interrupts as weak labels (issue 28.5, 33.3). A session
// the user interrupted right after a repeat is labelled a loop from that turn on; an interrupt with
// no repeat before it labels nothing (a person stops an agent for many reasons) and is counted
// apart. Beside hand labels (`--labels FILE --labels interrupts`), a hand label always wins.
//
// The weak labels are read once, under the base configuration, so every swept value is scored
// against the same labels; per value the sweep counts how many of those interrupted loops Enforce
// would have stopped first (a stop at or before the interrupted round, in the same turn) and by how
// many rounds in total.

import type { SessionLedger } from '../ledger/types.js';
import { LEVEL_RANK, type EnforceLevel } from '../vocabulary.js';
import { labelKeyFor, type Label, type Labels } from './labels.js';

/** The `--labels` value that asks for weak labels instead of a file. */
export const INTERRUPT_LABELS = 'interrupts';

/** One interrupt after a repeat, under the base configuration. */
interface WeakLoop {
  session: string;
  turn: number;
  round: number;
}

export interface InterruptLabels {
  /** Hand labels, then a loop label per interrupted session no hand label names. */
  labels: Map<string, Label>;
  /** Keys of `labels` that are weak (from an interrupt), for the summary and merge. */
  weak: Set<string>;
  loops: WeakLoop[];
  /** Interrupts with no repeat before them. */
  noRepeat: number;
  /** Interrupted sessions a hand label already named. */
  handWins: number;
}

export interface InterruptSummary {
  /** Interrupts right after a repeat (each a weak loop label, unless a hand label named the session). */
  after_repeat: number;
  no_repeat: number;
  hand_wins: number;
}

export interface InterruptPointScore {
  /** Interrupted loops (after a repeat) in the corpus. */
  loops: number;
  /** Of those, how many Enforce would have stopped (at the positive level) before the user did. */
  stopped_first: number;
  /** Rounds between Enforce's stop and the user's, summed over `stopped_first`. */
  rounds_earlier: number;
}

export function interruptLabels(sessions: readonly SessionLedger[], hand: Labels | null): InterruptLabels {
  const labels = new Map<string, Label>(hand ?? []);
  const weak = new Set<string>();
  const loops: WeakLoop[] = [];
  let noRepeat = 0;
  let handWins = 0;
  for (const s of sessions) {
    const list = s.interrupts ?? [];
    noRepeat += list.filter((i) => !i.after_repeat).length;
    const first = list.find((i) => i.after_repeat);
    if (!first) continue;
    for (const i of list) if (i.after_repeat) loops.push({ session: s.id, turn: i.turn, round: i.round });
    if (hand && labelKeyFor(s, hand) !== null) {
      handWins++;
      continue;
    }
    // From the turn of the finding the person reacted to: a stop before it is not this loop.
    labels.set(s.id, { label: 'loop', turn: first.finding?.turn ?? first.turn });
    weak.add(s.id);
  }
  return { labels, weak, loops, noRepeat, handWins };
}

/** How the sessions of one swept value meet the interrupted loops. */
export function scoreInterrupts(sessions: readonly SessionLedger[], loops: readonly WeakLoop[], positive: Exclude<EnforceLevel, 'none'>): InterruptPointScore {
  const byId = new Map(sessions.map((s) => [s.id, s] as const));
  let stoppedFirst = 0;
  let earlier = 0;
  for (const loop of loops) {
    const s = byId.get(loop.session);
    if (!s) continue;
    let first: number | null = null;
    for (const e of s.entries) {
      if (e.after_stop || e.turn !== loop.turn || e.round > loop.round) continue;
      if (LEVEL_RANK[e.intervention.enforce] < LEVEL_RANK[positive]) continue;
      if (first === null || e.round < first) first = e.round;
    }
    if (first === null) continue;
    stoppedFirst++;
    earlier += loop.round - first;
  }
  return { loops: loops.length, stopped_first: stoppedFirst, rounds_earlier: earlier };
}
