// Small, shape-tolerant readers shared by the message-list adapters (openai, anthropic, gemini,
// chatgpt, canonical). None of them recurse into tool arguments: those may be nested 100,000
// deep and are passed through untouched.

import type { SessionBuilder } from '../../model/builder.js';
import type { ToolAnswer, ToolCall, Usage } from '../../model/transcript.js';
import type { AdapterContext, RecordParser } from '../types.js';
import { asNumber, asString, fileStem, isRec, parseJsonString, stringifySafe, type Rec } from './text.js';

export { asNumber, asString, fileStem, isRec, parseJsonString, stringifySafe, type Rec } from './text.js';

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
  if (isRec(content)) return partText(content, depth);
  return '';
}

function partText(part: unknown, depth: number): string {
  if (typeof part === 'string') return part;
  if (!isRec(part)) return '';
  if (part.thought === true) return '';
  const type = asString(part.type);
  if (type && /thinking|reasoning/.test(type)) return '';
  const text = asString(part.text) ?? asString(part.refusal) ?? asString(part.output_text);
  if (text !== null) return text;
  if (depth < 2 && part.content !== undefined) return contentText(part.content, depth + 1);
  return '';
}

/** The calls of a Chat Completions `tool_calls` list (`{id, function: {name, arguments}}`, the arguments a JSON string). */
export function chatToolCalls(list: unknown): ToolCall[] {
  return (Array.isArray(list) ? list.filter(isRec) : []).map((call) => {
    const fn = isRec(call.function) ? call.function : {};
    return { id: asString(call.id), name: asString(fn.name) ?? 'unknown', arguments: parseJsonString(fn.arguments ?? null) };
  });
}

/** A tool answer from any content shape; non-text payloads are kept as their JSON. */
export function answerOf(content: unknown, isError = false): ToolAnswer {
  let text = contentText(content);
  if (text === '' && content !== null && content !== undefined && typeof content !== 'string') {
    text = stringifySafe(content);
  }
  return { content: text, isError };
}

/**
 * One request's usage from any of the usage objects the message formats carry: Chat Completions
 * (`prompt_tokens`, cached part in `prompt_tokens_details.cached_tokens`; LiteLLM adds Anthropic's
 * cache fields beside them), Responses (`input_tokens` with `input_tokens_details.cached_tokens`)
 * and Anthropic (`input_tokens` without the cache, `cache_read_input_tokens` and
 * `cache_creation_input_tokens` apart).
 */
