// OpenAI Responses API items (`message`, `reasoning`, `function_call`, `function_call_output`…),
// read alike wherever they appear: Codex rollouts (`response_item` payloads), Responses API logs
// and agents-SDK item lists (the openai reader), mini-swe-agent runs on a Responses model.
// A call is answered by the output item with the same `call_id` (never the item's own `id`).

import type { ThinkingBlock, ToolAnswer } from '../../model/transcript.js';
import { asNumber, asString, flattenContent, isRec, parseJsonString, stringifySafe, type Rec } from './text.js';

/** Items the model emits. Hosted tools (web search, file search, MCP) run inside the same response. */
export const OUTPUT_ITEMS = new Set([
  'message',
  'reasoning',
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'tool_search_call',
  'web_search_call',
  'file_search_call',
  'mcp_call',
  'computer_call',
  'code_interpreter_call',
]);

/** Items that answer a call of an earlier output item, by its call_id. */
export const ANSWER_ITEMS = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
  'tool_search_output',
  'computer_call_output',
]);

export function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

export function callId(p: Rec): string | null {
  return nonEmpty(p.call_id) ?? nonEmpty(p.id);
}

export interface ItemCall {
  id: string | null;
  name: string;
  arguments: unknown;
  /** Hosted tools that carry their own result in the same item. */
  answer?: ToolAnswer;
}

/** The call an output item makes, or null when the item is no call (a message, reasoning). */
export function itemCall(p: Rec): ItemCall | null {
  switch (p.type) {
    case 'function_call': {
      const name = asString(p.name) ?? 'unknown';
      const ns = nonEmpty(p.namespace);
      return { id: callId(p), name: ns ? `${ns}.${name}` : name, arguments: parseJsonString(p.arguments) };
    }
    case 'custom_tool_call':
      // Free-form tools (apply_patch): the input is the argument, as written.
      return { id: callId(p), name: asString(p.name) ?? 'unknown', arguments: p.input === undefined ? null : p.input };
    case 'local_shell_call':
      return { id: callId(p), name: 'local_shell', arguments: p.action === undefined ? null : p.action };
    case 'tool_search_call':
      return { id: callId(p), name: 'tool_search', arguments: p.arguments === undefined ? null : p.arguments };
    case 'web_search_call':
      // Hosted: the results never come back as an item, so its answer stays unknown.
      return { id: null, name: 'web_search', arguments: p.action === undefined ? null : p.action };
    case 'computer_call':
      return { id: callId(p), name: 'computer', arguments: p.action === undefined ? null : p.action };
    case 'file_search_call': {
      const id = nonEmpty(p.id);
      const results = Array.isArray(p.results) ? { content: stringifySafe(p.results), isError: false } : undefined;
      return { id, name: 'file_search', arguments: p.queries === undefined ? null : p.queries, ...(results && id ? { answer: results } : {}) };
    }
    case 'mcp_call': {
      const id = nonEmpty(p.id);
      const label = nonEmpty(p.server_label);
      const name = asString(p.name) ?? 'unknown';
      const error = p.error === undefined || p.error === null ? null : p.error;
      const done = error !== null || p.output !== undefined;
      const answer = done ? { content: error !== null ? flattenContent(error) : flattenContent(p.output), isError: error !== null } : undefined;
      return { id, name: label ? `${label}.${name}` : name, arguments: parseJsonString(p.arguments), ...(answer && id ? { answer } : {}) };
    }
    case 'code_interpreter_call': {
      const id = nonEmpty(p.id);
      const answer = Array.isArray(p.outputs) ? { content: stringifySafe(p.outputs), isError: false } : undefined;
      return { id, name: 'code_interpreter', arguments: p.code === undefined ? null : p.code, ...(answer && id ? { answer } : {}) };
    }
    default:
      return null;
  }
}

/** Reasoning: raw content when logged, else the summary; neither means encrypted, opaque. */
export function reasoningBlock(p: Rec): ThinkingBlock {
  const raw = contentTexts(p.content);
  if (raw.length > 0) return { text: raw.join('\n'), opaque: false };
  const summary = contentTexts(p.summary);
  if (summary.length > 0) return { text: summary.join('\n'), opaque: false };
  return { text: null, opaque: true };
}

/** The text parts of a content list (input_text, output_text, summary_text, reasoning_text…). */
export function contentTexts(content: unknown): string[] {
  if (typeof content === 'string') return content.length > 0 ? [content] : [];
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const part of content) {
    if (!isRec(part)) continue;
    const text = typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : null;
    if (text !== null && text.length > 0) out.push(text);
  }
  return out;
}

/**
 * A tool output flattened for comparison. Shell outputs carry per-run noise (wall time, a
 * chunk id) that would make two identical failures look different; those header lines are
 * dropped. The exit code decides isError where the output states one.
 */
export function toolAnswer(p: Rec): ToolAnswer {
  const output = p.output;
  let content: string;
  let isError = p.success === false || (isRec(output) && output.success === false) || p.status === 'incomplete';
  if (typeof output === 'string') {
    const parsed = parseJsonString(output);
    if (isRec(parsed) && typeof parsed.output === 'string') {
      // Older shell outputs: {"output": "...", "metadata": {"exit_code": N, "duration_seconds": …}}
      content = parsed.output;
      const meta = isRec(parsed.metadata) ? parsed.metadata : null;
      const code = meta ? asNumber(meta.exit_code) : null;
      if (code !== null && code !== 0) isError = true;
    } else {
      content = output;
    }
  } else if (isRec(output) && 'content' in output && !('text' in output)) {
    content = flattenContent(output.content);
  } else {
    content = flattenContent(output ?? (p.tools !== undefined ? p.tools : null));
  }
  // Only the header above "Output:" is Codex's own; the body is the command's and stays whole.
  const split = content.indexOf('\nOutput:\n');
  if (split >= 0 && split < 1000) {
    const head = content.slice(0, split + 1);
    const code = /^(?:Exit code:|Process exited with code) (-?\d+)$/m.exec(head);
    if (code && Number(code[1]) !== 0) isError = true;
    const body = content.slice(split + '\nOutput:\n'.length);
    content = head.replace(/^(?:Wall time: [\d.]+ seconds|Chunk ID: \S+)\r?\n/gm, '') + content.slice(split + 1);
    // A process still running that printed nothing yet: a wait, no answer (issue 54, item 4).
    if (/^Process running with session ID /m.test(head) && body.trim() === '') return { content, isError, waiting: true };
  }
  return { content, isError };
}
