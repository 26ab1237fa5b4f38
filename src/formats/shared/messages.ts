// Small, shape-tolerant readers shared by the message-list adapters (openai, anthropic, gemini,
// chatgpt, canonical). None of them recurse into tool arguments: those may be nested 100,000
// deep and are passed through untouched.

import path from 'node:path';
import type { ToolAnswer, Usage } from '../../model/transcript.js';

export type Obj = Record<string, unknown>;

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The file's name without directory and .json/.jsonl, the default session id of one-session files. */
export function baseName(filePath: string): string {
  if (filePath === '-' || filePath === '') return 'stdin';
  return path.basename(filePath).replace(/\.(jsonl|ndjson|json)$/i, '') || 'session';
}

/**
 * Parse a JSON-encoded argument string. A malformed one stays the raw string (it is still a
 * call, and hashing the raw text keeps identical malformed calls identical).
 */
export function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? null;
  const trimmed = raw.trim();
  if (trimmed === '') return raw;
  try {
    return JSON.parse(trimmed);
  } catch {
    return raw;
  }
}

/**
 * JSON.stringify that never throws: values nested past the engine's stack limit (a tool output
 * nested 100,000 deep) fall back to a marker instead of crashing the file.
 */
export function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[unserializable]';
  }
}

/**
 * Flatten message content to text: a string, or a list of strings / parts carrying `text`
 * (OpenAI `{type:'text',text}`, Anthropic text blocks, Gemini `{text}` parts). One level of
 * nesting for tool_result-style `content` lists; anything deeper is ignored rather than walked.
 */
export function contentText(content: unknown, depth = 0): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const out: string[] = [];
    for (const part of content) {
      const t = partText(part, depth);
      if (t) out.push(t);
    }
    return out.join('\n');
  }
  if (isObj(content)) return partText(content, depth);
  return '';
}

function partText(part: unknown, depth: number): string {
  if (typeof part === 'string') return part;
  if (!isObj(part)) return '';
  if (part.thought === true) return '';
  const type = str(part.type);
  if (type && /thinking|reasoning/.test(type)) return '';
  const text = str(part.text) ?? str(part.refusal) ?? str(part.output_text);
  if (text !== null) return text;
  if (depth < 2 && part.content !== undefined) return contentText(part.content, depth + 1);
  return '';
}

/** A tool answer from any content shape; non-text payloads are kept as their JSON. */
export function answerOf(content: unknown, isError = false): ToolAnswer {
  let text = contentText(content);
  if (text === '' && content !== null && content !== undefined && typeof content !== 'string') {
    text = safeStringify(content);
  }
  return { content: text, isError };
}

/** OpenAI (prompt/completion) and Responses/Anthropic (input/output) usage, whichever is present. */
export function usageOf(raw: unknown): Partial<Usage> | null {
  if (!isObj(raw)) return null;
  const input =
    num(raw.prompt_tokens) ??
    sumOrNull(num(raw.input_tokens), num(raw.cache_creation_input_tokens), num(raw.cache_read_input_tokens));
  const output = num(raw.completion_tokens) ?? num(raw.output_tokens);
  const details = isObj(raw.completion_tokens_details)
    ? raw.completion_tokens_details
    : isObj(raw.output_tokens_details)
      ? raw.output_tokens_details
      : null;
  const reasoning = details ? num(details.reasoning_tokens) : num(raw.reasoning_tokens);
  if (input === null && output === null && reasoning === null) return null;
  return { inputTokens: input, outputTokens: output, reasoningTokens: reasoning };
}

// Anthropic reports cached prompt tokens apart from input_tokens; the prompt the model read is
// their sum, which is what a cost figure needs.
function sumOrNull(first: number | null, ...rest: (number | null)[]): number | null {
  if (first === null) return null;
  return rest.reduce<number>((acc, n) => acc + (n ?? 0), first);
}

/** An ISO timestamp from an ISO string or Unix seconds; null when neither. */
export function timestampOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  const n = num(value);
  if (n === null) return null;
  const d = new Date(n * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

const OPENAI_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const ANTHROPIC_BLOCKS = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'web_search_tool_result',
  'document',
]);
const OPENAI_PARTS = new Set(['image_url', 'input_audio', 'refusal', 'file', 'input_text', 'output_text']);

