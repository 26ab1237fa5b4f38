// Factory's Droid: `~/.factory/sessions/<cwd>/<session>.jsonl`, a `session_start` record {id,
// title, cwd, parent} and then `message` records whose `message` is Anthropic-shaped (`text`,
// `thinking`, `tool_use` blocks from the assistant; `tool_result` blocks with `is_error` from the
// user). Droid adds user messages of its own (the tool list, its repeated-call reminder): no turn.
// Usage is kept only as the session's totals in `<session>.settings.json` beside it (not read).

import type { SessionBuilder } from '../model/builder.js';
import { answerOf } from './shared/messages.js';
import { asString, isRec, type Rec } from './shared/text.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const droidAdapter: FormatAdapter = {
  name: 'droid',
  description: 'Droid sessions (~/.factory/sessions/<cwd>/*.jsonl): a session_start record, message records with tool_use/tool_result blocks (is_error)',
  detection: 'a {type:"session_start", id, owner} record, or {type:"message", id, message} records with tool_use or tool_result blocks',
  detect: detectDroid,
  open: (ctx) => new DroidParser(ctx),
};

function detectDroid(probe: Probe): number {
  if (probe.mode !== 'jsonl') return 0;
  let messages = 0;
  for (const r of probe.records) {
    if (!isRec(r)) continue;
    if (r.type === 'session_start' && typeof r.id === 'string' && typeof r.owner === 'string') return 1;
    if (r.type !== 'message' || typeof r.id !== 'string' || !isRec(r.message) || !Array.isArray(r.message.content)) continue;
    if (r.message.content.some((b) => isRec(b) && (b.type === 'tool_use' || b.type === 'tool_result'))) messages += 1;
  }
  return messages > 0 ? 0.9 : 0;
}

class DroidParser implements RecordParser {
  private sb: SessionBuilder | null = null;

  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    if (!isRec(value) || typeof value.type !== 'string') {
      this.ctx.skip(line, 'not a Droid record ({type})');
      return;
    }
    if (value.type === 'session_start' && this.sb === null) {
      this.sb = this.ctx.builder.session(asString(value.id) ?? this.ctx.path, { parent: asString(value.parent), project: asString(value.cwd) });
      return;
    }
    const message = value.type === 'message' && isRec(value.message) ? value.message : null;
    if (message === null) {
      this.ctx.ignore?.(value.type);
      return;
    }
    const sb = (this.sb ??= this.ctx.builder.session(this.ctx.path));
    sb.at(asString(value.timestamp));
    const blocks = Array.isArray(message.content) ? message.content.filter(isRec) : [];
    if (message.role === 'assistant') readAssistant(sb, value, message, blocks, line);
    else if (message.role === 'user') this.readUser(sb, value, message, blocks, line);
  }

  private readUser(sb: SessionBuilder, record: Rec, message: Rec, blocks: Rec[], line: number | null): void {
    let results = 0;
    for (const b of blocks) {
      if (b.type !== 'tool_result') continue;
      results += 1;
      // Droid sets is_error itself for a failed call (a shell command's non-zero exit among them).
      sb.answer(asString(b.tool_use_id), answerOf(b.content ?? '', b.is_error === true));
    }
    if (results > 0) return;
    if (isDroidsOwn(record, message, blocks)) this.ctx.ignore?.('system reminder');
    else sb.userTurn(line);
  }

  end(): void {}
}

/**
 * User messages Droid writes itself: the tool list before the prompt (id `context-…`) and its
 * reminders (`<system-reminder>`, "You repeated identical tool calls 3 times", seen by the model only), its hook runs.
 */
function isDroidsOwn(record: Rec, message: Rec, blocks: Rec[]): boolean {
  const id = asString(record.id) ?? '';
  if (id.startsWith('context-') || id.startsWith('__internal__') || message.visibility === 'llm_only') return true;
  // Droid's record of one hook run (`hookEventName`, `hookResults`, no content): no prompt of the user.
  if (typeof message.hookEventName === 'string') return true;
  const texts = blocks.filter((b) => b.type === 'text').map((b) => asString(b.text) ?? '');
  return texts.length > 0 && texts.every((t) => t.trimStart().startsWith('<system-reminder>'));
}

function readAssistant(sb: SessionBuilder, record: Rec, message: Rec, blocks: Rec[], line: number | null): void {
  sb.round({ line, model: asString(message.modelId), timestamp: asString(record.timestamp) });
  for (const b of blocks) {
    if (b.type === 'text' && typeof b.text === 'string') sb.text(b.text);
    else if (b.type === 'thinking' || b.type === 'redacted_thinking') {
      const text = asString(b.thinking);
      sb.thinking(text ? { text, opaque: false } : { text: null, opaque: true });
    } else if (b.type === 'tool_use') sb.call({ id: asString(b.id), name: asString(b.name) ?? 'unknown', arguments: b.input ?? null });
  }
}
