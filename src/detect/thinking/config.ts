// `thinking.*` keys: every threshold of the thinking loop detector, with the reason for its
// default. Seed 002 fixes the kinds and that the usage bypass is capped so it can only steer; the
// similarity bands mirror the output detector's 0.85–0.90 ambiguous band.

import { defineSection, sectionDefaults, type SectionFields } from '../../config/section.js';

export interface ThinkingConfig {
  similarityAmbiguous: number;
  similarityStrong: number;
  minBlockChars: number;
  maxBlockChars: number;
  connectorMinRepeats: number;
  connectorOpeningMin: number;
  connectorOpeningWindow: number;
  runawayMinRatio: number;
  runawayMinReasoningTokens: number;
  runawayMinRounds: number;
  runawayConfidenceCap: number;
  charsPerToken: number;
}

const THINKING_FIELDS: SectionFields<ThinkingConfig> = {
  similarityAmbiguous: {
    key: 'thinking.similarity_ambiguous',
    type: 'ratio',
    default: 0.85,
    tier: 'ratio',
    reason: "seed 002's ambiguous band starts at 0.85; adjacent thinking blocks that similar are asked about, not trusted",
  },
  similarityStrong: {
    key: 'thinking.similarity_strong',
    type: 'ratio',
    default: 0.9,
    tier: 'ratio',
    reason: "seed 002's strong band: above 0.90 adjacent blocks restate the same reasoning",
  },
  minBlockChars: {
    key: 'thinking.min_block_chars',
    type: 'integer',
    default: 64,
    min: 1,
    max: 1 << 20,
    tier: 'count',
    reason: 'a one-line block ("Okay, next file.") legitimately recurs; similarity needs a sentence or two of content',
  },
  maxBlockChars: {
    key: 'thinking.max_block_chars',
    type: 'integer',
    default: 16384,
    min: 256,
    max: 1 << 22,
    reason: 'blocks are compared on their last 16k normalized characters, so memory stays bounded per turn',
  },
  connectorMinRepeats: {
    key: 'thinking.connector_min_repeats',
    type: 'integer',
    default: 3,
    min: 2,
    max: 1000,
    tier: 'count',
    reason: 'as for output: three copies of a connector-only run ("wait, but actually") never carry content',
  },
  connectorOpeningMin: {
    key: 'thinking.connector_opening_min',
    type: 'integer',
    default: 5,
    min: 2,
    max: 1000,
    tier: 'count',
    reason: 'five of eight thinking sentences re-opening with "Wait," is the classic reasoning stall; one below output since nobody reads it',
  },
  connectorOpeningWindow: {
    key: 'thinking.connector_opening_window',
    type: 'integer',
    default: 8,
    min: 2,
    max: 256,
    reason: 'a paragraph of sentences: long enough to see a habit, short enough to forget it',
  },
  runawayMinRatio: {
    key: 'thinking.runaway_min_ratio',
    type: 'number',
    default: 10,
    min: 1,
    max: 1e6,
    tier: 'count',
    reason: 'ten reasoning tokens per visible token: a round that thinks a page to say a line',
  },
  runawayMinReasoningTokens: {
    key: 'thinking.runaway_min_reasoning_tokens',
    type: 'integer',
    default: 16000,
    min: 1,
    max: 1e9,
    tier: 'count',
    reason: 'hard problems legitimately think a few thousand tokens; sixteen thousand over the streak is growth, not care',
  },
  runawayMinRounds: {
    key: 'thinking.runaway_min_rounds',
    type: 'integer',
    default: 2,
    min: 1,
    max: 1000,
    tier: 'count',
    reason: 'growth needs more than one round: one long think before a short answer is normal',
  },
  runawayConfidenceCap: {
    key: 'thinking.runaway_confidence_cap',
    type: 'ratio',
    default: 0.6,
    reason: 'seed 002: the usage bypass is capped so it can only steer, never hard-stop on heuristics',
  },
  charsPerToken: {
    key: 'thinking.chars_per_token',
    type: 'number',
    default: 4,
    min: 1,
    max: 16,
    reason: 'visible output is estimated from text length the same way for every format (about four characters a token)',
  },
};

/** The `thinking` section: every `thinking.*` key, and the relations between them repaired. */
export const THINKING_SECTION = defineSection<ThinkingConfig>(THINKING_FIELDS, (c, warn) => {
  if (c.similarityStrong < c.similarityAmbiguous) {
    warn(`thinking.similarity_strong (${c.similarityStrong}) is below thinking.similarity_ambiguous (${c.similarityAmbiguous}); raised to it`);
    c.similarityStrong = c.similarityAmbiguous;
  }
  if (c.connectorOpeningMin > c.connectorOpeningWindow) {
    warn(`thinking.connector_opening_min (${c.connectorOpeningMin}) exceeds thinking.connector_opening_window (${c.connectorOpeningWindow}); clamped`);
    c.connectorOpeningMin = c.connectorOpeningWindow;
  }
});

/** `thinking.*` keys. */
export const THINKING_KEYS = THINKING_SECTION.keys;

export function defaultThinkingConfig(): Readonly<ThinkingConfig> {
  return sectionDefaults(THINKING_SECTION);
}