export interface MessageEvidence {
  /** Messages that look like chat messages at all (role user/assistant/…, content or calls). */
  messages: number;
  openai: number;
  anthropic: number;
}

/**
 * Evidence for OpenAI vs Anthropic in a list of role/content messages. Both share plain
 * `{role, content: string}`; only tool calls, roles and block types tell them apart.
 */
export function messageEvidence(list: readonly unknown[], limit = 200): MessageEvidence {
  const ev: MessageEvidence = { messages: 0, openai: 0, anthropic: 0 };
  for (let i = 0; i < list.length && i < limit; i++) addEvidence(list[i], ev);
  return ev;
}

export function addEvidence(m: unknown, ev: MessageEvidence): void {
  if (!isObj(m)) return;
  const role = str(m.role);
  if (!role || !OPENAI_ROLES.has(role)) return;
  if ('parts' in m || 'mapping' in m || 'author' in m) return;
  if (!('content' in m) && !('tool_calls' in m) && !('function_call' in m)) return;
  ev.messages += 1;
  if (Array.isArray(m.tool_calls) || isObj(m.function_call) || 'tool_call_id' in m) ev.openai += 1;
  if (role === 'tool' || role === 'function' || role === 'system' || role === 'developer') ev.openai += 1;
  if ('reasoning_content' in m || 'reasoning_details' in m) ev.openai += 1;
  if (Array.isArray(m.content)) {
    for (let j = 0; j < m.content.length && j < 50; j++) {
      const block = m.content[j];
      const type = isObj(block) ? str(block.type) : null;
      if (!type) continue;
      if (ANTHROPIC_BLOCKS.has(type)) ev.anthropic += 1;
      else if (OPENAI_PARTS.has(type)) ev.openai += 1;
      else if (type === 'image' && isObj((block as Obj).source)) ev.anthropic += 1;
    }
  }
}

/** The message list of a conversation container, or null when the value is not one. */
export function messagesOf(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (!isObj(value)) return null;
  if (Array.isArray(value.messages)) return value.messages;
  for (const key of ['request', 'body', 'params']) {
    const inner = value[key];
    if (isObj(inner) && Array.isArray(inner.messages)) return inner.messages;
  }
  return null;
}

/** Sum the evidence of the records a probe saw (each a message or a container of messages). */
export function probeEvidence(records: readonly unknown[]): MessageEvidence {
  const ev: MessageEvidence = { messages: 0, openai: 0, anthropic: 0 };
  for (const record of records) {
    const list = messagesOf(record);
    if (list) {
      const inner = messageEvidence(list);
      ev.messages += inner.messages;
      ev.openai += inner.openai;
      ev.anthropic += inner.anthropic;
      const response = isObj(record) ? responseMessageOf(record) : null;
      if (response) addEvidence(response.message, ev);
      if (isObj(record) && (typeof record.system === 'string' || Array.isArray(record.system))) ev.anthropic += 1;
    } else {
      addEvidence(record, ev);
      const response = isObj(record) ? responseMessageOf(record) : null;
      if (response) {
        addEvidence(response.message, ev);
        if (response.kind === 'openai') ev.openai += 1;
        else ev.anthropic += 1;
      }
    }
  }
  return ev;
}

export interface ResponseMessage {
  kind: 'openai' | 'anthropic';
  message: Obj;
  usage: unknown;
  model: string | null;
  timestamp: string | null;
}

/**
 * The assistant message of a logged API response: a Chat Completions object (`choices[0].message`)
 * or an Anthropic Messages response (`type: "message"`), bare or under `response` / `response.body`.
 */
export function responseMessageOf(value: Obj): ResponseMessage | null {
  const candidates: unknown[] = [value];
  if (isObj(value.response)) {
    candidates.push(value.response);
    if (isObj(value.response.body)) candidates.push(value.response.body);
  }
  for (const c of candidates) {
    if (!isObj(c)) continue;
    if (Array.isArray(c.choices) && isObj(c.choices[0]) && isObj(c.choices[0].message)) {
      return {
        kind: 'openai',
        message: c.choices[0].message,
        usage: c.usage,
        model: str(c.model),
        timestamp: timestampOf(c.created),
      };
    }
    if (c.type === 'message' && c.role === 'assistant' && Array.isArray(c.content)) {
      return { kind: 'anthropic', message: c, usage: c.usage, model: str(c.model), timestamp: null };
    }
  }
  return null;
}
