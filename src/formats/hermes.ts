// Hermes Agent (NousResearch/hermes-agent): each session of its SQLite store (formats/hermes-db.ts
// hands them over one record per session, `{hermesSession, messages}`). Messages are OpenAI-style
// rows: a `user` row starts a turn, an `assistant` row is a round (`content`, `reasoning`,
// `tool_calls` as a JSON string), a `tool` row answers by `tool_call_id`.

import type { ToolAnswer } from '../model/transcript.js';
import { chatToolCalls } from './shared/messages.js';
import { asNumber, asString, isRec, parseJsonString, type Rec } from './shared/text.js';
import type { AdapterContext, FormatAdapter, RecordParser } from './types.js';

export const hermesAdapter: FormatAdapter = {
  name: 'hermes',
  description: "Hermes Agent's sessions (~/.hermes/state.db, tables sessions and messages): OpenAI-style rows with tool_calls, tool answers by tool_call_id",
  detection: 'its SQLite store, by its tables (sessions, messages, schema_version); no file of its own',
  // Only its database names it (formats/ingest/database.ts): the rows alone are any OpenAI chat.
  detect: () => 0,
  open: (ctx) => new HermesParser(ctx),
};

class HermesParser implements RecordParser {
  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    if (!isRec(value) || !isRec(value.hermesSession) || !Array.isArray(value.messages)) {
      this.ctx.skip(line, 'not a Hermes session ({hermesSession, messages})');
      return;
    }
    const info = value.hermesSession;
    const id = asString(info.id) ?? `session ${String(line)}`;
    // Hermes sets parent_session_id on the session a context compression continues into and on a
    // delegated sub-agent's session: both are read as the child of the session they came from.
    const sb = this.ctx.builder.session(id, { parent: asString(info.parent_session_id) });
    const model = asString(info.model);
    const messages = value.messages.filter(isRec);
    const compacted = messages.some((m) => m.compacted === 1);
    const seen = new Set<string>();
    for (const message of messages) {
      // In-place compaction (0.18.0's archive_and_compact) marks the rows it summarised compacted=1
      // and writes the new context after them: its summary, and copies of the rows it kept. Only
      // the rows that ran are read; a rewound row (active=0, compacted=0) ran, and is read.
      if (compacted) {
        if (isCompactionSummary(message.content)) {
          this.ctx.ignore?.('compaction summary');
          continue;
        }
        const key = JSON.stringify([message.role, message.content, message.tool_call_id, message.tool_calls]);
        if (seen.has(key)) {
          this.ctx.ignore?.('compaction copy');
          continue;
        }
        seen.add(key);
      }
      const seconds = asNumber(message.timestamp);
      if (seconds !== null) sb.at(new Date(seconds * 1000).toISOString());
      const role = message.role;
      if (role === 'user') sb.userTurn(line);
      else if (role === 'assistant') {
        sb.round({ line });
        if (model !== null && model !== 'null') sb.model(model);
        const text = asString(message.content);
        if (text) sb.text(text);
        const thinking = asString(message.reasoning) ?? asString(message.reasoning_content);
        if (thinking) sb.thinking({ text: thinking, opaque: false });
        for (const call of chatToolCalls(parseJsonString(message.tool_calls ?? null))) sb.call(call);
      } else if (role === 'tool') sb.answer(asString(message.tool_call_id), hermesAnswer(asString(message.tool_name), asString(message.content)));
      else this.ctx.ignore?.(typeof role === 'string' ? role : 'message without a role');
    }
    recordCost(sb, info);
    sb.end();
  }

  end(): void {}
}

/** The summary a compaction writes, opened by context_compressor.py's SUMMARY_PREFIX (or the older one). */
function isCompactionSummary(content: unknown): boolean {
  return typeof content === 'string' && /^\[(CONTEXT COMPACTION\b|CONTEXT SUMMARY\]:)/.test(content);
}

/** The session's cost as Hermes billed it: the provider's figure, else its own estimate when it priced the model. */
function recordCost(sb: ReturnType<AdapterContext['builder']['session']>, info: Rec): void {
  const actual = asNumber(info.actual_cost_usd);
  if (actual !== null) sb.recordedCost({ usd: actual, source: 'sessions.actual_cost_usd' });
  else {
    const estimate = asNumber(info.estimated_cost_usd);
    // cost_status 'unknown' marks a model Hermes had no price for: its 0.0 estimate is no cost.
    if (estimate !== null && info.cost_status !== 'unknown' && info.cost_status != null) sb.recordedCost({ usd: estimate, source: 'sessions.estimated_cost_usd' });
  }
}

/**
 * A tool's answer, failed as Hermes's own display marks it (0.18.0's agent/display.py,
 * _detect_tool_failure): the terminal tool by a non-zero `exit_code` only; a write_file or patch
 * answer that says it landed never; any other by a JSON `error` (or `message` with `success:
 * false`), else by `"error"` or `"failed"` in its first 500 characters, or an answer opening with `Error`.
 */
function hermesAnswer(tool: string | null, content: string | null): ToolAnswer {
  return { content: content ?? '', isError: content !== null && hermesFailed(tool, content) };
}

function hermesFailed(tool: string | null, content: string): boolean {
  const data = parseJsonString(content);
  // A file write that says it landed is an answer whatever its text (tool_result_classification.py).
  if (isRec(data) && !data.error && ((tool === 'write_file' && 'bytes_written' in data) || (tool === 'patch' && data.success === true))) return false;
  if (tool === 'terminal') {
    const exit = isRec(data) ? data.exit_code : null;
    return exit !== null && exit !== undefined && exit !== 0;
  }
  if (isRec(data)) {
    const err = data.error || data.message;
    if (err && (data.success === false || 'error' in data)) return true;
  }
  const head = content.slice(0, 500).toLowerCase();
  return head.includes('"error"') || head.includes('"failed"') || content.startsWith('Error');
}
