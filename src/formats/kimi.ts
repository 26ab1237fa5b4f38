// Kimi CLI (MoonshotAI/kimi-cli): the context file it replays a session from, one JSON message a
// line. 0.42 keeps `~/.kimi/sessions/<md5 of the work dir>/<session>.jsonl`, its ReadContext
// sub-agents beside it as `<session>_read_<n>.jsonl`; 1.49 keeps `<session>/context.jsonl`, its
// sub-agents in `<session>/subagents/<agent>/context.jsonl`, and adds a `_system_prompt` line.
// Bookkeeping lines (`_checkpoint`, `_usage`, `_system_prompt`) carry no conversation.

import type { SessionBuilder } from '../model/builder.js';
import type { ToolAnswer } from '../model/transcript.js';
import { chatToolCalls, contentText } from './shared/messages.js';
import { asString, isRec, type Rec } from './shared/text.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const kimiAdapter: FormatAdapter = {
  name: 'kimi',
  description: 'Kimi CLI context files (~/.kimi/sessions/<work dir md5>/<session>.jsonl, or <session>/context.jsonl): role lines with tool_calls, tool answers opened by <system>…</system>',
  detection: 'a {role:"_checkpoint", id} / {role:"_usage", token_count} / {role:"_system_prompt"} line, or a role:"tool" line whose content opens with <system>',
  detect: detectKimi,
  open: (ctx) => new KimiParser(ctx),
};

const BOOKKEEPING = new Set(['_checkpoint', '_usage', '_system_prompt']);

function detectKimi(probe: Probe): number {
  if (probe.mode !== 'jsonl') return 0;
  let toolAnswers = 0;
  for (const r of probe.records) {
    if (!isRec(r)) continue;
    if ((r.role === '_checkpoint' && typeof r.id === 'number') || (r.role === '_usage' && typeof r.token_count === 'number')) return 1;
    if (r.role === '_system_prompt' && typeof r.content === 'string') return 1;
    if (r.role === 'tool' && typeof r.tool_call_id === 'string' && firstText(r.content).startsWith('<system>')) toolAnswers += 1;
  }
  return toolAnswers > 0 ? 0.9 : 0;
}

/** The session a file holds, and the session it was started by when it is a sub-agent's. */
function kimiSessionOf(path: string): { id: string; parent: string | null } {
  const parts = path.split(/[\\/]/);
  const name = parts.at(-1) ?? path;
  const context = /^context(_\d+)?\.jsonl$/i.exec(name);
  if (context) {
    // 1.49: <session>/context.jsonl, or <session>/subagents/<agent>/context.jsonl. `/clear` and
    // compaction move the earlier context aside as context_<n>.jsonl: read as a session of its own.
    const dir = parts.at(-2) ?? path;
    const suffix = context[1] ? `:context${context[1]}` : '';
    if (parts.at(-3) === 'subagents' && parts.length >= 4) {
      const parent = parts.at(-4)!;
      return { id: `${parent}/${dir}${suffix}`, parent };
    }
    return { id: `${dir}${suffix}`, parent: null };
  }
  const stem = name.replace(/\.jsonl$/i, '');
  const sub = /^(.+)_read_\d+$/.exec(stem);
  return { id: stem, parent: sub ? sub[1]! : null };
}

class KimiParser implements RecordParser {
  private sb: SessionBuilder | null = null;

  constructor(private readonly ctx: AdapterContext) {}

  private session(): SessionBuilder {
    if (this.sb === null) {
      const { id, parent } = kimiSessionOf(this.ctx.path);
      this.sb = this.ctx.builder.session(id, { parent });
    }
    return this.sb;
  }

  push(value: unknown, line: number | null): void {
    if (!isRec(value) || typeof value.role !== 'string') {
      this.ctx.skip(line, 'not a Kimi CLI context line ({role})');
      return;
    }
    const role = value.role;
    // `_usage.token_count` is the context's size (the request's input, then input plus output),
    // not one response's usage: it is not read as usage.
    if (BOOKKEEPING.has(role)) {
      this.ctx.ignore?.(role);
      return;
    }
    const sb = this.session();
    if (role === 'assistant') readAssistant(sb, value, line);
    else if (role === 'tool') sb.answer(asString(value.tool_call_id), kimiAnswer(value.content));
    else if (role === 'user') {
      if (isKimisOwn(value.content)) this.ctx.ignore?.('system message');
      else sb.userTurn(line);
    } else this.ctx.ignore?.(role);
  }

  end(): void {}
}

function readAssistant(sb: SessionBuilder, message: Rec, line: number | null): void {
  sb.round({ line });
  const content = message.content;
  if (typeof content === 'string' && content !== '') sb.text(content);
  for (const part of Array.isArray(content) ? content.filter(isRec) : []) {
    if (part.type === 'text' && typeof part.text === 'string') sb.text(part.text);
    else if (part.type === 'think') {
      const text = asString(part.think);
      sb.thinking(text ? { text, opaque: false } : { text: null, opaque: true });
    }
  }
  for (const call of chatToolCalls(message.tool_calls)) sb.call(call);
}

/**
 * A tool's answer. Kimi opens it with its own `<system>…</system>` note: from 0.43 (commit
 * cc9121d5) a failed call's note reads `ERROR: <message>`. The 0.42 runs kept its message bare, so
 * there only the shell tool's own failure notes can be told from a success.
 */
function kimiAnswer(content: unknown): ToolAnswer {
  const note = /^<system>([\s\S]*?)<\/system>/.exec(firstText(content))?.[1] ?? '';
  const isError = note.startsWith('ERROR:') || /^Command (failed with exit code: -?\d+|killed by timeout)/.test(note);
  return { content: contentText(content), isError };
}

function firstText(content: unknown): string {
  if (typeof content === 'string') return content;
  const first = Array.isArray(content) ? content[0] : undefined;
  return isRec(first) && typeof first.text === 'string' ? first.text : '';
}

/**
 * User lines Kimi writes itself: a D-Mail from the model's "future self" (one `<system>` part), and
 * the non-text parts of a tool's answer (images) sent on as a user message. Neither is a prompt.
 */
function isKimisOwn(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  const parts = content.filter(isRec);
  const texts = parts.filter((p) => p.type === 'text').map((p) => asString(p.text) ?? '');
  if (texts.length === 0) return parts.length > 0;
  return texts.every((t) => t.trimStart().startsWith('<system>'));
}
