// Shared bookkeeping for format adapters: numbering turns and rounds, merging the lines of one
// round, matching tool results to calls by id, and releasing a round only once its answers can
// no longer arrive. Adapters describe what they read; this decides when a round is complete.

import type {
  FormatName,
  Interrupt,
  RecordedCost,
  Round,
  RoundTrace,
  SessionInfo,
  SessionTimes,
  ThinkingBlock,
  ToolAnswer,
  ToolCall,
  TranscriptSink,
  Usage,
} from './transcript.js';

interface PendingRound {
  key: string | null;
  line: number | null;
  texts: string[];
  thinking: ThinkingBlock[];
  calls: ToolCall[];
  answersById: Map<string, ToolAnswer>;
  /** Answers for calls without ids, in arrival order. */
  positionalAnswers: ToolAnswer[];
  usage: Usage | null;
  model: string | null;
  timestamp: string | null;
  trace: RoundTrace | null;
}

export interface RoundStart {
  /** Lines sharing a key (e.g. Claude Code's message.id) are one round. */
  key?: string | null;
  line: number | null;
  model?: string | null;
  timestamp?: string | null;
}

/** Turns and rounds already delivered before this reading began. */
export interface ResumeCounts {
  turns: number;
  rounds: number;
}

export class SessionBuilder {
  readonly info: SessionInfo;
  private turnCount = 0;
  private roundCount = 0;
  private pending: PendingRound | null = null;
  private ended = false;
  private lastInterrupt = '';
  private times: SessionTimes | null = null;

  constructor(
    private readonly sink: TranscriptSink,
    info: SessionInfo,
    resume?: ResumeCounts,
  ) {
    this.info = info;
    // Reading resumes mid-session (the live hook tails a transcript): numbering goes on from there.
    if (resume) {
      this.turnCount = resume.turns;
      this.roundCount = resume.rounds;
    }
    sink.session(info);
  }

  get id(): string {
    return this.info.id;
  }

  get turns(): number {
    return this.turnCount;
  }

  get rounds(): number {
    return this.roundCount;
  }

  /** A real user message: the pending round is complete and a new turn begins. */
  userTurn(line: number | null): void {
    this.flush();
    this.turnCount += 1;
    this.sink.turn(this.info.id, this.turnCount, line);
  }

  /**
   * Start (or continue) a round. With the same non-null key as the pending round, the pending
   * round continues; otherwise the pending round is released and a new one opens.
   */
  round(start: RoundStart): void {
    this.at(start.timestamp ?? null);
    const key = start.key ?? null;
    if (this.pending && key !== null && this.pending.key === key) {
      if (start.model && !this.pending.model) this.pending.model = start.model;
      return;
    }
    this.flush();
    this.pending = {
      key,
      line: start.line,
      texts: [],
      thinking: [],
      calls: [],
      answersById: new Map(),
      positionalAnswers: [],
      usage: null,
      model: start.model ?? null,
      timestamp: start.timestamp ?? null,
      trace: null,
    };
  }

  private current(): PendingRound {
    if (!this.pending) this.round({ line: null });
    return this.pending!;
  }

  /**
   * A record of this session carried this time (an ISO string): the session ran at least from the
   * earliest to the latest such time. Times that do not parse are ignored.
   */
  at(timestamp: string | null): void {
    if (timestamp === null || this.ended) return;
    const ms = Date.parse(timestamp);
    if (!Number.isFinite(ms)) return;
    if (this.times === null) this.times = { startedMs: ms, endedMs: ms };
    else {
      if (ms < this.times.startedMs) this.times.startedMs = ms;
      if (ms > this.times.endedMs) this.times.endedMs = ms;
    }
  }

  text(text: string): void {
    if (text.length > 0) this.current().texts.push(text);
  }

  thinking(block: ThinkingBlock): void {
    this.current().thinking.push(block);
  }

  call(call: ToolCall): void {
    this.current().calls.push(call);
  }

