// OpenAI Chat Completions transcripts: a message array, `{"messages": [...]}` (also a logged
// request/response), or JSONL holding one conversation or one message per line.

import type { SessionBuilder } from '../model/builder.js';
import type { ThinkingBlock } from '../model/transcript.js';
import {
  answerOf,
  contentText,
  documentRecords,
  isRec,
  MessageLogParser,
  messagesOf,
  parseJsonString,
  probeEvidence,
  responseMessageOf,
  asString,
  timestampOf,
  usageOf,
  type Rec,
} from './shared/messages.js';
import type { AdapterContext, FormatAdapter, Probe } from './types.js';
import { isResponseObject, isResponsesItem, isResponsesRequest, ResponsesReader, responsesEvidence } from './openai-responses.js';

export const openaiAdapter: FormatAdapter = {
  name: 'openai',
  description:
    'OpenAI Chat Completions messages: a JSON array, {"messages": [...]}, or JSONL (one conversation or one message per line); Responses API items (function_call/function_call_output paired by call_id, reasoning, message), Response objects and request bodies',
  detection:
    'role/content messages with tool_calls, role "tool"/"system", reasoning_content or OpenAI content parts; plain role/content messages score low; Responses: items typed function_call/function_call_output (with call_id), reasoning…, or an object "response" with its output',
  detect: detectOpenAI,
  open: (ctx) => new OpenAIParser(ctx),
};

function detectOpenAI(probe: Probe): number {
  if (responsesEvidence(probe.mode === 'document' ? [probe.value] : probe.records) > 0) return 0.9;
  const records = probe.mode === 'document' ? documentRecords(probe.value) : probe.records;
  const ev = probeEvidence(records);
  if (ev.messages === 0) return 0;
  if (ev.anthropic > 0) return ev.openai > ev.anthropic ? 0.5 : 0;
  // Plain {role, content} messages are valid OpenAI input and the most generic shape, so a
  // middling score: a format with positive evidence always wins.
  return ev.openai > 0 ? 0.9 : 0.5;
}

/** Per-session state the builder does not keep: the call ids of the open round, in order. */
interface Thread {
  sb: SessionBuilder;
  callIds: string[];
}

class OpenAIParser extends MessageLogParser<Thread> {
  /** The file's Responses items, once one was seen: later role/content lines are items too. */
  private responses: ResponsesReader | null = null;
  private requests = 0;

  constructor(ctx: AdapterContext) {
    super(ctx, 'OpenAI');
  }

  override push(value: unknown, line: number | null): void {
    if (isResponsesRequest(value) && line !== null) {
      // A logged request per line: each holds its whole conversation, like a {messages} line.
      this.requests += 1;
      const key = `request:${this.requests}`;
      new ResponsesReader(this.ctx.builder.session(key, { id: `${this.base}:${line}` })).read(value, line);
      this.ctx.builder.endSession(key);
      return;
    }
    if (this.isResponses(value)) {
      this.responses ??= new ResponsesReader(this.file().sb);
      this.responses.read(value, line);
      return;
    }
    super.push(value, line);
  }

  private isResponses(value: unknown): boolean {
    if (isResponseObject(value) || isResponsesItem(value) || isResponsesRequest(value)) return true;
    if (Array.isArray(value)) return value.slice(0, 50).some((v) => isResponsesItem(v) || isResponseObject(v));
    return this.responses !== null && isRec(value) && typeof value.role === 'string' && !('messages' in value);
  }

  protected state(sb: SessionBuilder): Thread {
    return { sb, callIds: [] };
  }

  protected conversation(thread: Thread, container: unknown, line: number | null): void {
    readConversation(thread, container, line);
  }

  protected record(value: Rec, line: number): void {
    const response = responseMessageOf(value);
    if (response) {
      readMessage(this.file(), response.message, line, { usage: response.usage, model: response.model, timestamp: response.timestamp });
    } else if (typeof value.role === 'string') {
      readMessage(this.file(), value, line);
    }
    // Anything else (a metadata or header line) carries no conversation.
  }
}

interface Defaults {
  usage?: unknown;
  model?: string | null;
  timestamp?: string | null;
}

