// Anthropic Messages API transcripts: `{"messages": [...]}` or an array (also a logged
// request/response, or JSONL with one conversation or one message per line).

import type { SessionBuilder } from '../model/builder.js';
import {
  answerOf,
  documentRecords,
  isRec,
  MessageLogParser,
  messagesOf,
  probeEvidence,
  responseMessageOf,
  asString,
  timestampOf,
  usageOf,
  type Rec,
} from './shared/messages.js';
import type { AdapterContext, FormatAdapter, Probe } from './types.js';

export const anthropicAdapter: FormatAdapter = {
  name: 'anthropic',
  description: 'Anthropic Messages API: {"messages": [...]} or an array, content blocks text/tool_use/tool_result/thinking/redacted_thinking',
  detection: 'role/content messages whose content blocks are tool_use, tool_result, thinking or redacted_thinking, or a top-level "system" beside "messages"',
  detect: detectAnthropic,
  open: (ctx) => new AnthropicParser(ctx),
};

/** Cline's task document wraps Anthropic-shaped messages with its own session keys: cline.ts reads it. */
function isClineDocument(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'sessionId' in value && 'system_prompt' in value && 'messages' in value;
}

function detectAnthropic(probe: Probe): number {
  if (probe.mode === 'document' && isClineDocument(probe.value)) return 0;
  const records = probe.mode === 'document' ? documentRecords(probe.value) : probe.records;
  const ev = probeEvidence(records);
  if (ev.messages === 0) return 0;
  if (ev.anthropic > 0) return ev.anthropic >= ev.openai ? 0.9 : 0.4;
  // Plain text messages parse the same either way; OpenAI's 0.5 takes them.
  return ev.openai > 0 ? 0 : 0.3;
}

class AnthropicParser extends MessageLogParser<SessionBuilder> {
  constructor(ctx: AdapterContext) {
    super(ctx, 'Anthropic');
  }

  protected state(sb: SessionBuilder): SessionBuilder {
    return sb;
  }

  protected conversation(sb: SessionBuilder, container: unknown, line: number | null): void {
    readConversation(sb, container, line);
  }

  protected record(value: Rec, line: number): void {
    if (typeof value.role === 'string') {
      readMessage(this.file(), value, line, null);
    } else {
      const response = responseMessageOf(value);
      if (response) readMessage(this.file(), response.message, line, response.model, response.usage);
    }
  }
}

function readConversation(sb: SessionBuilder, container: unknown, line: number | null): void {
  const outer = isRec(container) ? container : null;
  const model = outer ? (asString(outer.model) ?? (isRec(outer.request) ? asString(outer.request.model) : null)) : null;
  for (const m of messagesOf(container) ?? []) readMessage(sb, m, line, model);
  const response = outer ? responseMessageOf(outer) : null;
  if (response) readMessage(sb, response.message, line, response.model ?? model, response.usage);
}

function readMessage(sb: SessionBuilder, m: unknown, line: number | null, model: string | null, usage?: unknown): void {
  if (!isRec(m)) return;
  if (m.role === 'user') return readUser(sb, m, line);
  if (m.role === 'assistant') return readAssistant(sb, m, line, model, usage);
}

/**
 * A user message is a turn unless it carries tool results: those answer the previous round,
 * and any text beside them is what a harness appends to a result (reminders, hook output),
 * not a person starting a new request.
 */
function readUser(sb: SessionBuilder, m: Rec, line: number | null): void {
  if (!Array.isArray(m.content)) {
    sb.userTurn(line);
    return;
  }
  let results = 0;
  for (const block of m.content) {
    if (isRec(block) && block.type === 'tool_result') {
      results += 1;
      const id = asString(block.tool_use_id);
      if (id !== null) sb.answer(id, answerOf(block.content ?? '', block.is_error === true));
    }
  }
  if (results === 0) sb.userTurn(line);
}

function readAssistant(sb: SessionBuilder, m: Rec, line: number | null, model: string | null, usage: unknown): void {
  sb.round({ line, model: asString(m.model) ?? model, timestamp: timestampOf(m.timestamp) });
  if (typeof m.content === 'string') {
    sb.text(m.content);
  } else if (Array.isArray(m.content)) {
    for (const block of m.content) {
      if (!isRec(block)) continue;
      switch (block.type) {
        case 'text':
          if (typeof block.text === 'string') sb.text(block.text);
          break;
        case 'thinking': {
          // An empty thinking text with a signature is reasoning the API chose not to show.
          const text = asString(block.thinking);
          sb.thinking(text ? { text, opaque: false } : { text: null, opaque: true });
          break;
        }
        case 'redacted_thinking':
          sb.thinking({ text: null, opaque: true });
          break;
        case 'tool_use':
        case 'server_tool_use':
        case 'mcp_tool_use':
          sb.call({ id: asString(block.id), name: asString(block.name) ?? 'unknown', arguments: block.input ?? null });
          break;
        default: {
          // Server-side tools answer inside the assistant message (web_search_tool_result, …).
          const id = asString(block.tool_use_id);
          if (id !== null && typeof block.type === 'string' && block.type.endsWith('_tool_result')) {
            const content = block.content;
            const isError = block.is_error === true || (isRec(content) && /error/.test(String(content.type)));
            sb.answer(id, answerOf(content ?? '', isError));
          }
        }
      }
    }
  }
  const u = usageOf(m.usage) ?? usageOf(usage);
  if (u) sb.usage(u);
}
