// The live guard's contract with one agent, as its folder under src/agents/ declares it (issue 55
// item 1): which events it sends and how to read them, how it is told to refuse a call or given
// context, where the guard is installed, and what `hook doctor` sends to probe it. src/hook is
// the machinery shared by every agent; nothing in it asks which agent it is serving.

import type { FormatAdapter } from '../formats/types.js';
import type { ToolAnswer } from '../model/transcript.js';
import type { HandlerMove, ReviewPlan } from './codex-trust.js';
import { answerFailed } from '../detect/tool-batch/failure.js';
import { answerDigest } from '../detect/tool-batch/signature.js';

/** pre: the call is about to run. post: it ran (or failed). stop: the turn's final answer. */
export type EventKind = 'pre' | 'post' | 'stop' | 'other';

export interface HookCall {
  /** The agent's call id; Gemini sends none, so one is made up (`~` prefix) and matched by signature. */
  id: string;
  name: string;
  input: unknown;
}

export interface HookEvent {
  /** The agent's name in the registry (src/agents). */
  agent: string;
  /** The event's name as sent (`hook_event_name`, or the agent's own field). */
  name: string;
  kind: EventKind;
  sessionId: string;
  /** null when the agent has none, or its transcript is not followed live: the guard then follows stdin alone. */
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
  /** pre: the text of the response the call belongs to, where stdin carries it (OpenCode's and Kilo's plugin). */
  text?: string | null;
  /** `loopledger_probe`: sent by `hook doctor` alone; answered before the transcript is read or anything written. */
  probe: string | null;
}

export class PayloadError extends Error {}

export interface Verdict {
  /** Refuse the pending call (pre only). */
  deny: string | null;
  /** End the turn: the text is for the user (stopReason), never shown to the model. */
  stop: string | null;
  /** Context the model reads next (the steer's recovery reminder). */
  context: string | null;
}

export type Rec = Record<string, unknown>;

/**
 * Settings that hold the guard as `hooks.<event>`: a list of matcher groups, each with its own
 * `hooks` list of handlers (`groups`; Claude Code, Gemini CLI, Codex, Qwen Code), or the handlers
 * themselves (`handlers`; Copilot CLI).
 */
export interface SettingsInstall {
  kind: 'settings';
  nesting: 'groups' | 'handlers';
  events: readonly { event: string; matcher: string | null }[];
  /** The handler the guard runs in, given its command (the agent's own field names and timeout unit). */
  handler(command: string): Rec;
  /** The field of a handler that holds its command. */
  commandField: string;
  /** The field of a handler that holds its timeout, in `timeoutUnitMs` units. */
  timeoutField: string;
  timeout: number;
  timeoutUnitMs: number;
  /** The file is read as JSON with comments (Gemini CLI). */
  comments: boolean;
  /** Top-level keys a new project file starts with (Copilot CLI's repository hook files carry `version`). */
  preamble?: Rec;
  user(env: NodeJS.ProcessEnv, cwd: string): string;
  project(cwd: string): string;
  /**
   * A second file the agent checks before it runs a handler (Codex's record of the hooks its user
   * reviewed): what install writes there for exactly the handler it wrote, and what doctor says
   * when the installed guard is not reviewed.
   */
  review?: {
    /** The file it writes. */
    file(io: { env: NodeJS.ProcessEnv; cwd: string }): string;
    plan(path: string, settings: Rec, io: { env: NodeJS.ProcessEnv; cwd: string }, isOurs: (h: unknown) => boolean, isGuard: (h: unknown) => boolean, moves: readonly HandlerMove[]): ReviewPlan;
    advice(path: string, settings: Rec, io: { env: NodeJS.ProcessEnv; cwd: string }, isGuard: (h: unknown) => boolean): string | null;
  };
}

/**
 * The guard as files of its own that the agent runs or loads: executables named by event (Cline's
 * hooks folder), or one plugin module (OpenCode's and Kilo's plugin folders). `text` writes the
 * file around the guard's command; `commandIn` finds that command in a file again (null: not ours).
 */
export interface FilesInstall {
  kind: 'files';
  /** The files, each with the event it serves (reported by `doctor`). */
  files: readonly { name: string; event: string }[];
  text(command: string, event: string): string;
  commandIn(text: string): string | null;
  /** Executable (mode 0755) or not (0644). */
  executable: boolean;
  timeout: number;
  timeoutUnitMs: number;
  userDir(env: NodeJS.ProcessEnv): string;
  projectDir(cwd: string): string;
  /** The folder is the guard's own (OpenClaw's plugin folder): uninstall removes it once it is empty. */
  ownDir?: boolean;
  /** What the agent's own configuration must hold before it loads the files (OpenClaw's plugin entry). */
  config?: ConfigEntries;
}

/**
 * Entries a files install adds to the agent's configuration (JSON with comments) and its
 * uninstall takes back: an object member set to a value, or an item added to a list.
 */
