// What every report format may be asked: colour, width, detail, the gate and the overview. Its own
// module so each format imports it without going through report/index.ts, which imports them all.

import type { SessionLedger } from '../ledger/types.js';
import type { EnforceLevel, Mode } from '../vocabulary.js';
import { DEFAULT_TOP, type SessionSort } from './overview.js';
import type { Sorter } from './lists.js';

export interface ReportOptions {
  color: boolean;
  /** Terminal columns the table must fit. */
  width: number;
  verbose: boolean;
  quiet: boolean;
  explain: boolean;
  excerpts: boolean;
  /** Exit 1 from this level under enforce on; `none` never fails. */
  failOn: EnforceLevel;
  /** The configured mode: its column is marked in table and markdown (all three are always shown). */
  mode?: Mode;
  /** Base for relative paths in sarif/github/junit when a session path is absolute
   *  (defaults to process.cwd(); pass it to keep rendering pure in tests). */
  cwd?: string;
  /** Table and markdown: with more sessions than this, an overview first and only the top N in
   *  full; 0 prints every session in full. Default 10. */
  top?: number;
  /** Order of the overview (default `level`). */
  sort?: SessionSort;
  /** Table: every round's finding a row of its own, every row shown (default: one row per run, a screenful per session). */
  all?: boolean;
  /** IANA zone the human formats show times in (default UTC: rendering stays pure). */
  timezone?: string;
  /** otlp: when the findings were evaluated, ms since the epoch (the records' time; default now). */
  evaluatedAt?: number;
  /**
   * A session of `report.sessions` whole, for the formats to call where they write it in full (its
   * entries' rows, records or results). `merge` holds each session's thin version (everything but
   * the entries' details, interrupts, verdicts and timeline) and reads the rest back from disk here,
   * so memory holds the thin versions and the sessions being written. Default: the session itself.
   */
  wholeSession?: (s: SessionLedger) => SessionLedger;
  /**
   * How the formats sort what they rank (the overview's sessions, their names): `merge` sorts on
   * disk, where `report.sessions` and `report.inputs` are lists it reads back as they are iterated
   * (report/lists.ts). Default: in memory.
   */
  sorter?: Sorter;
}

/** The session whole, as `o.wholeSession` gives it (or as it is). */
export function whole(o: Pick<ReportOptions, 'wholeSession'>, s: SessionLedger): SessionLedger {
  return o.wholeSession === undefined ? s : o.wholeSession(s);
}

export const DEFAULT_REPORT_OPTIONS: ReportOptions = {
  color: false,
  width: 80,
  verbose: false,
  quiet: false,
  explain: false,
  excerpts: false,
  failOn: 'none',
  top: DEFAULT_TOP,
  sort: 'level',
};
