// Cline (the CLI, and the core it shares): `~/.cline/data/sessions/<id>/<id>.messages.json`, one
// document {version, agent, sessionId, messages, system_prompt}. Messages are Anthropic-like
// (`tool_use`, `tool_result` blocks); each assistant message is one model response. Cline's own
// re-prompts (`[SYSTEM] …`) are no user turn, and its display-only notices are no response.

import type { SessionBuilder } from '../model/builder.js';
import { answerOf } from './shared/messages.js';
import { usageWithCache } from './shared/usage.js';
import { asNumber, asString, isRec, type Rec } from './shared/text.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const clineAdapter: FormatAdapter = {
  name: 'cline',
  description: 'Cline sessions (~/.cline/data/sessions/<id>/<id>.messages.json): tool_use/tool_result messages, run_commands results per command',
  detection: 'a JSON document with sessionId, messages (role, content blocks, ts) and system_prompt',
  detect: detectCline,
  open: (ctx) => new ClineParser(ctx),
};

function detectCline(probe: Probe): number {
  if (probe.mode !== 'document' || !isRec(probe.value)) return 0;
  const v = probe.value;
  if (typeof v.sessionId !== 'string' || !Array.isArray(v.messages) || !('system_prompt' in v)) return 0;
  return v.messages.every((m) => isRec(m) && typeof m.role === 'string' && Array.isArray(m.content)) ? 1 : 0;
}

/** Cline's guard: "Detected 5 consecutive identical calls to `run_commands`; stopping to avoid a loop." */
const LOOP_HALT = /Detected \d+ consecutive identical calls/;

class ClineParser implements RecordParser {
  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    if (!isRec(value) || typeof value.sessionId !== 'string' || !Array.isArray(value.messages)) {
      this.ctx.skip(line, 'not a Cline session ({sessionId, messages})');
      return;
    }
    const sb = this.ctx.builder.session(value.sessionId);
    for (const m of value.messages) {
      if (!isRec(m) || !Array.isArray(m.content)) continue;
      const blocks = m.content.filter(isRec);
      const text = blocks.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('\n');
      if (LOOP_HALT.test(text)) sb.agentHalt(line, 'cline loop detection');
      const meta = isRec(m.metadata) ? m.metadata : {};
      if (meta.displayOnly === true) continue;
      if (m.role === 'user') readUser(sb, blocks, text, line, meta.displayRole === 'system');
      else if (m.role === 'assistant') readAssistant(sb, m, blocks, line);
    }
  }

  end(): void {}
}

/**
 * A user message is a turn unless it answers calls, is Cline's own `[SYSTEM]` re-prompt, or is a
 * hook's `context` (3.0.65 stores it as a user message `<hook_context source="PostToolUse" …>` with
 * `metadata.displayRole: "system"`): the guard's reminder is part of the turn it steers.
 */
function readUser(sb: SessionBuilder, blocks: Rec[], text: string, line: number | null, system: boolean): void {
  let results = 0;
  for (const b of blocks) {
    if (b.type !== 'tool_result') continue;
    results += 1;
    sb.answer(asString(b.tool_use_id), resultOf(b));
  }
  if (results === 0 && !system && !text.startsWith('[SYSTEM]') && !text.startsWith('<hook_context ')) sb.userTurn(line);
}

/**
 * A tool result: `run_commands` answers with one entry per command ({query, result, error,
 * success}); a command that exited non-zero is `success: false`.
 */
function resultOf(block: Rec) {
  const content = Array.isArray(block.content) ? block.content : [block.content];
  let failed = block.is_error === true;
  const parts: string[] = [];
  for (const c of content) {
    if (isRec(c) && ('success' in c || 'query' in c)) {
      if (c.success === false) failed = true;
      parts.push([asString(c.result), asString(c.error)].filter((s) => s).join('\n'));
    } else if (isRec(c) && typeof c.text === 'string') {
      parts.push(c.text);
    } else if (typeof c === 'string') {
      parts.push(c);
    }
  }
  return answerOf(parts.join('\n'), failed);
}

function readAssistant(sb: SessionBuilder, m: Rec, blocks: Rec[], line: number | null): void {
  const info = isRec(m.modelInfo) ? m.modelInfo : {};
  const ts = asNumber(m.ts);
  sb.round({ line, model: asString(info.id), timestamp: ts !== null ? new Date(ts).toISOString() : null });
  for (const b of blocks) {
    if (b.type === 'text' && typeof b.text === 'string') sb.text(b.text);
    else if ((b.type === 'thinking' || b.type === 'reasoning') && typeof (b.thinking ?? b.text) === 'string') sb.thinking({ text: String(b.thinking ?? b.text), opaque: false });
    else if (b.type === 'tool_use') sb.call({ id: asString(b.id), name: asString(b.name) ?? 'unknown', arguments: b.input ?? null });
  }
  const metrics = isRec(m.metrics) ? m.metrics : null;
  if (metrics) {
    const read = asNumber(metrics.cacheReadTokens) ?? 0;
    const write = asNumber(metrics.cacheWriteTokens) ?? 0;
    sb.usage(usageWithCache(asNumber(metrics.inputTokens), asNumber(metrics.outputTokens), null, read, write));
  }
}