export interface ConfigEntries {
  file(env: NodeJS.ProcessEnv): string;
  /** The entries for the files written in `dir`, each by its keys from the top of the file. */
  entries(dir: string): readonly ConfigEntry[];
  /** Why the agent will not load the guard even with the entries there (a plugin allowlist without it), or null. */
  blocked(config: unknown): string | null;
}

export interface ConfigEntry {
  keys: readonly string[];
  value: unknown;
  /** `keys` name a list and `value` is one item of it. */
  item?: boolean;
}

export interface AgentHook {
  /** A payload already parsed as a JSON object, read into one event (`env`: where the agent's own
   *  folders are, the guard's environment). Throws PayloadError. */
  read(value: Rec, env: NodeJS.ProcessEnv): HookEvent;
  /** The stdout answer to `verdict` about `call`, or null when there is nothing to say (or no way to say it here). */
  render(eventName: string, kind: EventKind, verdict: Verdict, call?: HookCall | null): object | null;
  /** Whether `kind` events can carry context to the model (else it waits for one that can). */
  canCarryContext(kind: EventKind): boolean;
  /** What the agent sends before a tool runs, for a harmless call, carrying `loopledger_probe`. */
  probe(id: string, cwd: string): Rec;
  /** The variable the agent adds to a hook's environment naming the project (doctor sets it as the agent would). */
  projectDirVariable?: string;
  /** The transcript the payload names, and how it is read; absent: the guard follows stdin alone. */
  transcript?: {
    adapter(): Promise<FormatAdapter>;
    /** `undecided`: a JSON document or JSONL, decided at the first reading (Gemini CLI). */
    layout: 'jsonl' | 'undecided';
    /** Which records the adapter must see again when reading resumes mid-file. */
    prelude?(prelude: string[], value: Rec, text: string): string[];
  };
  install: SettingsInstall | FilesInstall;
}

export function str(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

/** JSON with sorted keys, depth-capped: the same response always hashes the same. */
export function stableJson(value: unknown, depth = 0): string {
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

/**
 * What came back, reduced to a digest at once (a tool result may be megabytes; the hook only ever
 * compares answers). The digest is the reader's (signature.ts `answerDigest`) of the text the
 * agent's transcript shows for the same answer, where the payload carries it: a round read back
 * from the transcript, as after a state started over, then compares equal to one answered on stdin.
 */
export function digestAnswer({ content, isError }: { content: string; isError: boolean }): ToolAnswer {
  // A text answer that opens like an error is a failure too (recurring_failure), as in a transcript.
  const failed = isError || answerFailed({ content, isError: false });
  return { content: '', isError, digest: answerDigest({ content, isError }), failed };
}

interface ClaudeStyle {
  agent: string;
  /** `hook_event_name` → kind. */
  kinds: Readonly<Record<string, EventKind>>;
  /** The answer's text and error flag, as the agent's transcript records them. */
  answer(name: string, value: Rec): { content: string; isError: boolean };
  /** Sub-agents named by `agent_id` (Claude Code). */
  subagents?: boolean;
  /** The call in the terms its transcript uses. */
  call?(call: HookCall): HookCall;
}

/**
 * The Claude Code payload shape, which Codex and Qwen Code follow too: `hook_event_name`,
 * `session_id`, `transcript_path`, `tool_name`, `tool_input`, `tool_use_id`, `tool_response`;
 * `last_assistant_message` (or Gemini's `prompt_response`) at the stop.
 */
export function readClaudeStyle(style: ClaudeStyle, value: Rec): HookEvent {
  const name = str(value.hook_event_name);
  if (name === null) throw new PayloadError('payload without hook_event_name');
  const sessionId = str(value.session_id);
  if (sessionId === null) throw new PayloadError(`${name} payload without session_id`);
  const kind = Object.hasOwn(style.kinds, name) ? style.kinds[name]! : 'other';
  const event: HookEvent = {
    agent: style.agent,
    name,
    kind,
    sessionId,
    transcriptPath: str(value.transcript_path),
    subagent: style.subagents === true ? str(value.agent_id) : null,
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
    const call = { id: id ?? '', name: toolName, input };
    event.call = style.call ? style.call(call) : call;
    if (kind === 'post') event.answer = digestAnswer(style.answer(name, value));
  } else if (kind === 'stop') {
    event.finalText = typeof value.last_assistant_message === 'string'
      ? value.last_assistant_message
      : typeof value.prompt_response === 'string'
        ? value.prompt_response
        : null;
  }
  return event;
}

/** A response object's text as its sorted JSON, unless it is a string already. */
export function responseText(body: unknown, isError = false): { content: string; isError: boolean } {
  if (typeof body === 'string') return { content: body, isError };
  return { content: stableJson(body ?? null), isError };
}

