// What every finding kind declares about itself, beside the detector that emits it: the text a
// code-scanning UI shows (SARIF), the line the judge is shown, the line the docs print, and the
// highest level the ladder gives it on heuristics alone.

export interface KindInfo {
  /** SARIF `fullDescription`: one sentence for a code-scanning UI. */
  readonly sarif: string;
  /** What the judge is told the signal measures; null: never sent to the judge (counts, not estimates). */
  readonly judge: string | null;
  /** The docs' line (docs/kinds.md): what a person reading a ledger should understand. */
  readonly doc: string;
  /**
   * The highest level the ladder gives it on heuristics alone: `null` as far as the evidence
   * goes; `steer` never a stop (a cycle, a capped kind); `noted` never more (a session-wide
   * tally, which seed 000 forbids as a verdict).
   */
  readonly cap: 'steer' | 'noted' | null;
  /** Seed 002's capped kinds, "never hard-stop on heuristics alone": the default of `ladder.capped_kinds`. */
  readonly capped: boolean;
}
