// The OpenTelemetry GenAI semantic conventions: `chat` spans (one model response each, the response
// in `gen_ai.output.messages`, or in the older `gen_ai.choice` events), `execute_tool` spans (the
// call and its result), `invoke_agent` spans (a user turn; their usage repeats their children's and
// is not added). Rounds come from output messages only: input messages are history, delta in one
// producer and whole in another, and answer calls but never make rounds.

import type { ThinkingBlock, ToolAnswer, ToolCall } from '../../model/transcript.js';
import { flattenContent, isRec, type Rec } from '../shared/text.js';
import { ToolSpans, byTime, newRound, roundAt, traceOf, type RoundDraft, type SessionDraft } from './draft.js';
import { attrString, type OtelItem } from './items.js';
import type { Producer } from './producer.js';
import { jsonish, num } from './values.js';

const CHAT_OPERATIONS = new Set(['chat', 'generate_content', 'text_completion']);
const CONTENT_EVENTS = new Set(['gen_ai.choice', 'gen_ai.assistant.message', 'gen_ai.tool.message', 'gen_ai.user.message', 'gen_ai.client.inference.operation.details']);

function operation(item: OtelItem): string {
  const op = attrString(item, 'gen_ai.operation.name');
  if (op !== null) return op;
  const first = item.name.split(' ')[0] ?? '';
  return first;
}

function isChat(item: OtelItem): boolean {
  return item.kind === 'span' && CHAT_OPERATIONS.has(operation(item));
}

/** Arguments as the model wrote them: an object, a JSON string, a wrapped string (`{"input_str": …}`) or a kvlist. */
export function argumentsOf(raw: unknown): unknown {
  const value = jsonish(raw);
  // OpenLLMetry's LangChain wrapper: the model's arguments are the string inside (beside tags and metadata of its own).
  if (isRec(value) && typeof value.input_str === 'string') return jsonish(value.input_str);
  return value ?? {};
}

/** A tool result's text, from `response` or `result` (the registry's own example), or any content. */
function resultText(part: Rec): string {
  const value = 'response' in part ? part.response : 'result' in part ? part.result : part.content;
  const parsed = jsonish(value);
  return typeof parsed === 'string' ? parsed : flattenContent(parsed);
}

interface Response {
  text: string[];
  thinking: ThinkingBlock[];
  calls: ToolCall[];
}

/** The parts of `gen_ai.output.messages` (or one message, for events) as text, reasoning and calls. */
function responseOf(messages: unknown): Response {
  const out: Response = { text: [], thinking: [], calls: [] };
  const list = jsonish(messages);
  for (const m of Array.isArray(list) ? list : [list]) {
    if (!isRec(m)) continue;
    const message = isRec(m.message) ? m.message : m;
    if (Array.isArray(message.parts)) {
      for (const p of message.parts) {
        if (!isRec(p)) continue;
        if (p.type === 'text' && typeof p.content === 'string') out.text.push(p.content);
        else if (p.type === 'reasoning' || p.type === 'thinking') out.thinking.push({ text: typeof p.content === 'string' ? p.content : null, opaque: typeof p.content !== 'string' });
        else if (p.type === 'tool_call') out.calls.push({ id: typeof p.id === 'string' ? p.id : null, name: typeof p.name === 'string' ? p.name : 'unknown', arguments: argumentsOf(p.arguments) });
      }
    } else {
      // Older events: {content, tool_calls: [{id, function: {name, arguments}}]}.
      if (typeof message.content === 'string' && message.content.length > 0) out.text.push(message.content);
      for (const c of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        if (!isRec(c)) continue;
        const fn = isRec(c.function) ? c.function : c;
        out.calls.push({ id: typeof c.id === 'string' ? c.id : null, name: typeof fn.name === 'string' ? fn.name : 'unknown', arguments: argumentsOf(fn.arguments) });
      }
    }
  }
  return out;
}

/** Tool results carried by messages (input history, `gen_ai.tool.message` events): answers by call id. */
function answersIn(messages: unknown, into: Map<string, ToolAnswer>): void {
  const list = jsonish(messages);
  for (const m of Array.isArray(list) ? list : [list]) {
    if (!isRec(m)) continue;
    if (Array.isArray(m.parts)) {
      for (const p of m.parts) {
        if (isRec(p) && p.type === 'tool_call_response' && typeof p.id === 'string' && !into.has(p.id)) into.set(p.id, { content: resultText(p), isError: false });
      }
    } else if ((m.role === 'tool' || 'tool_call_id' in m || 'id' in m) && typeof (m.tool_call_id ?? m.id) === 'string') {
      const id = String(m.tool_call_id ?? m.id);
      if (!into.has(id)) into.set(id, { content: resultText(m), isError: false });
    }
  }
}

/** The last input message, when it is the user's own words (not a tool result): a new turn. */
function opensTurn(messages: unknown): boolean {
  const list = jsonish(messages);
  const last = Array.isArray(list) ? list[list.length - 1] : null;
  if (!isRec(last) || last.role !== 'user') return false;
  if (!Array.isArray(last.parts)) return typeof last.content === 'string';
  return last.parts.some((p) => isRec(p) && p.type === 'text') && !last.parts.some((p) => isRec(p) && p.type === 'tool_call_response');
}

