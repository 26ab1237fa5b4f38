// A corpus held in memory so it can be replayed through the ledger many times (sweeps) without
// reading and parsing the files again. Only for calibration corpora: `audit` streams instead.

import { ingestFile } from '../formats/ingest.js';
import type { InputSummary } from '../formats/input.js';
import { eventRecorder, deliverEvents, type TranscriptEvents } from '../model/events.js';
import type { FormatName, TranscriptSink } from '../model/transcript.js';

export interface RecordedFile {
  input: InputSummary;
  events: TranscriptEvents;
}

export async function recordFile(file: string, options: { inputFormat?: FormatName | 'auto' } = {}): Promise<RecordedFile> {
  const events: TranscriptEvents = [];
  const input = await ingestFile(file, eventRecorder(() => events), { inputFormat: options.inputFormat ?? 'auto' });
  return { input, events };
}

export function deliverRecorded(file: RecordedFile, sink: TranscriptSink): void {
  deliverEvents(file.events, sink);
}
