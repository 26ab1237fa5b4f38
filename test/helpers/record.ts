// Test helpers: feed text through one adapter without the reader, and record what it delivers.

import { TranscriptBuilder } from '../../src/model/builder.js';
import type { FormatName, Round, SessionInfo, TranscriptSink } from '../../src/model/transcript.js';
import type { FormatAdapter } from '../../src/formats/types.js';

export interface RecordedSession {
  info: SessionInfo;
  turns: number[];
  rounds: Round[];
  ended: boolean;
}

export class RecordingSink implements TranscriptSink {
  readonly sessions: RecordedSession[] = [];
  private byId = new Map<string, RecordedSession>();

  session(info: SessionInfo): void {
    const s: RecordedSession = { info, turns: [], rounds: [], ended: false };
    this.sessions.push(s);
    this.byId.set(info.id, s);
  }
  turn(sessionId: string, turn: number): void {
    this.get(sessionId).turns.push(turn);
  }
  round(sessionId: string, round: Round): void {
    this.get(sessionId).rounds.push(round);
  }
  end(sessionId: string): void {
    this.get(sessionId).ended = true;
  }
  private get(id: string): RecordedSession {
    const s = this.byId.get(id);
    if (!s) throw new Error(`event for unannounced session ${id}`);
    return s;
  }
}

export interface ParsedFile {
  sessions: RecordedSession[];
  skipped: { line: number | null; reason: string }[];
}

/**
 * Run `adapter` over `text` the way the reader would: JSONL (one JSON value per non-blank line)
 * or, with mode 'document', the whole text as one JSON value.
 */
export function parseWith(
  adapter: FormatAdapter,
  text: string,
  opts: { mode?: 'jsonl' | 'document'; path?: string; format?: FormatName } = {},
): ParsedFile {
  const sink = new RecordingSink();
  const skipped: ParsedFile['skipped'] = [];
  const path = opts.path ?? `test.${opts.mode === 'document' ? 'json' : 'jsonl'}`;
  const builder = new TranscriptBuilder(sink, path, opts.format ?? adapter.name);
  const parser = adapter.open({ path, builder, skip: (line, reason) => skipped.push({ line, reason }) });
  if (opts.mode === 'document') {
    parser.push(JSON.parse(text), null);
  } else {
    text.split(/\r?\n/).forEach((raw, i) => {
      if (raw.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (e) {
        skipped.push({ line: i + 1, reason: `malformed JSON: ${(e as Error).message}` });
        return;
      }
      parser.push(value, i + 1);
    });
  }
  parser.end();
  builder.end();
  return { sessions: sink.sessions, skipped };
}

/** JSONL text from records (one JSON.stringify per line). */
export function jsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}
