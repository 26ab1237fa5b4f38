// A line the reader set aside (malformed JSON, too long, not a record of the format), and how many
// of them a file's summary keeps.

/** SPEC: `inputs[].skipped` keeps at most the first 100 skipped lines of a file. */
export const MAX_KEPT_SKIPS = 100;

export interface SkippedLine {
  line: number | null;
  reason: string;
}
