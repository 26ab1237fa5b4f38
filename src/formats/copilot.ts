// GitHub Copilot CLI sessions: `~/.copilot/session-state/<session id>/events.jsonl`, one event per
// line in the envelope {type, data, id, timestamp, parentId}. One `assistant.message` is one model
// response (its `toolRequests` the batch); `tool.execution_complete` answers a call by id. Its
// `success` is true for a shell command that exited non-zero: the exit code says the failure.

import type { SessionBuilder } from '../model/builder.js';
import { answerOf } from './shared/messages.js';
import { asNumber, asString, isRec, type Rec } from './shared/text.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const copilotAdapter: FormatAdapter = {
  name: 'copilot',
  description: 'GitHub Copilot CLI session events (session-state/<id>/events.jsonl): assistant.message rounds, tool.execution_complete answers, exit codes as failures',
  detection: '{type, data, id, timestamp} events of types session.start (producer copilot-agent), assistant.*, tool.execution_*',
  detect: detectCopilot,
  open: (ctx) => new CopilotParser(ctx),
};

const COPILOT_TYPES = /^(session\.start|user\.message|assistant\.(message|turn_start|turn_end)|tool\.execution_(start|complete))$/;

function detectCopilot(probe: Probe): number {
  if (probe.mode !== 'jsonl') return 0;
  let hits = 0;
  for (const r of probe.records) {
    if (!isRec(r) || typeof r.type !== 'string' || !isRec(r.data) || typeof r.id !== 'string') continue;
    if (r.type === 'session.start' && r.data.producer === 'copilot-agent') return 1;
    if (COPILOT_TYPES.test(r.type)) hits += 1;
  }
  return hits >= 2 ? 0.9 : 0;
}

class CopilotParser implements RecordParser {
  private sessionId: string | null = null;
  private project: string | null = null;
  /** The usage of the request whose message comes next (Copilot writes it just before). */
  private usage: Rec | null = null;

  constructor(private readonly ctx: AdapterContext) {}

  /** The session, or a sub-agent's (events carrying the `parentToolCallId` that started it). */
  private session(data: Rec): SessionBuilder {
    this.sessionId ??= sessionFromPath(this.ctx.path) ?? 'copilot';
    const parentCall = asString(data.parentToolCallId);
    if (parentCall === null) return this.ctx.builder.session(this.sessionId, { project: this.project });
    const child = `${this.sessionId}/${parentCall}`;
    return this.ctx.builder.session(child, { parent: this.sessionId, project: this.project });
  }

  push(value: unknown, line: number | null): void {
    if (!isRec(value) || typeof value.type !== 'string' || !isRec(value.data)) {
      this.ctx.skip(line, 'not a Copilot CLI event ({type, data})');
      return;
    }
    const data = value.data;
    switch (value.type) {
      case 'session.start':
      case 'session.resume':
        this.sessionId ??= asString(data.sessionId);
        this.project ??= isRec(data.context) ? asString(data.context.cwd) : null;
        this.session(data);
        return;
      case 'user.message':
        this.session(data).userTurn(line);
        return;
      case 'session.usage_record':
        this.usage = isRec(data.usage) ? data.usage : null;
        return;
      case 'assistant.reasoning': {
        const text = asString(data.content);
        this.session(data).thinking(text ? { text, opaque: false } : { text: null, opaque: true });
        return;
      }
      case 'assistant.message':
        this.message(this.session(data), data, value.timestamp, line);
        return;
      case 'tool.execution_complete':
        this.session(data).answer(asString(data.toolCallId), answer(data));
        return;
      case 'abort':
        // The user stopped the run (Esc): the round under way, or the last one.
        this.session(data).interrupt(line);
        return;
      default:
        this.ctx.ignore?.(value.type);
    }
  }

  private message(sb: SessionBuilder, data: Rec, timestamp: unknown, line: number | null): void {
    sb.round({ line, model: asString(data.model), timestamp: asString(timestamp) });
    const text = asString(data.content);
    if (text) sb.text(text);
    const reasoning = asString(data.reasoningText);
    if (reasoning) sb.thinking({ text: reasoning, opaque: false });
    for (const call of Array.isArray(data.toolRequests) ? data.toolRequests : []) {
      if (!isRec(call)) continue;
      sb.call({ id: asString(call.toolCallId), name: asString(call.name) ?? 'unknown', arguments: call.arguments ?? null });
    }
    const u = this.usage;
    this.usage = null;
    if (u) {
      const read = asNumber(u.cacheReadTokens) ?? 0;
      const write = asNumber(u.cacheWriteTokens) ?? 0;
      sb.usage({
        inputTokens: asNumber(u.inputTokens),
        outputTokens: asNumber(u.outputTokens),
        reasoningTokens: asNumber(u.reasoningTokens),
        ...(read > 0 ? { cacheReadTokens: read } : {}),
        ...(write > 0 ? { cacheWriteTokens: write } : {}),
      });
    }
  }

  end(): void {}
}

/**
 * A call's answer. `success: false` is a call that did not run or failed as a tool (a hook's
 * denial, a bad argument); a shell command that ran is `success: true` whatever it exited with,
 * so its exit code (`shellExecution.exitCode`) decides.
 */
function answer(data: Rec) {
  const result = isRec(data.result) ? data.result : {};
  const error = isRec(data.error) ? data.error : null;
  const exit = isRec(data.shellExecution) ? asNumber(data.shellExecution.exitCode) : null;
  const failed = data.success === false || (exit !== null && exit !== 0);
  const content = typeof result.content === 'string' ? result.content.replace(HOOK_GUIDANCE, '').replace(SHELL_TRAILER, '') : (result.content ?? (error ? error.message : '') ?? '');
  return answerOf(content, failed);
}

/**
 * `<shellId: 2 completed with exit code 1>`: Copilot's own bookkeeping after a command's output,
 * numbered per shell, so the same failing command would never answer the same twice. The exit
 * code is read from `shellExecution`; the output is what the command printed.
 */
const SHELL_TRAILER = /\n?<shellId: \d+ completed with exit code -?\d+>\s*$/;

/**
 * What a postToolUse hook's `additionalContext` adds to the result Copilot stores (seen on 1.0.102:
 * `\n\nTool "bash" succeeded. Additional guidance from postToolUse hooks:\n<context>`): the guard's
 * reminder, not the tool's answer, read as the live guard read that answer on stdin, before it.
 */
const HOOK_GUIDANCE = /\n\nTool "[^"\n]*" [^\n]*Additional guidance from postToolUse hooks:\n[\s\S]*$/;

/** `…/session-state/<session id>/events.jsonl`: the folder names the session. */
function sessionFromPath(path: string): string | null {
  const m = /[\\/]([^\\/]+)[\\/]events\.jsonl$/i.exec(path);
  return m ? m[1]! : null;
}
