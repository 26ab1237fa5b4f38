// What stderr says about the inputs once a run is done: the rest of each file's skipped lines as
// one count, each input that could not be used, and the files found in directories that are no
// transcripts as one line (SPEC "Where sessions are found", "Bad input").

import type { NotTranscript } from '../formats/input.js';
import type { LedgerReport } from '../ledger/types.js';
import { MAX_KEPT_SKIPS } from '../read/skipped.js';

/** SPEC: stderr shows the first 20 skipped lines of a file, then one line with the rest's count. */
export const MAX_SKIP_DIAGNOSTICS_PER_FILE = 20;

export interface InputProblems {
  /** Paths that could not be read at all: exit 2. */
  unreadable: number;
  /** Inputs named or found that are unusable as transcripts (for --strict). */
  unusable: number;
  /** Skipped lines over every input (for --strict). */
  malformed: number;
}

const REASON_WORDS: Record<NotTranscript, string> = {
  unrecognized: 'no known format',
  empty: 'empty',
  'not-json': 'not JSON',
  binary: 'binary',
  'loopledger-report': 'loopledger reports',
  unreadable: 'unreadable',
  dataset: 'datasets',
  'json-document': 'other JSON documents',
};

export function reportInputProblems(report: LedgerReport, verbose: boolean, warn: (message: string) => void): InputProblems {
  const problems: InputProblems = { unreadable: 0, unusable: 0, malformed: report.summary.skipped_lines };
  for (const input of report.inputs) {
    if (input.skipped_lines > MAX_SKIP_DIAGNOSTICS_PER_FILE) {
      const rest = input.skipped_lines - MAX_SKIP_DIAGNOSTICS_PER_FILE;
      const kept = Math.min(input.skipped_lines, MAX_KEPT_SKIPS);
      warn(`${input.path}: ${rest} more skipped line${rest === 1 ? '' : 's'} (--format json keeps the first ${kept} and the total)`);
    }
    if (input.error !== undefined) {
      // Named on the command line, a dataset or another JSON document is refused as a path that cannot be read is.
      if (input.unreadable || input.not_transcript === 'dataset' || input.not_transcript === 'json-document') problems.unreadable += 1;
      else problems.unusable += 1;
      warn(`${input.path}: ${input.error}`);
    }
  }
  reportNotTranscripts(report.not_transcripts ?? [], verbose, warn);
  return problems;
}

/** Files found in directories that are no transcripts: one line with their count by reason (`--verbose` names each). */
export function reportNotTranscripts(
  others: Iterable<{ path: string; reason: NotTranscript; error: string }>,
  verbose: boolean,
  warn: (message: string) => void,
): void {
  // One pass: a merge reads them back from disk as they are iterated.
  const byReason = new Map<NotTranscript, number>();
  let n = 0;
  for (const f of others) {
    if (verbose) warn(`${f.path}: not a transcript: ${f.error}`);
    byReason.set(f.reason, (byReason.get(f.reason) ?? 0) + 1);
    n += 1;
  }
  if (n === 0) return;
  const parts = [...byReason].sort((a, b) => b[1] - a[1]).map(([reason, k]) => `${k} ${REASON_WORDS[reason]}`);
  warn(
    `${n} file${n === 1 ? '' : 's'} found in the directories ${n === 1 ? 'is' : 'are'} not a transcript (${parts.join(', ')})` +
      (verbose ? '' : '; --verbose lists them'),
  );
}
