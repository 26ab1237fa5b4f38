// Every report format is a plain function over one LedgerReport: no I/O, no process state. The
// CLI resolves colour and width, writes the string where it belongs and owns the exit code
// (`reachedFailOn` tells it whether to exit 1).

import type { LedgerReport } from '../ledger/types.js';
import { renderGithub } from './github.js';
import { renderJson, renderNdjson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif } from './sarif.js';
import { renderTable } from './table.js';
import type { FailOn } from './fail-on.js';

export const REPORT_FORMATS = ['table', 'json', 'ndjson', 'markdown', 'junit', 'sarif', 'github'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Formats read by programs: they never carry colour, whatever `color` says. */
export const MACHINE_FORMATS: readonly ReportFormat[] = ['json', 'ndjson', 'junit', 'sarif', 'github'];

export type ModeName = 'off' | 'telemetry' | 'enforce';

export interface ReportOptions {
  color: boolean;
  /** Terminal columns the table must fit. */
  width: number;
  verbose: boolean;
  quiet: boolean;
  explain: boolean;
  excerpts: boolean;
  failOn: FailOn;
  /** The configured mode: its column is marked in table and markdown (all three are always shown). */
  mode?: ModeName;
  /** Base for relative paths in sarif/github/junit when a session path is absolute
   *  (defaults to process.cwd(); pass it to keep rendering pure in tests). */
  cwd?: string;
}

export const DEFAULT_REPORT_OPTIONS: ReportOptions = {
  color: false,
  width: 80,
  verbose: false,
  quiet: false,
  explain: false,
  excerpts: false,
  failOn: 'none',
};

export function isReportFormat(s: string): s is ReportFormat {
  return (REPORT_FORMATS as readonly string[]).includes(s);
}

export async function renderReport(
  report: LedgerReport,
  format: ReportFormat,
  options: Partial<ReportOptions> = {},
): Promise<string> {
  const machine = MACHINE_FORMATS.includes(format);
  const full: ReportOptions = { ...DEFAULT_REPORT_OPTIONS, ...options };
  const opts: ReportOptions = machine ? { ...full, color: false } : full;
  switch (format) {
    case 'table':
      return renderTable(report, opts);
    case 'json':
      return renderJson(report, opts.excerpts);
    case 'ndjson':
      return renderNdjson(report, opts.excerpts);
    case 'markdown':
      return renderMarkdown(report, opts);
    case 'junit':
      return renderJunit(report, opts);
    case 'sarif':
      return renderSarif(report, opts);
    case 'github':
      return renderGithub(report, opts);
    default: {
      const never: never = format;
      throw new Error(`unknown report format ${String(never)}`);
    }
  }
}

export { reachedFailOn, FAIL_ON_LEVELS, type FailOn } from './fail-on.js';
export { resolveColor, type ColorInputs } from './color.js';
export { sanitize } from './sanitize.js';
