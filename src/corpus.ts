// A corpus held in memory so it can be replayed through the ledger many times (sweeps) without
// reading and parsing the files again. Only for calibration corpora: `audit` streams instead.

import { ingestFile } from './formats/ingest.js';
import type { InputSummary } from './ledger/types.js';
import type { FormatName, Round, SessionInfo, TranscriptSink } from './model/transcript.js';

type TranscriptEvent =
  | { type: 'session'; info: SessionInfo }
  | { type: 'turn'; sessionId: string; turn: number; line: number | null }
  | { type: 'round'; sessionId: string; round: Round }
  | { type: 'end'; sessionId: string };

export interface RecordedFile {
  input: InputSummary;
  events: readonly TranscriptEvent[];
}

class RecordingSink implements TranscriptSink {
  readonly events: TranscriptEvent[] = [];
  session(info: SessionInfo): void {
    this.events.push({ type: 'session', info });
  }
  turn(sessionId: string, turn: number, line: number | null): void {
    this.events.push({ type: 'turn', sessionId, turn, line });
  }
  round(sessionId: string, round: Round): void {
    this.events.push({ type: 'round', sessionId, round });
  }
  end(sessionId: string): void {
    this.events.push({ type: 'end', sessionId });
  }
}

export async function recordFile(file: string, options: { inputFormat?: FormatName | 'auto' } = {}): Promise<RecordedFile> {
  const sink = new RecordingSink();
  const input = await ingestFile(file, sink, { inputFormat: options.inputFormat ?? 'auto' });
  return { input, events: sink.events };
}

export function replay(file: RecordedFile, sink: TranscriptSink): void {
  for (const e of file.events) {
    switch (e.type) {
      case 'session':
        sink.session(e.info);
        break;
      case 'turn':
        sink.turn(e.sessionId, e.turn, e.line);
        break;
      case 'round':
        sink.round(e.sessionId, e.round);
        break;
      case 'end':
        sink.end(e.sessionId);
        break;
    }
  }
}