export function usageOf(raw: unknown): Partial<Usage> | null {
  if (!isRec(raw)) return null;
  const cacheRead = asNumber(raw.cache_read_input_tokens);
  const cacheWrite = asNumber(raw.cache_creation_input_tokens);
  const chatInput = asNumber(raw.prompt_tokens);
  // Anthropic's input_tokens leave out the cached part of the prompt; the prompt is all three.
  const input = chatInput ?? sumOrNull(asNumber(raw.input_tokens), cacheWrite, cacheRead);
  const output = asNumber(raw.completion_tokens) ?? asNumber(raw.output_tokens);
  const details = isRec(raw.completion_tokens_details)
    ? raw.completion_tokens_details
    : isRec(raw.output_tokens_details)
      ? raw.output_tokens_details
      : null;
  const reasoning = details ? asNumber(details.reasoning_tokens) : asNumber(raw.reasoning_tokens);
  if (input === null && output === null && reasoning === null) return null;
  const usage: Partial<Usage> = { inputTokens: input, outputTokens: output, reasoningTokens: reasoning };
  const inputDetails = isRec(raw.prompt_tokens_details) ? raw.prompt_tokens_details : isRec(raw.input_tokens_details) ? raw.input_tokens_details : null;
  const cached = (inputDetails ? asNumber(inputDetails.cached_tokens) : null) ?? cacheRead;
  if (input !== null) {
    // Parts of a prompt never exceed it; a log that says otherwise is not believed past the prompt.
    if (cached !== null) usage.cacheReadTokens = Math.min(cached, input);
    if (cacheWrite !== null) usage.cacheWriteTokens = Math.min(cacheWrite, input - (usage.cacheReadTokens ?? 0));
    const creation = isRec(raw.cache_creation) ? raw.cache_creation : null;
    const oneHour = creation ? asNumber(creation.ephemeral_1h_input_tokens) : null;
    if (oneHour !== null && usage.cacheWriteTokens !== undefined) usage.cacheWrite1hTokens = Math.min(oneHour, usage.cacheWriteTokens);
  }
  return usage;
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
  const n = asNumber(value);
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
function messageEvidence(list: readonly unknown[], limit = 200): MessageEvidence {
  const ev: MessageEvidence = { messages: 0, openai: 0, anthropic: 0 };
  for (let i = 0; i < list.length && i < limit; i++) addEvidence(list[i], ev);
  return ev;
}

function addEvidence(m: unknown, ev: MessageEvidence): void {
  if (!isRec(m)) return;
  const role = asString(m.role);
  if (!role || !OPENAI_ROLES.has(role)) return;
  if ('parts' in m || 'mapping' in m || 'author' in m) return;
  if (!('content' in m) && !('tool_calls' in m) && !('function_call' in m)) return;
  ev.messages += 1;
  if (Array.isArray(m.tool_calls) || isRec(m.function_call) || 'tool_call_id' in m) ev.openai += 1;
  if (role === 'tool' || role === 'function' || role === 'system' || role === 'developer') ev.openai += 1;
  if ('reasoning_content' in m || 'reasoning_details' in m) ev.openai += 1;
  if (Array.isArray(m.content)) {
    for (let j = 0; j < m.content.length && j < 50; j++) {
      const block = m.content[j];
      const type = isRec(block) ? asString(block.type) : null;
      if (!type) continue;
      if (ANTHROPIC_BLOCKS.has(type)) ev.anthropic += 1;
      else if (OPENAI_PARTS.has(type)) ev.openai += 1;
      else if (type === 'image' && isRec((block as Rec).source)) ev.anthropic += 1;
    }
  }
}

/** The message list of a conversation container, or null when the value is not one. */
export function messagesOf(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (!isRec(value)) return null;
  if (Array.isArray(value.messages)) return value.messages;
  for (const key of ['request', 'body', 'params']) {
    const inner = value[key];
    if (isRec(inner) && Array.isArray(inner.messages)) return inner.messages;
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
      const response = isRec(record) ? responseMessageOf(record) : null;
      if (response) addEvidence(response.message, ev);
      if (isRec(record) && (typeof record.system === 'string' || Array.isArray(record.system))) ev.anthropic += 1;
    } else {
      addEvidence(record, ev);
      const response = isRec(record) ? responseMessageOf(record) : null;
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
  message: Rec;
  usage: unknown;
  model: string | null;
  timestamp: string | null;
}

/**
 * The assistant message of a logged API response: a Chat Completions object (`choices[0].message`)
 * or an Anthropic Messages response (`type: "message"`), bare or under `response` / `response.body`.
 */
export function responseMessageOf(value: Rec): ResponseMessage | null {
  const candidates: unknown[] = [value];
  if (isRec(value.response)) {
    candidates.push(value.response);
    if (isRec(value.response.body)) candidates.push(value.response.body);
  }
  for (const c of candidates) {
    if (!isRec(c)) continue;
    if (Array.isArray(c.choices) && isRec(c.choices[0]) && isRec(c.choices[0].message)) {
      return {
        kind: 'openai',
        message: c.choices[0].message,
        usage: c.usage,
        model: asString(c.model),
        timestamp: timestampOf(c.created),
      };
    }
    if (c.type === 'message' && c.role === 'assistant' && Array.isArray(c.content)) {
      return { kind: 'anthropic', message: c, usage: c.usage, model: asString(c.model), timestamp: null };
    }
  }
  return null;
}

/** A document is a conversation, or an array of conversations (a dataset of `{messages}`). */
export function documentRecords(value: unknown): readonly unknown[] {
  if (Array.isArray(value) && value.length > 0 && value.every((v) => isRec(v) && messagesOf(v) !== null)) return value;
  return [value];
}

/**
 * The containers message logs come in, shared by the openai and anthropic readers: JSONL with one
 * conversation per line (each its own session, `<file>:<line>`) or one message per line (the
 * file one session), and a document holding one conversation or an array of them. `T` is the
 * per-session state a format keeps beside its SessionBuilder.
 */
export abstract class MessageLogParser<T> implements RecordParser {
  private fileState: T | null = null;
  protected readonly base: string;

  constructor(
    protected readonly ctx: AdapterContext,
    /** Names the format in skip reasons ("not an OpenAI message or conversation"). */
    private readonly label: string,
  ) {
    this.base = fileStem(ctx.path);
  }

  /** Fresh per-session state around a builder. */
  protected abstract state(sb: SessionBuilder): T;
  /** A `{messages}` container or an array of messages: one conversation. */
  protected abstract conversation(state: T, container: unknown, line: number | null): void;
  /** A JSONL line that is not a conversation: one message, a logged response, or metadata. */
  protected abstract record(value: Rec, line: number): void;

  push(value: unknown, line: number | null): void {
    if (line === null) return this.pushDocument(value);
    if (value === null) return;
    if (!isRec(value) && !Array.isArray(value)) return this.ctx.skip(line, `not an ${this.label} message or conversation`);
    if (messagesOf(value) !== null) {
      const key = `line:${line}`;
      this.conversation(this.state(this.ctx.builder.session(key, { id: `${this.base}:${line}` })), value, line);
      this.ctx.builder.endSession(key);
      return;
    }
    if (isRec(value)) this.record(value, line);
  }

  private pushDocument(value: unknown): void {
    const records = documentRecords(value);
    if (records.length === 1 && records[0] === value) {
      if (messagesOf(value) === null) return this.ctx.skip(null, `no ${this.label} messages in this document`);
      this.conversation(this.file(), value, null);
      return;
    }
    records.forEach((conversation, i) => {
      const key = `conversation:${i}`;
      const id = isRec(conversation) && typeof conversation.id === 'string' ? conversation.id : `${this.base}#${i + 1}`;
      this.conversation(this.state(this.ctx.builder.session(key, { id })), conversation, null);
      this.ctx.builder.endSession(key);
    });
  }

  /** The session of a file of one message per line. */
  protected file(): T {
    this.fileState ??= this.state(this.ctx.builder.session('file', { id: this.base }));
    return this.fileState;
  }

  end(): void {}
}