  /**
   * Merge usage into the pending round; later non-null figures replace earlier ones. With
   * `largest`, a report replaces the kept one only when it bills more tokens: the lines of one
   * response repeat its usage as it grows (Claude Code), and a request counts once, at its largest.
   */
  usage(usage: Partial<Usage>, mode: 'merge' | 'largest' = 'merge'): void {
    const round = this.current();
    if (mode === 'largest' && round.usage !== null && billed(usage) <= billed(round.usage)) return;
    const merged: Usage =
      mode === 'largest' || round.usage === null ? { inputTokens: null, outputTokens: null, reasoningTokens: null } : round.usage;
    if (usage.inputTokens != null) merged.inputTokens = usage.inputTokens;
    if (usage.outputTokens != null) merged.outputTokens = usage.outputTokens;
    if (usage.reasoningTokens != null) merged.reasoningTokens = usage.reasoningTokens;
    if (usage.cacheReadTokens != null) merged.cacheReadTokens = usage.cacheReadTokens;
    if (usage.cacheWriteTokens != null) merged.cacheWriteTokens = usage.cacheWriteTokens;
    if (usage.cacheWrite1hTokens != null) merged.cacheWrite1hTokens = usage.cacheWrite1hTokens;
    round.usage = merged;
  }

  /** The trace and span that recorded the pending round (format `otel`). */
  trace(trace: RoundTrace): void {
    this.current().trace = trace;
  }

  model(model: string | null): void {
    if (model) this.current().model = model;
  }

  /**
   * A tool result. Matched by call id against the pending round; a result whose call is not in
   * the pending round (already released, or never made) is dropped and returns false.
   * With a null id the answer is matched by position among the calls without ids.
   */
  answer(callId: string | null, answer: ToolAnswer): boolean {
    const round = this.pending;
    if (!round) return false;
    if (callId === null) {
      round.positionalAnswers.push(answer);
      return true;
    }
    if (!round.calls.some((c) => c.id === callId)) return false;
    round.answersById.set(callId, answer);
    return true;
  }

  /** Whether the pending round has a call with this id still awaiting its answer. */
  awaits(callId: string): boolean {
    const round = this.pending;
    return !!round && round.calls.some((c) => c.id === callId) && !round.answersById.has(callId);
  }

  /** Release the pending round, if any. */
  flush(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    if (this.turnCount === 0) {
      // Rounds before any user message (a resumed or system-started session) open turn 1.
      this.turnCount = 1;
      this.sink.turn(this.info.id, 1, p.line);
    }
    this.roundCount += 1;
    const round: Round = {
      turn: this.turnCount,
      index: this.roundCount,
      line: p.line,
      text: p.texts.join('\n'),
      thinking: p.thinking,
      calls: p.calls,
      answers: matchAnswers(p),
      usage: p.usage,
      model: p.model,
      timestamp: p.timestamp,
    };
    if (p.trace) round.trace = p.trace;
    this.sink.round(this.info.id, round);
  }

  /** The user interrupted the round that is running (or, between rounds, the last one). */
  interrupt(line: number | null): void {
    if (this.ended) return;
    const interrupt: Interrupt = {
      turn: Math.max(1, this.turnCount),
      round: Math.max(1, this.roundCount + (this.pending ? 1 : 0)),
      line,
    };
    // One Esc can leave two marks (a cancelled call and a notice): one interrupt per round.
    if (this.lastInterrupt === `${interrupt.turn}.${interrupt.round}`) return;
    this.lastInterrupt = `${interrupt.turn}.${interrupt.round}`;
    this.sink.interrupt?.(this.info.id, interrupt);
  }

  /** The agent's own loop guard halted the round that is running (or, between rounds, the last one). */
  agentHalt(line: number | null, reason: string): void {
    if (this.ended) return;
    this.sink.halt?.(this.info.id, {
      turn: Math.max(1, this.turnCount),
      round: Math.max(1, this.roundCount + (this.pending ? 1 : 0)),
      line,
      reason,
    });
  }

