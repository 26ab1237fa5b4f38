// The kinds the thinking detector emits (detector.ts). An identical block is not a kind of its
// own: the seed folds it into adjacent-block similarity, so it is `thinking_stagnation` with
// `identical: true` in its evidence.

import type { KindInfo } from '../kind.js';
import { CONNECTOR_JUDGE_LINE } from '../output/kinds.js';

export const THINKING_KINDS = {
  thinking_stagnation: {
    sarif: 'Adjacent thinking blocks too similar to each other (identical blocks included).',
    judge: 'adjacent reasoning blocks are highly similar',
    doc: 'Adjacent thinking blocks too similar to each other; an identical block has `identical: true` in its evidence.',
    cap: null,
    capped: false,
  },
  connector_stalling: {
    sarif: 'Thinking stalling on connector phrases without progress.',
    judge: CONNECTOR_JUDGE_LINE,
    doc: 'Thinking returning to the same connector phrases with little between them.',
    cap: null,
    capped: false,
  },
  reasoning_runaway: {
    sarif: 'Opaque reasoning tokens growing against visible output (capped: can only steer).',
    judge: 'reasoning tokens keep growing while the visible output stays small',
    doc: 'Opaque reasoning tokens growing against visible output (the usage bypass): capped, so it can only steer.',
    cap: 'steer',
    capped: true,
  },
} as const satisfies Record<string, KindInfo>;
