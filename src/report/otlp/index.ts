// `--format otlp`: the findings as OTLP/JSON, one ExportLogsServiceRequest per line (the shape the
// Collector's file exporter writes and its otlpjsonfile receiver reads), each line one request
// exactly as `--otlp-endpoint` would post it. No findings, no line.

import type { LedgerReport } from '../../ledger/types.js';
import type { ReportOptions } from '../options.js';
import { otlpRequests } from './records.js';

export function* otlpChunks(report: LedgerReport, o: ReportOptions): Generator<string> {
  const options = { version: report.tool.version, evaluatedAt: o.evaluatedAt ?? Date.now(), excerpts: o.excerpts, cwd: o.cwd, wholeSession: o.wholeSession };
  for (const request of otlpRequests(report, options)) yield `${request.body}\n`;
}
