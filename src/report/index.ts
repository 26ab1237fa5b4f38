// Every report format is a plain function over one LedgerReport: no I/O, no process state. The
// CLI resolves colour and width, writes the payload where it belongs and owns the exit code
// (`reachedFailOn` tells it whether to exit 1). Formats yield their payload in pieces
// (`reportChunks`), so a ledger of any size is written without ever being one string;
// `renderReport` joins them for callers that want the string (tests, small reports).

import type { LedgerReport } from '../ledger/types.js';
import { githubChunks } from './github.js';
import { htmlChunks } from './html/page.js';
import { jsonReportChunks, ndjsonChunks } from './json.js';
import { junitChunks } from './junit.js';
import { markdownChunks } from './markdown.js';
import { otlpChunks } from './otlp/index.js';
import { sarifChunks } from './sarif.js';
import { collect, type Chunks } from './stream.js';
import { tableChunks } from './table.js';
import { DEFAULT_REPORT_OPTIONS, type ReportOptions } from './options.js';
import { MACHINE_FORMATS, type ReportFormat } from '../vocabulary.js';

type Reporter = (report: LedgerReport, opts: ReportOptions, asked: Partial<ReportOptions>) => Chunks;

/** The reporters, keyed by their `--format` names: a name without a reporter does not compile. */
const REPORTERS = {
  table: (report, opts) => tableChunks(report, opts),
  json: (report, opts) => jsonReportChunks(report, opts.excerpts),
  ndjson: (report, opts) => ndjsonChunks(report, opts.excerpts),
  markdown: (report, opts) => markdownChunks(report, opts),
  junit: (report, opts) => junitChunks(report, opts),
  sarif: (report, opts) => sarifChunks(report, opts),
  github: (report, opts) => githubChunks(report, opts),
  // The page draws every session with findings unless `top` was asked for explicitly.
  html: (report, opts, asked) => htmlChunks(report, { ...opts, color: false, top: asked.top }),
  otlp: (report, opts) => otlpChunks(report, opts),
} as const satisfies Record<ReportFormat, Reporter>;

/** The payload of `format`, in pieces to be written in order. */
export function reportChunks(report: LedgerReport, format: ReportFormat, options: Partial<ReportOptions> = {}): Chunks {
  const reporter: Reporter | undefined = Object.hasOwn(REPORTERS, format) ? REPORTERS[format] : undefined;
  if (reporter === undefined) throw new Error(`unknown report format ${String(format)}`);
  const machine = MACHINE_FORMATS.includes(format);
  const full: ReportOptions = { ...DEFAULT_REPORT_OPTIONS, ...options };
  return reporter(report, machine ? { ...full, color: false } : full, options);
}

/** The whole payload as one string (bounded by V8's string limit: write big ledgers with reportChunks). */
export async function renderReport(
  report: LedgerReport,
  format: ReportFormat,
  options: Partial<ReportOptions> = {},
): Promise<string> {
  return collect(reportChunks(report, format, options));
}

export { reachedFailOn } from './fail-on.js';
export { type Chunks } from './stream.js';
export { SESSION_SORTS, type SessionSort } from './overview.js';
export { DEFAULT_REPORT_OPTIONS, type ReportOptions } from './options.js';
