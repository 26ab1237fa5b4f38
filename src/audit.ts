// The library's front door: paths in, one ledger out. (Placeholder: wired when the pieces land.)

import type { ConfigValues } from './config/spec.js';
import type { LedgerReport, SkippedLine } from './ledger/types.js';
import type { FormatName } from './model/transcript.js';

export interface AuditOptions {
  /** Effective configuration (defaults when omitted). */
  config?: ConfigValues;
  inputFormat?: FormatName | 'auto';
  /** Attach at most three 80-character excerpts per entry. */
  excerpts?: boolean;
  /** Attach the thresholds each entry crossed. */
  explain?: boolean;
  /** Attach every round's verdict and near misses. */
  verbose?: boolean;
  /** A line was skipped (diagnostics as they happen). */
  onSkip?: (path: string, skipped: SkippedLine) => void;
  onWarning?: (message: string) => void;
}

export async function audit(_paths: readonly string[], _options: AuditOptions = {}): Promise<LedgerReport> {
  throw new Error('audit is not wired yet');
}