  /** A cost the transcript recorded for this session, passed on as is. */
  recordedCost(cost: RecordedCost): void {
    if (!this.ended && Number.isFinite(cost.usd)) this.sink.recordedCost?.(this.info.id, cost);
  }

  end(): void {
    if (this.ended) return;
    this.flush();
    this.ended = true;
    if (this.times !== null) this.sink.times?.(this.info.id, { ...this.times });
    this.sink.end(this.info.id);
  }
}

function billed(u: Partial<Usage>): number {
  return (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
}

function matchAnswers(p: PendingRound): ToolAnswer[] | null {
  if (p.calls.length === 0) return [];
  const answers: ToolAnswer[] = [];
  let positional = 0;
  for (const call of p.calls) {
    const byId = call.id !== null ? p.answersById.get(call.id) : undefined;
    const answer = byId ?? (call.id === null ? p.positionalAnswers[positional++] : undefined);
    if (!answer) return null;
    answers.push(answer);
  }
  return answers;
}

/**
 * One per input file: hands out session builders, keeps ids unique within the file, and ends
 * every session when the file is done.
 */
/** What the file's place in an agent's store says about every session in it. */
export interface SessionOrigin {
  /** The store folder (e.g. the Claude Code project); an adapter may know better (Codex's cwd). */
  project?: string | null;
  /** A sub-agent file's agent type: given to the file's sub-agent sessions. */
  agentType?: string | null;
  /** The agent whose format this is; an adapter may know better (Kilo writes OpenCode's format). */
  agent?: string | null;
}

export class TranscriptBuilder {
  private readonly sessions = new Map<string, SessionBuilder>();
  private readonly usedIds = new Set<string>();
  /** Per id given more than once, the suffix to try next: a file of n sessions with one id costs n, not n². */
  private readonly nextSuffix = new Map<string, number>();

  constructor(
    private readonly sink: TranscriptSink,
    readonly path: string,
    readonly format: FormatName,
    /** Every session continues numbering from these counts (a reading that resumes mid-file). */
    private readonly resume?: ResumeCounts,
    readonly origin: SessionOrigin = {},
  ) {}

  /** The builder for `key`, created on first use. `id` defaults to the key. */
  session(
    key: string,
    opts: { id?: string; parent?: string | null; project?: string | null; producer?: string; unrecorded?: string[]; agent?: string } = {},
  ): SessionBuilder {
    let builder = this.sessions.get(key);
    if (!builder) {
      let id = opts.id ?? key;
      if (this.usedIds.has(id)) {
        let n = this.nextSuffix.get(id) ?? 2;
        while (this.usedIds.has(`${id}#${n}`)) n += 1;
        this.nextSuffix.set(id, n + 1);
        id = `${id}#${n}`;
      }
      this.usedIds.add(id);
      const parent = opts.parent ?? null;
      const info: SessionInfo = { id, path: this.path, format: this.format, parent };
      const agent = opts.agent ?? this.origin.agent ?? null;
      if (agent !== null) info.agent = agent;
      const project = this.origin.project ?? opts.project ?? null;
      if (project !== null) info.project = project;
      if (parent !== null && this.origin.agentType) info.agentType = this.origin.agentType;
      if (opts.producer !== undefined) info.producer = opts.producer;
      if (opts.unrecorded !== undefined) info.unrecorded = opts.unrecorded;
      builder = new SessionBuilder(this.sink, info, this.resume);
      this.sessions.set(key, builder);
    }
    return builder;
  }

  has(key: string): boolean {
    return this.sessions.has(key);
  }

  /** End one session early (e.g. a conversation finished in a multi-conversation file). */
  endSession(key: string): void {
    this.sessions.get(key)?.end();
  }

  end(): void {
    for (const builder of this.sessions.values()) builder.end();
  }
}
