// Qwen Code chats: `~/.qwen/projects/<project>/chats/<session>.jsonl`, records in the envelope
// {uuid, parentUuid, sessionId, timestamp, type, cwd, version}: `user`, `assistant` (Gemini-style
// `message.parts` with `functionCall`s, `usageMetadata`), `tool_result` (`functionResponse` and
// `toolCallResult`) and `system` records (telemetry). Each assistant record is one model response.

import type { SessionBuilder } from '../model/builder.js';
import { answerOf } from './shared/messages.js';
import { asNumber, asString, isRec, type Rec } from './shared/text.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const qwenAdapter: FormatAdapter = {
  name: 'qwen',
  description: 'Qwen Code chats (~/.qwen/projects/<project>/chats/*.jsonl): assistant records with functionCall parts, tool_result records with toolCallResult',
  detection: 'records with sessionId and uuid whose message has Gemini-style parts, or type tool_result with toolCallResult',
  detect: detectQwen,
  open: (ctx) => new QwenParser(ctx),
};

function detectQwen(probe: Probe): number {
  if (probe.mode !== 'jsonl') return 0;
  let parts = 0;
  for (const r of probe.records) {
    if (!isRec(r) || typeof r.sessionId !== 'string' || typeof r.uuid !== 'string') continue;
    if (r.type === 'tool_result' && isRec(r.toolCallResult)) return 1;
    if (isRec(r.message) && Array.isArray(r.message.parts)) parts += 1;
  }
  return parts > 0 ? 0.95 : 0;
}

class QwenParser implements RecordParser {
  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    if (!isRec(value) || typeof value.type !== 'string' || typeof value.sessionId !== 'string') {
      this.ctx.skip(line, 'not a Qwen Code record ({type, sessionId})');
      return;
    }
    const sb = this.ctx.builder.session(value.sessionId, { project: asString(value.cwd) });
    const parts = isRec(value.message) && Array.isArray(value.message.parts) ? value.message.parts.filter(isRec) : [];
    switch (value.type) {
      case 'user':
        sb.userTurn(line);
        return;
      case 'assistant':
        readAssistant(sb, value, parts, line);
        return;
      case 'tool_result':
        readResult(sb, value, parts);
        return;
      case 'system':
        readSystem(sb, value, line);
        this.ctx.ignore?.(`system.${asString(value.subtype) ?? 'other'}`);
        return;
      default:
        this.ctx.ignore?.(value.type);
    }
  }

  end(): void {}
}

function readAssistant(sb: SessionBuilder, record: Rec, parts: Rec[], line: number | null): void {
  sb.round({ line, model: asString(record.model), timestamp: asString(record.timestamp) });
  for (const part of parts) {
    if (typeof part.text === 'string') {
      if (part.thought === true) sb.thinking({ text: part.text, opaque: false });
      else sb.text(part.text);
    } else if (isRec(part.functionCall)) {
      const call = part.functionCall;
      sb.call({ id: asString(call.id), name: asString(call.name) ?? 'unknown', arguments: call.args ?? null });
    }
  }
  const u = isRec(record.usageMetadata) ? record.usageMetadata : null;
  if (u) {
    const thoughts = asNumber(u.thoughtsTokenCount) ?? 0;
    const candidates = asNumber(u.candidatesTokenCount);
    const cached = asNumber(u.cachedContentTokenCount) ?? 0;
    sb.usage({
      inputTokens: asNumber(u.promptTokenCount),
      outputTokens: candidates === null ? null : candidates + thoughts,
      reasoningTokens: thoughts,
      ...(cached > 0 ? { cacheReadTokens: cached } : {}),
    });
  }
}

/**
 * A call's result: `toolCallResult.status` is `error` for a failed or denied call (`errorType`
 * says which), and a shell command's exit code is in `resultDisplay.exitCode`. A call the user
 * cancelled is their interrupt.
 */
function readResult(sb: SessionBuilder, record: Rec, parts: Rec[]): void {
  const result = isRec(record.toolCallResult) ? record.toolCallResult : {};
  const display = isRec(result.resultDisplay) ? result.resultDisplay : {};
  const exit = asNumber(display.exitCode);
  for (const part of parts) {
    if (!isRec(part.functionResponse)) continue;
    const response = part.functionResponse.response;
    const content = isRec(response) ? (response.output ?? response.error ?? response) : (response ?? '');
    const failed = result.status === 'error' || result.status === 'cancelled' || (exit !== null && exit !== 0);
    sb.answer(asString(part.functionResponse.id) ?? asString(result.callId), answerOf(content, failed));
  }
  if (result.status === 'cancelled') sb.interrupt(null);
}

/** Telemetry records: the one that matters is Qwen's own loop guard halting the run. */
function readSystem(sb: SessionBuilder, record: Rec, line: number | null): void {
  const payload = isRec(record.systemPayload) ? record.systemPayload : {};
  const event = isRec(payload.uiEvent) ? asString(payload.uiEvent['event.name']) : null;
  if (event !== null && event.endsWith('loop_detected')) sb.agentHalt(line, 'qwen loop detection');
}
