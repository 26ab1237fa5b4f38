// `output.*` keys: every threshold of the output loop detector, with the reason for its default.
// Seed 002 fixes the near-repetition bands (0.85–0.90 ambiguous, above strong), the promoted
// confidence (0.88), the compression keys' names and the low predictable-drift confidence; the
// rest are chosen here and say why.

import { defineSection, sectionDefaults, type SectionFields } from '../../config/section.js';

export interface OutputConfig {
  strideChars: number;
  windowChars: number;
  exactBlockMinWords: number;
  exactBlockMinRepeats: number;
  nearRepetitionAmbiguous: number;
  nearRepetitionStrong: number;
  compressionMinRedundancy: number;
  windowCompressionRatioMin: number | null;
  shortPeriodMaxUnits: number;
  shortPeriodMinRepeats: number;
  connectorMinRepeats: number;
  connectorOpeningMin: number;
  connectorOpeningWindow: number;
  predictableDriftMinTerms: number;
  predictableDriftMaxGapWords: number;
  predictableDriftConfidence: number;
  dominanceMin: number;
  perRoundMinWords: number;
  recurringPhraseConfidence: number;
  repeatedResponseMin: number;
}

const OUTPUT_FIELDS: SectionFields<OutputConfig> = {
  strideChars: {
    key: 'output.stride_chars',
    type: 'integer',
    default: 512,
    min: 1,
    max: 1 << 20,
    reason: 'one analysis pass per ~100 words: a loop is caught within a paragraph while per-character work stays light',
  },
  windowChars: {
    key: 'output.window_chars',
    type: 'integer',
    default: 32768,
    min: 4096,
    max: 1 << 22,
    reason: 'holds four copies of a ~936-token block (~3.7k chars each) with room to spare; memory stays bounded per turn',
  },
  exactBlockMinWords: {
    key: 'output.exact_block_min_words',
    type: 'integer',
    default: 8,
    min: 3,
    max: 512,
    tier: 'count',
    reason: 'eight verbatim words are a sentence-sized phrase, longer than the idioms prose reuses',
  },
  exactBlockMinRepeats: {
    key: 'output.exact_block_min_repeats',
    type: 'integer',
    default: 4,
    min: 2,
    max: 1000,
    tier: 'count',
    reason: "seed 002's block positive repeats four times; three copies of a status sentence are common in long agent turns",
  },
  nearRepetitionAmbiguous: {
    key: 'output.near_repetition_ambiguous',
    type: 'ratio',
    default: 0.85,
    tier: 'ratio',
    reason: 'seed 002: window similarity 0.85-0.90 is the ambiguous band (the judge is asked)',
  },
  nearRepetitionStrong: {
    key: 'output.near_repetition_strong',
    type: 'ratio',
    default: 0.9,
    tier: 'ratio',
    reason: 'seed 002: above 0.90 the near repetition is strong without corroboration',
  },
  compressionMinRedundancy: {
    key: 'output.compression_min_redundancy',
    type: 'ratio',
    default: 0.65,
    tier: 'ratio',
    reason: "the LZ77 proxy copies 0.42-0.49 of an 8k window of this project's own docs and 0.7+ of a varied loop; 0.65 sits between",
  },
  windowCompressionRatioMin: {
    key: 'output.window_compression_ratio_min',
    type: 'ratio',
    default: null,
    nullable: true,
    reason: 'seed 002 override of compression_min_redundancy when set; none keeps compression_min_redundancy',
  },
  shortPeriodMaxUnits: {
    key: 'output.short_period_max_units',
    type: 'integer',
    default: 5,
    min: 1,
    max: 16,
    reason: 'seed 002: periods of one to five units; longer units are exact blocks',
  },
  shortPeriodMinRepeats: {
    key: 'output.short_period_min_repeats',
    type: 'integer',
    default: 6,
    min: 2,
    max: 1000,
    tier: 'count',
    reason: "three is emphasis (\"no, no, no\"); six unbroken copies of a short unit is a decoder chanting",
  },
  connectorMinRepeats: {
    key: 'output.connector_min_repeats',
    type: 'integer',
    default: 3,
    min: 2,
    max: 1000,
    tier: 'count',
    reason: 'a run made only of connectors carries no content; three copies of it never happen in prose',
  },
  connectorOpeningMin: {
    key: 'output.connector_opening_min',
    type: 'integer',
    default: 6,
    min: 2,
    max: 1000,
    tier: 'count',
    reason: 'six of the last eight sentences opening with one connector ("Wait, …") is stalling; "So"/"Also" streaks stay below',
  },
  connectorOpeningWindow: {
    key: 'output.connector_opening_window',
    type: 'integer',
    default: 8,
    min: 2,
    max: 256,
    reason: 'a paragraph of sentences: long enough to see a habit, short enough to forget it',
  },
  predictableDriftMinTerms: {
    key: 'output.predictable_drift_min_terms',
    type: 'integer',
    default: 5,
    min: 3,
    max: 10000,
    tier: 'count',
    reason: 'five consecutive counter values are a series, not a coincidence of numbers in prose',
  },
  predictableDriftMaxGapWords: {
    key: 'output.predictable_drift_max_gap_words',
    type: 'integer',
    default: 64,
    min: 1,
    max: 100000,
    reason: 'step labels sit a sentence or two apart; a gap of a long paragraph ends the series',
  },
  predictableDriftConfidence: {
    key: 'output.predictable_drift_confidence',
    type: 'ratio',
    default: 0.35,
    reason: 'seed 002: an enumeration is its own deliberately low-confidence kind, never a loop; below any steer-only bar',
  },
  dominanceMin: {
    key: 'output.dominance_min',
    type: 'ratio',
    default: 0.75,
    tier: 'ratio',
    reason:
      "repetition dominates its round from this share of the round's raw text on: in the calibration corpus a re-emitted unit covers at most 0.58 of a clean round (a status preamble before a changing list) and 0.96-1.0 of a looping one (chants, re-emitted paragraphs); the steer sweep is flat from 0.6 to 0.9",
  },
  perRoundMinWords: {
    key: 'output.per_round_min_words',
    type: 'integer',
    default: 30,
    min: 3,
    max: 4096,
    tier: 'count',
    reason:
      'a unit recurring once per round must be longer than a sentence to be a loop (seed 002: prose with a repeated sentence is a negative): whole-round narration in the corpus runs 12-16 words, the shortest re-emitted paragraph 45; the sweep keeps every loop and no false positive from 16 to 40',
  },
  recurringPhraseConfidence: {
    key: 'output.recurring_phrase_confidence',
    type: 'ratio',
    default: 0.3,
    reason: 'a phrase recurring once per round among changing text is noted, never a loop: below the steer bar, like predictable_drift',
  },
  repeatedResponseMin: {
    key: 'output.repeated_response_min',
    type: 'integer',
    default: 3,
    min: 2,
    max: 1000,
    reason: 'SPEC 0.2: text-only responses of one turn, identical after normalization, three in a row, whatever their length; the third steers',
  },
};