function readConversation(thread: Thread, container: unknown, line: number | null): void {
  const messages = messagesOf(container) ?? [];
  const outer = isRec(container) ? container : null;
  const model = outer ? (asString(outer.model) ?? (isRec(outer.request) ? asString(outer.request.model) : null)) : null;
  for (const m of messages) readMessage(thread, m, line, { model });
  const response = outer ? responseMessageOf(outer) : null;
  if (response) {
    readMessage(thread, response.message, line, {
      usage: response.usage ?? outer?.usage,
      model: response.model ?? model,
      timestamp: response.timestamp,
    });
  }
}

function readMessage(thread: Thread, m: unknown, line: number | null, defaults: Defaults = {}): void {
  if (!isRec(m)) return;
  const { sb } = thread;
  switch (m.role) {
    case 'user':
      sb.userTurn(line);
      thread.callIds = [];
      return;
    case 'assistant':
      return readAssistant(thread, m, line, defaults);
    case 'tool': {
      let id = asString(m.tool_call_id);
      // A result without an id answers the first call still waiting, which is what a
      // sequential tool loop means by it.
      if (id === null || !sb.awaits(id)) id = thread.callIds.find((c) => sb.awaits(c)) ?? id;
      if (id !== null) sb.answer(id, answerOf(m.content));
      return;
    }
    case 'function':
      sb.answer(null, answerOf(m.content));
      return;
    default:
      // system / developer prompts are context, not turns.
      return;
  }
}

function readAssistant(thread: Thread, m: Rec, line: number | null, defaults: Defaults): void {
  const { sb } = thread;
  sb.round({
    line,
    model: asString(m.model) ?? defaults.model ?? null,
    timestamp: timestampOf(m.timestamp) ?? timestampOf(m.created_at) ?? defaults.timestamp ?? null,
  });
  thread.callIds = [];
  for (const block of thinkingOf(m)) sb.thinking(block);
  sb.text(contentText(m.content));
  if (typeof m.refusal === 'string') sb.text(m.refusal);
  if (Array.isArray(m.tool_calls)) {
    for (const tc of m.tool_calls) {
      if (!isRec(tc)) continue;
      const fn = isRec(tc.function) ? tc.function : isRec(tc.custom) ? tc.custom : null;
      const name = (fn && asString(fn.name)) ?? asString(tc.name) ?? 'unknown';
      const raw = fn ? (fn.arguments ?? fn.input) : (tc.arguments ?? tc.input);
      const id = asString(tc.id);
      if (id !== null) thread.callIds.push(id);
      // Custom tools take free text: only function arguments are a JSON string to parse.
      sb.call({ id, name, arguments: isRec(tc.custom) ? (raw ?? null) : parseJsonString(raw) });
    }
  }
  if (isRec(m.function_call)) {
    sb.call({ id: null, name: asString(m.function_call.name) ?? 'unknown', arguments: parseJsonString(m.function_call.arguments) });
  }
  const usage = usageOf(m.usage) ?? usageOf(defaults.usage);
  if (usage) sb.usage(usage);
}

/**
 * Thinking carried beside the content. Providers put the same reasoning in several fields at
 * once (OpenRouter sends `reasoning` and `reasoning_details`), so only the richest one is read.
 */
export function thinkingOf(m: Rec): ThinkingBlock[] {
  if (Array.isArray(m.reasoning_details) && m.reasoning_details.length > 0) {
    const blocks: ThinkingBlock[] = [];
    for (const d of m.reasoning_details) {
      if (!isRec(d)) continue;
      const text = asString(d.text) ?? summaryText(d.summary);
      if (text) blocks.push({ text, opaque: false });
      else if (d.data !== undefined || d.encrypted_content !== undefined || /encrypted/.test(String(d.type))) {
        blocks.push({ text: null, opaque: true });
      }
    }
    if (blocks.length > 0) return blocks;
  }
  const rc = asString(m.reasoning_content);
  if (rc) return [{ text: rc, opaque: false }];
  const r = m.reasoning;
  if (typeof r === 'string') return r ? [{ text: r, opaque: false }] : [];
  if (isRec(r)) {
    const text = asString(r.text) ?? summaryText(r.summary) ?? summaryText(r.content);
    if (text) return [{ text, opaque: false }];
    if (r.encrypted_content !== undefined) return [{ text: null, opaque: true }];
  }
  return [];
}

function summaryText(v: unknown): string | null {
  if (typeof v === 'string') return v || null;
  if (Array.isArray(v)) {
    const text = contentText(v);
    return text || null;
  }
  return null;
}
