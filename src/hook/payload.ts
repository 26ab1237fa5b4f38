// What each agent sends on stdin, read into one shape. Every field is read defensively: an agent
// version that adds, renames or drops a field must degrade to "nothing to decide", never to a
// crash (and a crash would still fail open: see main.ts).

import { answerFailed } from '../detect/tool-batch/failure.js';
import { answerDigest } from '../detect/tool-batch/signature.js';
import type { ToolAnswer } from '../model/transcript.js';
import { normaliseGeminiOutput } from '../formats/shared/gemini-output.js';
import { isRecord as isRec } from '../is-record.js';

export const AGENTS = ['claude-code', 'gemini', 'codex'] as const;
export type Agent = (typeof AGENTS)[number];

/** pre: the call is about to run. post: it ran (or failed). stop: the turn's final answer. */
export type EventKind = 'pre' | 'post' | 'stop' | 'other';

export interface HookCall {
  /** The agent's call id; Gemini sends none, so one is made up (`~` prefix) and matched by signature. */
  id: string;
  name: string;
  input: unknown;
}

export interface HookEvent {
  agent: Agent;
  /** `hook_event_name` as sent. */
  name: string;
  kind: EventKind;
  sessionId: string;
  /** null when the agent has none (Codex: `transcript_path` is nullable). */
  transcriptPath: string | null;
  /** Claude Code inside a sub-agent (`agent_id`): its calls are kept apart from the main thread's. */
  subagent: string | null;
  /** Codex `turn_id`, Claude Code `prompt_id`: a change means a new user turn. */
  turnKey: string | null;
  call: HookCall | null;
  /** post: what came back, as a digest-only answer (the content itself is never kept). */
  answer: ToolAnswer | null;
  /** stop: the final message as the agent reports it (the transcript may not show it yet). */
  finalText: string | null;
  /** `loopledger_probe`: sent by `hook doctor` alone; answered before the transcript is read or anything written. */
  probe: string | null;
}

export class PayloadError extends Error {}

type Rec = Record<string, unknown>;

function str(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

/**
 * Claude Code, "Hooks reference" (https://code.claude.com/docs/en/hooks; mirrored in
 * aiclaudelib/ccode-plugin knowledge/hooks-reference-events.md): PreToolUse carries `tool_name`,
 * `tool_input`, `tool_use_id`; PostToolUse adds `tool_response`; PostToolUseFailure adds `error`
 * and `is_interrupt`; Stop carries `stop_hook_active` and `last_assistant_message`. Common:
 * `session_id`, `transcript_path`, `cwd`, `hook_event_name`; `prompt_id` in newer versions;
 * `agent_id` inside sub-agents.
 */
const CLAUDE_KINDS: Record<string, EventKind> = {
  PreToolUse: 'pre',
  PostToolUse: 'post',
  PostToolUseFailure: 'post',
  Stop: 'stop',
};

/**
 * Gemini CLI, "Hooks reference" (google-gemini/gemini-cli docs/hooks/reference.md, published at
 * https://geminicli.com/docs/hooks/reference): BeforeTool carries `tool_name`, `tool_input`,
 * `mcp_context`; AfterTool adds `tool_response` {llmContent, returnDisplay, error}; AfterAgent
 * carries `prompt`, `prompt_response`, `stop_hook_active`. No call id is sent.
 */
const GEMINI_KINDS: Record<string, EventKind> = {
  BeforeTool: 'pre',
  AfterTool: 'post',
  AfterAgent: 'stop',
};

/**
 * Codex, https://developers.openai.com/codex/hooks and openai/codex
 * codex-rs/hooks/schema/generated/{pre,post}-tool-use.command.input.schema.json: PreToolUse
 * {session_id, turn_id, transcript_path (nullable), tool_name, tool_input, tool_use_id, …};
 * PostToolUse adds `tool_response`; Stop adds `last_assistant_message`, `stop_hook_active`.
 * PreToolUse first covered Bash only (the schema's `tool_name: const "Bash"`).
 */
const CODEX_KINDS: Record<string, EventKind> = {
  PreToolUse: 'pre',
  PostToolUse: 'post',
  Stop: 'stop',
};

const KINDS: Record<Agent, Record<string, EventKind>> = {
  'claude-code': CLAUDE_KINDS,
  gemini: GEMINI_KINDS,
  codex: CODEX_KINDS,
};

/** Parse one payload. Throws PayloadError on anything that is not a usable hook payload. */
export function parsePayload(agent: Agent, text: string): HookEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new PayloadError(`stdin is not JSON (${(e as Error).message})`);
  }
  if (!isRec(value)) throw new PayloadError('stdin is not a JSON object');
  const name = str(value.hook_event_name);
  if (name === null) throw new PayloadError('payload without hook_event_name');
  const sessionId = str(value.session_id);
  if (sessionId === null) throw new PayloadError(`${name} payload without session_id`);
  const kind = Object.hasOwn(KINDS[agent], name) ? KINDS[agent][name]! : 'other';
  const event: HookEvent = {
    agent,
    name,
    kind,
    sessionId,
    transcriptPath: str(value.transcript_path),
    subagent: agent === 'claude-code' ? str(value.agent_id) : null,
    turnKey: str(value.turn_id) ?? str(value.prompt_id),
    call: null,
    answer: null,
    finalText: null,
    probe: str(value.loopledger_probe),
  };
  if (kind === 'pre' || kind === 'post') {
    const toolName = str(value.tool_name);
    if (toolName === null) throw new PayloadError(`${name} payload without tool_name`);
    const id = str(value.tool_use_id) ?? str(value.call_id);
    const input = value.tool_input === undefined ? null : value.tool_input;
    event.call = agent === 'codex' ? inRolloutTerms({ id: id ?? '', name: toolName, input }) : { id: id ?? '', name: toolName, input };
    if (kind === 'post') event.answer = answerOf(agent, name, value);
  } else if (kind === 'stop') {
    event.finalText = typeof value.last_assistant_message === 'string'
      ? value.last_assistant_message
      : typeof value.prompt_response === 'string'
        ? value.prompt_response
        : null;
  }
  return event;
}