function usageOf(a: Rec) {
  const input = num(a['gen_ai.usage.input_tokens'] ?? a['gen_ai.usage.prompt_tokens']);
  const output = num(a['gen_ai.usage.output_tokens'] ?? a['gen_ai.usage.completion_tokens']);
  if (input === null && output === null) return null;
  const usage: RoundDraft['usage'] = { inputTokens: input, outputTokens: output, reasoningTokens: num(a['gen_ai.usage.reasoning.output_tokens'] ?? a['gen_ai.usage.reasoning_tokens']) };
  const cached = num(a['gen_ai.usage.cache_read.input_tokens'] ?? a['gen_ai.usage.cache_read_input_tokens']);
  if (cached !== null && input !== null) usage.cacheReadTokens = Math.min(cached, input);
  return usage;
}

export function toolAnswer(span: OtelItem): ToolAnswer | null {
  const a = span.attrs;
  const result = a['gen_ai.tool.call.result'] ?? a['gen_ai.tool.output'] ?? a['output.value'];
  const error = attrString(span, 'error.message', 'exception.message', 'error.type');
  if (result === undefined && span.status !== 'error') return null;
  // A string result is the tool's own text, kept as written; anything else is flattened.
  const content = result === undefined ? (error ?? '') : typeof result === 'string' ? result : flattenContent(result);
  return { content, isError: span.status === 'error' || attrString(span, 'error.type') !== null };
}

export const genai: Producer = {
  name: 'genai',
  verified: 'semantic conventions 1.36–1.41, as OpenLLMetry 0.61 writes them (the public Jaeger sample) and hand-written fixtures',
  detection: 'spans whose gen_ai.operation.name is chat, execute_tool or invoke_agent (or named so), gen_ai.* message events',
  unrecorded: ['depends on the library: with message capture off, only tool names (no arguments, results or text)'],
  matches: (item) => attrString(item, 'gen_ai.operation.name') !== null || item.name.startsWith('gen_ai.') || /^(chat|execute_tool|invoke_agent) /.test(item.name),
  read(items): SessionDraft {
    const draft: SessionDraft = { turns: [], rounds: [] };
    const answers = new Map<string, ToolAnswer>();
    const chats = new Map<string, RoundDraft>();
    for (const span of items) {
      if (!isChat(span)) continue;
      const r = newRound(span.start, span.line, traceOf(span));
      let response = responseOf(span.attrs['gen_ai.output.messages']);
      for (const e of span.events) {
        if (e.name === 'gen_ai.choice' || e.name === 'gen_ai.client.inference.operation.details') {
          const more = responseOf(e.attrs['gen_ai.output.messages'] ?? e.attrs.message ?? e.attrs);
          response = { text: [...response.text, ...more.text], thinking: [...response.thinking, ...more.thinking], calls: [...response.calls, ...more.calls] };
        }
        if (e.name === 'gen_ai.tool.message') answersIn(e.attrs, answers);
      }
      r.text.push(...response.text);
      r.thinking.push(...response.thinking);
      r.calls.push(...response.calls);
      r.usage = usageOf(span.attrs);
      r.model = attrString(span, 'gen_ai.response.model', 'gen_ai.request.model');
      answersIn(span.attrs['gen_ai.input.messages'], answers);
      if (opensTurn(span.attrs['gen_ai.input.messages'])) draft.turns.push({ time: span.start, line: span.line });
      draft.rounds.push(r);
      if (span.spanId !== null) chats.set(span.spanId, r);
    }
    draft.rounds = byTime(draft.rounds);
    // Content as log records (conventions up to 1.36): joined to their chat span by span id.
    for (const log of items) {
      if (log.kind !== 'log' || !CONTENT_EVENTS.has(log.name)) continue;
      const content = isRec(log.body) ? log.body : log.attrs;
      if (log.name === 'gen_ai.tool.message') answersIn(content, answers);
      if (log.name !== 'gen_ai.choice' && log.name !== 'gen_ai.client.inference.operation.details') continue;
      const r = (log.spanId !== null ? chats.get(log.spanId) : undefined) ?? roundAt(draft.rounds, log.start);
      if (!r) continue;
      const response = responseOf(content['gen_ai.output.messages'] ?? content.message ?? content);
      r.text.push(...response.text);
      r.calls.push(...response.calls);
    }
    // Answers from messages first; a tool span's own result, when it has one, is better evidence.
    for (const r of draft.rounds) for (const c of r.calls) if (c.id !== null && answers.has(c.id)) r.answers.set(c.id, answers.get(c.id)!);
    const tools = new ToolSpans(draft.rounds);
    for (const { item: s } of byTime(items.filter((i) => i.kind === 'span' && operation(i) === 'execute_tool').map((item) => ({ item, time: item.start })))) {
      tools.attach({
        id: attrString(s, 'gen_ai.tool.call.id'),
        name: attrString(s, 'gen_ai.tool.name') ?? s.name.replace(/^execute_tool /, ''),
        arguments: argumentsOf(s.attrs['gen_ai.tool.call.arguments'] ?? {}),
        answer: toolAnswer(s),
        time: s.start,
      });
    }
    // A user turn is an invoke_agent span that no other invoke_agent contains, where no input message said.
    if (draft.turns.length === 0) {
      const agents = items.filter((i) => i.kind === 'span' && operation(i) === 'invoke_agent');
      const agentIds = new Set(agents.map((a) => a.spanId));
      for (const a of agents) if (!agentIds.has(a.parentId)) draft.turns.push({ time: a.start, line: a.line });
    }
    return draft;
  },
};