/** The `output` section: every `output.*` key, and the relations between them repaired. */
export const OUTPUT_SECTION = defineSection<OutputConfig>(OUTPUT_FIELDS, (c, warn) => {
  if (c.nearRepetitionStrong < c.nearRepetitionAmbiguous) {
    warn(`output.near_repetition_strong (${c.nearRepetitionStrong}) is below output.near_repetition_ambiguous (${c.nearRepetitionAmbiguous}); raised to it`);
    c.nearRepetitionStrong = c.nearRepetitionAmbiguous;
  }
  if (c.connectorOpeningMin > c.connectorOpeningWindow) {
    warn(`output.connector_opening_min (${c.connectorOpeningMin}) exceeds output.connector_opening_window (${c.connectorOpeningWindow}); clamped`);
    c.connectorOpeningMin = c.connectorOpeningWindow;
  }
});

/** `output.*` keys. */
export const OUTPUT_KEYS = OUTPUT_SECTION.keys;

export function defaultOutputConfig(): Readonly<OutputConfig> {
  return sectionDefaults(OUTPUT_SECTION);
}

/** The compression bar in force: the seed's override when set, else the redundancy key. */
export function compressionThreshold(c: OutputConfig): number {
  return c.windowCompressionRatioMin ?? c.compressionMinRedundancy;
}
