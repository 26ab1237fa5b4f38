// OpenAI Responses API logs, read by the openai adapter: a Response object
// (`{object: "response", model, output: [items], usage}`), a request body (`{model, input: [items]}`),
// or a bare item list (agents-SDK `to_input_list()`, JSONL of one item per line).
//
// One Response is one round. In a flat item list, the output items between two input items (a user
// message, a call's output) are one response: a parallel batch is the function_call items in a row.

import type { SessionBuilder } from '../model/builder.js';
import { asString, contentText, isRec, timestampOf, usageOf, type Rec } from './shared/messages.js';
import { ANSWER_ITEMS, callId, contentTexts, itemCall, OUTPUT_ITEMS, reasoningBlock, toolAnswer } from './shared/response-items.js';

/** Item types only the Responses API has (a Chat message never carries these). */
const RESPONSES_ONLY = new Set([...OUTPUT_ITEMS, ...ANSWER_ITEMS, 'item_reference', 'mcp_list_tools', 'mcp_approval_request', 'mcp_approval_response']);
RESPONSES_ONLY.delete('message');

/** Content part types of Responses messages. */
const RESPONSES_PARTS = new Set(['input_text', 'output_text', 'input_image', 'input_file', 'refusal']);

/** Whether a value is one Responses item: a typed item, or a message with Responses content parts. */
export function isResponsesItem(v: unknown): v is Rec {
  if (!isRec(v)) return false;
  const type = asString(v.type);
  if (type !== null && RESPONSES_ONLY.has(type)) {
    // A function call and its output always carry the call_id that pairs them.
    if (type.endsWith('_output') || type === 'function_call' || type === 'custom_tool_call') return typeof v.call_id === 'string';
    return true;
  }
  if (type === 'message' && typeof v.role === 'string') {
    return Array.isArray(v.content) && v.content.some((p) => isRec(p) && RESPONSES_PARTS.has(String(p.type)));
  }
  return false;
}

/** A Response object (`object: "response"` with its `output` items). */
export function isResponseObject(v: unknown): v is Rec {
  return isRec(v) && v.object === 'response' && Array.isArray(v.output);
}

/** A request body whose `input` is an item list (or a string prompt) and which has no chat `messages`. */
export function isResponsesRequest(v: unknown): v is Rec {
  if (!isRec(v) || 'messages' in v) return false;
  if (typeof v.input === 'string') return typeof v.model === 'string' || 'instructions' in v;
  return Array.isArray(v.input) && v.input.some(isResponsesItem);
}

/** How many of these records are Responses-shaped (items, Response objects, request bodies). */
export function responsesEvidence(records: readonly unknown[]): number {
  let n = 0;
  for (const r of records) {
    if (isResponseObject(r) || isResponsesRequest(r)) n += 2;
    else if (Array.isArray(r)) n += r.slice(0, 50).filter(isResponsesItem).length;
    else if (isResponsesItem(r)) n += 1;
  }
  return n;
}

/** Reads items into one session, grouping output items into rounds. */
export class ResponsesReader {
  /** The next output item opens a round (nothing open, or an input came since). */
  private fresh = true;

  constructor(
    private readonly sb: SessionBuilder,
    private model: string | null = null,
  ) {}

  /** Any Responses container or item. */
  read(value: unknown, line: number | null): void {
    if (Array.isArray(value)) {
      // A list of items, or of Response objects (a saved run); nested lists are not walked.
      for (const v of value) if (!Array.isArray(v)) this.read(v, line);
    } else if (isResponseObject(value)) {
      this.response(value, line);
    } else if (isResponsesRequest(value)) {
      this.request(value, line);
    } else {
      this.item(value, line);
    }
  }

  /** A request body: instructions are context; the input is the conversation so far. */
  private request(body: Rec, line: number | null): void {
    this.model = asString(body.model) ?? this.model;
    if (typeof body.input === 'string') {
      if (body.input.trim() !== '') this.turn(line);
      return;
    }
    for (const item of body.input as unknown[]) this.item(item, line);
  }

  /** A whole Response: its output items are one round, with its usage and model. */
  response(r: Rec, line: number | null): void {
    this.model = asString(r.model) ?? this.model;
    this.sb.round({ line, model: this.model, timestamp: timestampOf(r.created_at) });
    this.fresh = false;
    for (const item of r.output as unknown[]) this.item(item, line);
    const usage = usageOf(r.usage);
    if (usage) this.sb.usage(usage);
    // The next Response is the model's next request.
    this.fresh = true;
  }

  item(value: unknown, line: number | null): void {
    if (!isRec(value)) return;
    // Agents-SDK user items may leave out the type.
    const type = asString(value.type) ?? (typeof value.role === 'string' ? 'message' : null);
    if (type === null) return;
    if (type === 'message') return this.message(value, line);
    if (ANSWER_ITEMS.has(type)) {
      this.sb.answer(callId(value), toolAnswer(value));
      this.fresh = true;
      return;
    }
    if (type === 'reasoning') {
      this.output(line);
      this.sb.thinking(reasoningBlock(value));
      return;
    }
    const call = itemCall(value);
    if (!call) return; // item_reference, mcp_list_tools, approvals: no call batch to compare
    this.output(line);
    this.sb.call({ id: call.id, name: call.name, arguments: call.arguments });
    if (call.answer && call.id !== null) this.sb.answer(call.id, call.answer);
  }

  private message(m: Rec, line: number | null): void {
    switch (m.role) {
      case 'assistant':
        this.output(line);
        this.sb.text(contentTexts(m.content).join('\n') || contentText(m.content));
        return;
      case 'user':
        this.turn(line);
        return;
      default:
        // system and developer messages are instructions, not conversation.
        return;
    }
  }

  private turn(line: number | null): void {
    this.sb.userTurn(line);
    this.fresh = true;
  }

  private output(line: number | null): void {
    if (!this.fresh) return;
    this.sb.round({ line, model: this.model });
    this.fresh = false;
  }
}