/**
 * Codex's hook names a shell call `Bash {command}`, its rollout (and its telemetry) `exec_command
 * {cmd}`: the live guard takes the rollout's name so that a rule naming a tool (`Bash(cat:*)` in
 * observation_tools) reaches the same calls live as in `analyze` of the rollout.
 */
function inRolloutTerms(call: HookCall): HookCall {
  if (call.name !== 'Bash' || !isRec(call.input) || typeof call.input.command !== 'string') return call;
  const { command, ...rest } = call.input;
  return { ...call, name: 'exec_command', input: { cmd: command, ...rest } };
}

/**
 * What came back, reduced to a digest at once (a tool result may be megabytes; the hook only ever
 * compares answers). The digest is the reader's (signature.ts `answerDigest`) of the text the
 * agent's transcript shows for the same answer, where the payload carries it (answerText): a
 * round read back from the transcript, as after a state started over, then compares equal to one
 * answered on stdin. Claude Code's PostToolUseFailure carries `error` instead of a response.
 */
function answerOf(agent: Agent, name: string, value: Rec): ToolAnswer {
  const { content, isError } = answerText(agent, name, value);
  // A text answer that opens like an error is a failure too (recurring_failure), as in a transcript.
  const failed = isError || answerFailed({ content, isError: false });
  return { content: '', isError, digest: answerDigest({ content, isError }), failed };
}

/**
 * The answer as the agent's transcript records it, as its reader (formats/) reads it, for the
 * shapes whose mapping was seen on the pinned releases (test/agents: the payloads and the
 * transcripts of the same calls); any other shape is its sorted JSON, compared only with itself.
 * - Claude Code 2.1.328: a failing call's `error` is the tool_result's text ("Exit code 1\n…"),
 *   and a Bash response's `stdout` is its text (stderr arrives merged into stdout).
 * - Gemini CLI 0.61.0: `llmContent` is the functionResponse's output, normalised alike.
 * - Codex 0.169.0: the rollout adds a header (exit code, token count) the payload has not, and
 *   the payload has no exit code: its text stands as it is (see docs/hook.md).
 */
function answerText(agent: Agent, name: string, value: Rec): { content: string; isError: boolean } {
  if (agent === 'claude-code' && name === 'PostToolUseFailure') {
    const error = value.error;
    if (typeof error === 'string' && value.is_interrupt !== true) return { content: error, isError: true };
    return { content: stableJson({ error: error ?? null, is_interrupt: value.is_interrupt === true }), isError: true };
  }
  const body = value.tool_response ?? null;
  if (typeof body === 'string') return { content: body, isError: false };
  if (!isRec(body)) return { content: stableJson(body), isError: false };
  if (agent === 'gemini') {
    const isError = body.error !== undefined && body.error !== null && body.error !== '';
    // llmContent is what the model reads; returnDisplay is for the terminal.
    if (!isError && typeof body.llmContent === 'string') return { content: normaliseGeminiOutput(body.llmContent), isError };
    return { content: stableJson({ llmContent: normaliseGeminiOutput(body.llmContent), error: body.error ?? null }), isError };
  }
  const isError = body.is_error === true || body.success === false;
  if (agent === 'claude-code' && !isError && typeof body.stdout === 'string' && (body.stderr === undefined || body.stderr === '') && body.interrupted !== true) {
    return { content: body.stdout, isError };
  }
  return { content: stableJson(body), isError };
}

/** JSON with sorted keys, depth-capped: the same response always hashes the same. */
function stableJson(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : `"~${String(value)}"`;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value !== 'object') return '"~"';
  if (depth > 32) return '"#"';
  if (Array.isArray(value)) return `[${value.map((v) => stableJson(v, depth + 1)).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Rec)[k], depth + 1)}`).join(',')}}`;
}
