// ChatGPT data export (`conversations.json`): an array of conversations, each a tree of
// message nodes (`mapping`). Edits and regenerations are branches; the conversation the user
// last saw is the path from `current_node` up to the root, so only that path is read.

import type { SessionBuilder } from '../model/builder.js';
import type { ToolAnswer } from '../model/transcript.js';
import { fileStem, isRec, parseJsonString, stringifySafe, asString, timestampOf, type Rec } from './shared/messages.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const chatgptAdapter: FormatAdapter = {
  name: 'chatgpt',
  description: 'ChatGPT export conversations.json: many conversations per file, each a mapping tree read from current_node',
  detection: 'conversations (an array, one object, or one per line) with a "mapping" object of message nodes',
  detect: detectChatGPT,
  open: (ctx) => new ChatGPTParser(ctx),
  // Each conversation is read on its own: an export of hundreds of MB streams.
  arrayElements: true,
};

function isConversation(v: unknown): v is Rec {
  return isRec(v) && isRec(v.mapping);
}

function detectChatGPT(probe: Probe): number {
  const values = probe.mode === 'document' ? [probe.value] : probe.records;
  let best = 0;
  for (const v of values) {
    if (Array.isArray(v)) {
      const head = v.slice(0, 5);
      if (head.length > 0 && head.every(isConversation)) best = Math.max(best, 1);
    } else if (isConversation(v)) {
      best = Math.max(best, 'current_node' in v || 'title' in v ? 0.95 : 0.8);
    }
  }
  return best;
}

class ChatGPTParser implements RecordParser {
  private readonly base: string;
  private count = 0;

  constructor(private readonly ctx: AdapterContext) {
    this.base = fileStem(ctx.path);
  }

  push(value: unknown, line: number | null): void {
    if (value === null) return;
    const list = Array.isArray(value) ? value : [value];
    for (const conv of list) {
      if (isConversation(conv)) this.readConversation(conv, line);
      else this.ctx.skip(line, 'not a ChatGPT conversation (no mapping)');
    }
  }

  private readConversation(conv: Rec, line: number | null): void {
    this.count += 1;
    const key = `conversation:${this.count}`;
    const id = asString(conv.conversation_id) ?? asString(conv.id) ?? `${this.base}#${this.count}`;
    const sb = this.ctx.builder.session(key, { id });
    const thread = new Thread(sb, line);
    for (const node of threadPath(conv)) thread.message(node.message);
    this.ctx.builder.endSession(key);
  }

  end(): void {}
}

/**
 * The nodes from the root to `current_node`. Guarded against cycles and dangling parents, which
 * a hand-edited or truncated export can contain; without a usable `current_node` the last leaf
 * of the mapping stands in (it is the newest message in exports that omit it).
 */
function threadPath(conv: Rec): Rec[] {
  const mapping = conv.mapping as Rec;
  let nodeId = asString(conv.current_node);
  if (nodeId === null || !isRec(mapping[nodeId])) {
    nodeId = null;
    for (const [id, node] of Object.entries(mapping)) {
      if (isRec(node) && (!Array.isArray(node.children) || node.children.length === 0)) nodeId = id;
    }
  }
  const path: Rec[] = [];
  const seen = new Set<string>();
  while (nodeId !== null && !seen.has(nodeId)) {
    seen.add(nodeId);
    const node = mapping[nodeId];
    if (!isRec(node)) break;
    path.push(node);
    nodeId = asString(node.parent);
  }
  return path.reverse();
}

/**
 * Reads one conversation's messages in order. Consecutive assistant messages (thoughts, a
 * recap, the answer, a tool call) are one model response, so they share a round; a tool or
 * user message ends it. A tool call has no id in the export: the call is keyed by its message
 * id and answered by the next tool message, preferring the call whose recipient names it.
 */
class Thread {
  private roundOpen = false;
  private calls: { id: string; name: string; answered: boolean }[] = [];

  constructor(
    private readonly sb: SessionBuilder,
    private readonly line: number | null,
  ) {}

