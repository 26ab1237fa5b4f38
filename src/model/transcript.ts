// The transcript model every format adapter produces and every detector reads.
// session → turns (a turn starts at each real user message) → rounds (one model response each).

export const FORMAT_NAMES = [
  'claude-code',
  'codex',
  'openai',
  'anthropic',
  'gemini',
  'chatgpt',
  'canonical',
  'swe-agent',
  'mini-swe-agent',
  'openhands',
  'otel',
  'opencode',
  'copilot',
  'qwen',
  'cline',
  'pi',
  'droid',
  'openclaw',
  'vscode-tasks',
  'cursor',
  'kimi',
  'hermes',
] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

export interface ToolCall {
  /** The id that tool results use to answer this call, when the format has one. */
  id: string | null;
  name: string;
  /**
   * Arguments as the format gave them: a parsed JSON value, or the raw string when the
   * format carries a JSON string that does not parse (never an error: it is hashed as is).
   */
  arguments: unknown;
}

export interface ToolAnswer {
  /** The answer flattened to text (content blocks joined); what the detectors compare. */
  content: string;
  isError: boolean;
  /**
   * answerDigest() of this answer, when it was computed where the answer was read: the two-thread
   * pipeline hashes tool results in the reading thread and sends them on with empty `content`,
   * so megabytes of results are never copied between threads. Absent, `content` is hashed.
   */
  digest?: string;
  /**
   * answerFailed() of this answer, set with `digest` where the text was dropped, so a failure
   * told by its text (formats without an error flag) is still known to the detectors.
   */
  failed?: boolean;
  /**
   * The failed answer's text as `no_progress` compares errors (its incidental parts normalised),
   * set with `digest` where the text was dropped, so both pipelines compare errors alike.
   */
  normalizedError?: string;
  /**
   * The answer's first characters as written, set with `digest` where the text was dropped: its
   * first lines are what a start-up banner every command prints would be (issue 54). Kept raw, so
   * only a detector that needs those lines pays for reading them.
   */
  head?: string;
  /**
   * A poll of a process still running, answered with no output yet (Codex's unified exec): no
   * answer, so not the same answer as the last poll's (issue 54).
   */
  waiting?: boolean;
}

export interface ThinkingBlock {
  /** null when the block is opaque (redacted or encrypted reasoning). */
  text: string | null;
  opaque: boolean;
}

/**
 * One request's usage (a round is one model response, so one request). The parts a price needs
 * are kept apart: cache reads and writes are billed at their own rates.
 */
export interface Usage {
  /** The whole prompt of the request, cache reads and cache writes included. */
  inputTokens: number | null;
  /** Every billed output token, reasoning included (Gemini's `thoughts` are added: Google bills them as output). */
  outputTokens: number | null;
  /** Of the output, reasoning tokens, where the format reports them (Codex, Gemini, OpenAI reasoning models). */
  reasoningTokens: number | null;
  /** Of the input, tokens read from the prompt cache (absent when the format does not say). */
  cacheReadTokens?: number;
  /** Of the input, tokens written to the prompt cache (Anthropic's cache creation). */
  cacheWriteTokens?: number;
  /** Of the cache writes, those kept one hour (billed at a higher rate than the 5-minute default). */
  cacheWrite1hTokens?: number;
}

export interface Round {
  /** 1-based turn within the session; rounds before any user message belong to turn 1. */
  turn: number;
  /** 1-based, counted through the whole session (not per turn). */
  index: number;
  /** Source line where the round starts (1-based), or null for formats without lines. */
  line: number | null;
  /** Visible text of the response, blocks joined with "\n". */
  text: string;
  thinking: ThinkingBlock[];
  calls: ToolCall[];
  /**
   * Answers aligned with `calls` (same order). null when any call is unanswered:
   * unknown answers never rescue a tool-batch run. Empty when there are no calls.
   */
  answers: ToolAnswer[] | null;
  usage: Usage | null;
  model: string | null;
  timestamp: string | null;
  /**
   * The trace and span that recorded this round, when the input was a trace (format `otel`):
   * findings written back as OpenTelemetry link to it, so they show on the trace they judged.
   */
  trace?: RoundTrace;
}

/** OpenTelemetry ids of a round, lowercase hex (32 and 16 digits) as OTLP/JSON writes them. */
export interface RoundTrace {
  traceId: string;
  spanId: string;
}

/**
 * A cost the transcript itself recorded for a session (Claude Code's `result` line, mini-swe-agent's
 * `instance_cost`…): kept beside the list price loopledger computes, never mixed into it.
 */
export interface RecordedCost {
  usd: number;
  /** Where it was read, e.g. `result.total_cost_usd`. */
  source: string;
}

/**
 * The user stopped the agent (Claude Code's `[Request interrupted by user…]`, Codex `turn_aborted`,
 * a Gemini CLI call the user cancelled, an OpenHands pause or rejection): a weak label that the
 * stretch before it was going nowhere. `round` is the round that was running (or the last one).
 */
export interface Interrupt {
  turn: number;
  round: number;
  line: number | null;
}

/**
 * The agent's own loop guard halted the run (Qwen Code's and Cline's identical-call guards): evidence
 * that a loop happened, kept as what it is, never as a tool answer. `round` is the round that ran
 * (or the last one); `reason` names the guard.
 */
export interface AgentHalt {
  turn: number;
  round: number;
  line: number | null;
  reason: string;
}

export interface SessionInfo {
  id: string;
  path: string;
  format: FormatName;
  /** Session id of the parent for sub-agent threads, else null. */
  parent: string | null;
  /** The coding agent that wrote it (SPEC 0.4's names: `claude-code`, `opencode`, `kilo`…), when its format says. */
  agent?: string | null;
  /** The project the session belongs to: its store folder (Claude Code, Gemini CLI) or working directory (Codex). */
  project?: string | null;
  /** A sub-agent's type, when the store names it (Claude Code 2.1's `agent-*.meta.json`). */
  agentType?: string | null;
  /** For traces: who wrote them (e.g. `claude-code`, `codex`, `gemini-cli`, `genai`, `openinference`). */
  producer?: string | null;
  /** For traces: what the producer does not record (e.g. `assistant text`), so a reader knows what detectors could see. */
  unrecorded?: string[];
}

/**
 * Where a streaming adapter delivers what it reads, in order. Rounds arrive complete (with
 * their answers), numbered, and only after `session` announced their session.
 */
export interface TranscriptSink {
  session(info: SessionInfo): void;
  /** A real user message opened turn `turn` (1-based). */
  turn(sessionId: string, turn: number, line: number | null): void;
  round(sessionId: string, round: Round): void;
  /** Everything of this session has been delivered. */
  end(sessionId: string): void;
  /** A cost the transcript recorded for this session (optional: sinks that do not report it omit it). */
  recordedCost?(sessionId: string, cost: RecordedCost): void;
  /** The user interrupted the agent (optional: sinks that do not report it omit it). */
  interrupt?(sessionId: string, interrupt: Interrupt): void;
  /** The agent's own loop guard halted the run (optional, as interrupts are). */
  halt?(sessionId: string, halt: AgentHalt): void;
  /** When the session ran, from its records' times: sent before `end`, only when a record had a time. */
  times?(sessionId: string, times: SessionTimes): void;
}

/** The earliest and latest time a session's records carry, in milliseconds since the epoch (UTC). */
export interface SessionTimes {
  startedMs: number;
  endedMs: number;
}
