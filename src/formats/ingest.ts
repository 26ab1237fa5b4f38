// One input file through the reader and its format adapter into a TranscriptSink. Bad content
// never throws out of here: it becomes a skipped line or the summary's `error`. The work is in
// ingest/: the reading phases (ingestion.ts), the adapter's choice (choose.ts) and run
// (adapter-run.ts), skipped lines (skips.ts), held documents (document.ts), conversation folders
// (conversation.ts).

import type { InputSummary } from './input.js';
import type { TranscriptSink } from '../model/transcript.js';
import { Ingestion } from './ingest/ingestion.js';
import type { IngestOptions } from './ingest/options.js';

export { type IngestOptions, PROBE_RECORDS, TRUNCATED_REASON } from './ingest/options.js';

/**
 * Read `input` (a path, or `-` for stdin) and deliver its sessions to `sink`. Resolves with what
 * the ledger reports about the file. Errors thrown by `sink` itself are the caller's bugs, not
 * the input's, and are rethrown unchanged.
 */
export async function ingestFile(
  input: string,
  sink: TranscriptSink,
  options: IngestOptions = {},
): Promise<InputSummary> {
  const run = new Ingestion(input, sink, options);
  return run.read();
}
