// The chosen adapter at work on one file: opened over a TranscriptBuilder that feeds the sink,
// handed records, ended. An adapter bug on one record costs that record; an exception thrown by
// the sink is the caller's and travels out untouched (wrapped in SinkFailure on the way).

import { basename } from 'node:path';
import type { InputSummary } from '../input.js';
import { type SessionOrigin, TranscriptBuilder } from '../../model/builder.js';
import type { FormatName, Round, SessionInfo, TranscriptSink } from '../../model/transcript.js';
import { AGENTS } from '../../agents/index.js';
import { readAgentType, storeProject } from '../../read/stores.js';
import { sanitize } from '../../sanitize.js';
import type { FormatAdapter, RecordParser } from '../types.js';
import { messageOf } from './json.js';
import type { SkipTally } from './skips.js';

/** Marks an exception as the sink's, so that it passes through the adapter's catch untouched. */
export class SinkFailure {
  constructor(readonly error: unknown) {}
}

export class AdapterRun {
  private readonly markedSink: TranscriptSink;
  private builder: TranscriptBuilder | null = null;
  private parser: RecordParser | null = null;
  private format: FormatName | null = null;
  /** A Claude Code 2.1 sub-agent's type, from the manifest beside its file. */
  private agentType: string | null = null;

  constructor(
    private readonly input: string,
    private readonly summary: InputSummary,
    private readonly skips: SkipTally,
    sink: TranscriptSink,
  ) {
    this.markedSink = this.markSinkFailures(sink);
  }

  /** The file's name as adapters and probes see it. */
  get fileName(): string {
    return this.input === '-' ? '-' : basename(this.input);
  }

  /** Reads what the file's place in a store says before any record (the sub-agent manifest). */
  async prepare(): Promise<void> {
    if (this.input !== '-') this.agentType = await readAgentType(this.input);
  }

  /** Start `adapter`; false (with the summary's error set) when it failed to start. */
  open(adapter: FormatAdapter): boolean {
    this.format = adapter.name;
    this.summary.format = adapter.name;
    this.builder = new TranscriptBuilder(this.markedSink, this.input, adapter.name, undefined, this.origin(adapter.name));
    try {
      this.parser = adapter.open({
        path: this.input,
        builder: this.builder,
        skip: (line, reason) => this.skips.skip(line, reason),
        ignore: (kind) => this.skips.ignore(kind),
      });
    } catch (err) {
      if (err instanceof SinkFailure) throw err;
      this.summary.error = `the ${adapter.name} reader failed to start: ${sanitize(messageOf(err), { max: 200 })}`;
      return false;
    }
    return true;
  }

  push(value: unknown, line: number | null): void {
    try {
      this.parser!.push(value, line);
    } catch (err) {
      // An adapter bug on one odd record costs that record, not the file.
      if (err instanceof SinkFailure) throw err;
      this.skips.skip(line, `could not read this ${this.format} record: ${messageOf(err)}`);
    }
  }

  /** Release everything the adapter still holds; sessions announced are always ended. */
  close(): void {
    if (this.parser) {
      try {
        this.parser.end();
      } catch (err) {
        if (err instanceof SinkFailure) throw err;
        this.skips.skip(null, `could not finish reading the ${this.format} records: ${messageOf(err)}`);
      }
    }
    this.builder?.end();
  }

  /** What the file's place in an agent's store says about its sessions (project, agent type). */
  private origin(format: FormatName): SessionOrigin {
    const agent = AGENTS.find((a) => a.format === format)?.name ?? null;
    if (this.input === '-') return { agent };
    const store = storeProject(this.input);
    return {
      agent,
      project: store !== null && store.agent === format ? store.project : null,
      agentType: format === 'claude-code' ? this.agentType : null,
    };
  }

  private markSinkFailures(sink: TranscriptSink): TranscriptSink {
    const call = (fn: () => void) => {
      try {
        fn();
      } catch (err) {
        throw new SinkFailure(err);
      }
    };
    return {
      session: (info: SessionInfo) => {
        this.summary.sessions += 1;
        call(() => sink.session(info));
      },
      turn: (sessionId: string, turn: number, line: number | null) => call(() => sink.turn(sessionId, turn, line)),
      round: (sessionId: string, round: Round) => call(() => sink.round(sessionId, round)),
      end: (sessionId: string) => call(() => sink.end(sessionId)),
      recordedCost: (sessionId, cost) => call(() => sink.recordedCost?.(sessionId, cost)),
      interrupt: (sessionId, interrupt) => call(() => sink.interrupt?.(sessionId, interrupt)),
      halt: (sessionId, halt) => call(() => sink.halt?.(sessionId, halt)),
      times: (sessionId, times) => call(() => sink.times?.(sessionId, times)),
    };
  }
}
