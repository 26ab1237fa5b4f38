// The kinds the output detectors emit (detector.ts, response.ts).

import type { KindInfo } from '../kind.js';

/** The connector signal reads the same to the judge in visible output and in thinking. */
export const CONNECTOR_JUDGE_LINE = 'the text keeps returning to the same connector words with little between them';

export const OUTPUT_KINDS = {
  exact_block: {
    sarif: 'A block of visible output repeated verbatim.',
    judge: 'a block of the visible output recurs verbatim',
    doc: 'A block of visible output repeated verbatim (the exact-block index of seed 002).',
    cap: null,
    capped: false,
  },
  near_repetition: {
    sarif: 'Visible output nearly identical to an earlier window (character n-gram similarity).',
    judge: 'the latest window of visible output is highly similar to the window before it (character n-gram Jaccard)',
    doc: 'Visible output nearly identical to the window before it (multi-scale character n-gram similarity, with the compression proxy).',
    cap: null,
    capped: false,
  },
  short_period: {
    sarif: 'Visible output repeating with a short period.',
    judge: 'the visible output cycles with a short period',
    doc: 'Visible output repeating with a short period (a few characters or words over and over).',
    cap: null,
    capped: false,
  },
  connector_stalling: {
    sarif: 'Visible output stalling on connector phrases without progress.',
    judge: CONNECTOR_JUDGE_LINE,
    doc: 'Visible output returning to the same connector phrases ("Let me…", "Now…") with little between them.',
    cap: null,
    capped: false,
  },
  predictable_drift: {
    sarif: 'A predictable enumeration (low confidence).',
    judge: 'an enumeration or counter advances predictably',
    doc: 'An enumeration or counter advancing predictably (1, 2, 3, … or a, b, c, …): low confidence, capped.',
    cap: 'steer',
    capped: true,
  },
  recurring_phrase: {
    sarif: 'A phrase recurring once per round among changing text (noted, not a loop).',
    judge: null,
    doc: 'A phrase recurring once per round among changing text: noted, not a loop.',
    cap: null,
    capped: false,
  },
  repeated_response: {
    sarif: 'The same text-only response given several times in a row.',
    judge: 'text-only responses of one turn are identical after normalization',
    doc: 'The same text-only response, after normalization, three times in a row in one turn: the third steers.',
    cap: null,
    capped: false,
  },
} as const satisfies Record<string, KindInfo>;