  message(msg: unknown): void {
    if (!isRec(msg)) return;
    const meta = isRec(msg.metadata) ? msg.metadata : {};
    if (meta.is_visually_hidden_from_conversation === true) return;
    const author = isRec(msg.author) ? msg.author : {};
    const content = isRec(msg.content) ? msg.content : {};
    switch (author.role) {
      case 'user':
        if (content.content_type === 'user_editable_context') return; // custom instructions
        this.sb.userTurn(this.line);
        this.roundOpen = false;
        this.calls = [];
        return;
      case 'assistant':
        return this.assistant(msg, meta, content);
      case 'tool':
        return this.tool(author, meta, content);
      default:
        return; // system messages are context
    }
  }

  private assistant(msg: Rec, meta: Rec, content: Rec): void {
    const recipient = asString(msg.recipient) ?? 'all';
    const type = content.content_type;
    // Blank placeholders and bookkeeping messages are not responses: they must not open a
    // round (one before the first user message would otherwise shift every turn number).
    // ("Thought for 12 seconds" recaps are a label, not reasoning; model_editable_context is memory.)
    if (recipient === 'all' && (type === 'reasoning_recap' || type === 'model_editable_context')) return;
    if (recipient === 'all' && type !== 'thoughts' && bodyText(content) === '') return;
    if (!this.roundOpen) {
      this.sb.round({ line: this.line, model: asString(meta.model_slug), timestamp: timestampOf(msg.create_time) });
      this.roundOpen = true;
      this.calls = [];
    } else {
      this.sb.model(asString(meta.model_slug));
    }
    if (recipient !== 'all') {
      const id = asString(msg.id) ?? `call-${this.calls.length + 1}`;
      const raw = bodyText(content);
      // Tool calls are free text (code, a browser command) or JSON; only JSON is parsed, so
      // identical JSON calls compare equal whatever their key order.
      const args = /^\s*[[{]/.test(raw) ? parseJsonString(raw) : raw;
      this.sb.call({ id, name: recipient, arguments: args });
      this.calls.push({ id, name: recipient, answered: false });
      return;
    }
    switch (type) {
      case 'thoughts':
        if (Array.isArray(content.thoughts)) {
          for (const t of content.thoughts) {
            if (!isRec(t)) continue;
            const text = [asString(t.summary), asString(t.content)].filter((s) => s).join('\n');
            if (text) this.sb.thinking({ text, opaque: false });
          }
        }
        return;
      default:
        this.sb.text(bodyText(content));
    }
  }

  private tool(author: Rec, meta: Rec, content: Rec): void {
    this.roundOpen = false;
    const name = asString(author.name);
    const call =
      this.calls.find((c) => !c.answered && c.name === name) ??
      this.calls.find((c) => !c.answered && name !== null && (c.name.startsWith(`${name}.`) || name.startsWith(`${c.name}.`))) ??
      this.calls.find((c) => !c.answered);
    if (!call) return;
    call.answered = true;
    this.sb.answer(call.id, toolAnswer(meta, content));
  }
}

function toolAnswer(meta: Rec, content: Rec): ToolAnswer {
  const aggregate = isRec(meta.aggregate_result) ? meta.aggregate_result : null;
  const failed = aggregate !== null && typeof aggregate.status === 'string' && aggregate.status !== 'success';
  return { content: bodyText(content), isError: content.content_type === 'system_error' || failed };
}

/** The text of a message body, whatever its content_type. */
function bodyText(content: Rec): string {
  if (Array.isArray(content.parts)) {
    const out: string[] = [];
    for (const p of content.parts) {
      if (typeof p === 'string') out.push(p);
      else if (isRec(p) && typeof p.text === 'string') out.push(p.text);
    }
    return out.filter((s) => s !== '').join('\n');
  }
  const text = asString(content.text) ?? asString(content.result) ?? asString(content.summary) ?? asString(content.content);
  if (text !== null) return text;
  const rest = { ...content };
  delete rest.content_type;
  return Object.keys(rest).length > 0 ? stringifySafe(rest) : '';
}
