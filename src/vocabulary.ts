// The small vocabularies every stage shares, each declared once: the level scale an intervention
// is measured on, the modes, the report formats. Everything else imports them from here.

/**
 * The intervention scale, weakest first: none < noted < steer < stop. An entry's `enforce` column,
 * `tool_batch.cycle_enforce`, `--fail-on` and the sweep's `--positive` are all read on it.
 */
export const ENFORCE_LEVELS = ['none', 'noted', 'steer', 'stop'] as const;
export type EnforceLevel = (typeof ENFORCE_LEVELS)[number];

/** A level's place on the scale: compare ranks, never names. */
export const LEVEL_RANK: Readonly<Record<EnforceLevel, number>> = { none: 0, noted: 1, steer: 2, stop: 3 };

/** The stronger of two levels. */
export function strongerLevel(a: EnforceLevel, b: EnforceLevel): EnforceLevel {
  return LEVEL_RANK[b] > LEVEL_RANK[a] ? b : a;
}

/** Seed 002's modes: Off does nothing, Telemetry only notes, Enforce steers and stops. */
export const MODES = ['off', 'telemetry', 'enforce'] as const;
export type Mode = (typeof MODES)[number];

export function isMode(s: string): s is Mode {
  return (MODES as readonly string[]).includes(s);
}

/** `--format` of the ledger. */
export const REPORT_FORMATS = ['table', 'json', 'ndjson', 'markdown', 'junit', 'sarif', 'github', 'html', 'otlp'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Formats read by programs: they never carry colour, whatever `color` says. */
export const MACHINE_FORMATS: readonly ReportFormat[] = ['json', 'ndjson', 'junit', 'sarif', 'github', 'otlp'];

/** `--format` of `sweep`: its table, the whole result as JSON, or a page of charts. */
export const SWEEP_FORMATS = ['table', 'json', 'html'] as const;
export type SweepFormat = (typeof SWEEP_FORMATS)[number];

/** `--format` of `config`, `stores` and `formats`: a table for people, JSON for programs. */
export const LISTING_FORMATS = ['table', 'json'] as const;
export type ListingFormat = (typeof LISTING_FORMATS)[number];
