// The labeller as a pure state machine: a key in, the next state and at most one label to write
// out. The terminal shell and `--batch` both drive it, so what a key does is tested once, here.

import type { LabelItem } from './items.js';

type Answer = 'loop' | 'clean';
export type LabelAction = Answer | 'skip' | 'back' | 'quit' | 'accept';

/** What the labels file holds for one key (the shape `sweep --labels` reads). */
export type LabelValue = 'clean' | 'loop' | { label: 'loop'; turn: number; round: number };

export interface LabelState {
  readonly items: readonly LabelItem[];
  /** The item on screen; `items.length` once every item was answered or skipped. */
  readonly index: number;
  /** Answers given in this run, by key (revisited with back, they show). */
  readonly answers: ReadonlyMap<string, Answer>;
  readonly quit: boolean;
}

export interface LabelStep {
  state: LabelState;
  /** The label to write now (the file is rewritten after every answer), or null. */
  write: { key: string; value: LabelValue } | null;
}

export function startLabelling(items: readonly LabelItem[]): LabelState {
  return { items, index: 0, answers: new Map(), quit: false };
}

export function isFinished(state: LabelState): boolean {
  return state.quit || state.index >= state.items.length;
}

export function currentItem(state: LabelState): LabelItem | null {
  return isFinished(state) ? null : (state.items[state.index] ?? null);
}

/** A loop label says where it starts (the first finding), so a stop before it does not count. */
function labelValue(item: LabelItem, answer: Answer): LabelValue {
  if (answer === 'clean' || item.start === null) return answer;
  return { label: 'loop', turn: item.start.turn, round: item.start.round };
}

/** Keys as the terminal sends them; anything else is ignored. */
export function actionForKey(key: string): LabelAction | null {
  switch (key) {
    case 'l':
    case 'L':
      return 'loop';
    case 'c':
    case 'C':
      return 'clean';
    case 's':
    case 'S':
    case ' ':
      return 'skip';
    case 'b':
    case 'B':
    case '\u001b[D': // left arrow
    case '\u001bOD':
      return 'back';
    case 'q':
    case 'Q':
    case '\u0003': // Ctrl-C in raw mode
    case '\u0004': // Ctrl-D
      return 'quit';
    case '\r':
    case '\n':
      return 'accept';
    default:
      return null;
  }
}

export function press(state: LabelState, action: LabelAction): LabelStep {
  if (isFinished(state)) return { state, write: null };
  const item = state.items[state.index]!;
  switch (action) {
    case 'quit':
      return { state: { ...state, quit: true }, write: null };
    case 'back':
      return { state: { ...state, index: Math.max(0, state.index - 1) }, write: null };
    case 'skip':
      return { state: { ...state, index: state.index + 1 }, write: null };
    case 'accept':
      // Enter takes the proposed answer; with none proposed it does nothing (no silent default).
      if (item.proposed === null) return { state, write: null };
      return press(state, item.proposed);
    case 'loop':
    case 'clean': {
      const answers = new Map(state.answers);
      answers.set(item.key, action);
      return { state: { ...state, answers, index: state.index + 1 }, write: { key: item.key, value: labelValue(item, action) } };
    }
  }
}
