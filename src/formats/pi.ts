// pi (@mariozechner/pi-coding-agent): `~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`, a
// `session` header {version, id, cwd} and then a tree of entries (`id`, `parentId`): `message`
// entries carry user, assistant (`text`, `thinking`, `toolCall` blocks, usage with its cost) and
// `toolResult` messages (`isError`). The session read is the branch taken, the path from the last
// entry back to the root, as pi itself resumes it; abandoned branches are counted, not read.

import type { SessionBuilder } from '../model/builder.js';
import { EntryTree } from './shared/entry-tree.js';
import { answerOf } from './shared/messages.js';
import { usageWithCache } from './shared/usage.js';
import { asNumber, asString, isRec, type Rec } from './shared/text.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const piAdapter: FormatAdapter = {
  name: 'pi',
  description: 'pi sessions (~/.pi/agent/sessions/--<cwd>--/*.jsonl): a tree of entries, toolCall blocks, toolResult messages with isError; the branch taken is read',
  detection: 'a {type:"session", version, id, cwd} header, or entries {type, id, parentId} whose message has role toolResult or toolCall blocks',
  detect: detectPi,
  open: (ctx) => new PiParser(ctx),
};

function detectPi(probe: Probe): number {
  if (probe.mode !== 'jsonl') return 0;
  let entries = 0;
  for (const r of probe.records) {
    if (!isRec(r)) continue;
    if (r.type === 'session' && typeof r.id === 'string' && typeof r.cwd === 'string' && typeof r.version === 'number') return 1;
    if (r.type !== 'message' || typeof r.id !== 'string' || !('parentId' in r) || !isRec(r.message)) continue;
    const m = r.message;
    if (m.role === 'toolResult' || (m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => isRec(b) && b.type === 'toolCall'))) entries += 1;
  }
  return entries > 0 ? 0.9 : 0;
}

class PiParser implements RecordParser {
  private readonly session = new PiSession();

  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    if (!this.session.add(value, line)) this.ctx.skip(line, 'not a pi entry ({type, id, parentId})');
  }

  end(): void {
    this.session.read(this.ctx);
  }
}

/** One session's records as they come (OpenClaw keeps the same ones in its SQLite store): its header and its tree. */
export class PiSession {
  private header: Rec | null = null;
  private readonly tree = new EntryTree<Rec>();

  /** False for a value that is no pi record. */
  add(value: unknown, line: number | null): boolean {
    if (!isRec(value) || typeof value.type !== 'string') return false;
    if (value.type === 'session') this.header ??= value;
    else this.tree.add(asString(value.id), asString(value.parentId), value, line);
    return true;
  }

  /** The branch taken, as one session (none when nothing was added). */
  read(ctx: AdapterContext): void {
    const { taken, abandoned } = this.tree.split();
    if (taken.length === 0 && this.header === null) return;
    const id = asString(this.header?.id) ?? ctx.path;
    const sb = ctx.builder.session(id, { project: asString(this.header?.cwd) });
    let cost = 0;
    for (const { value, line } of taken) {
      const message = value.type === 'message' && isRec(value.message) ? value.message : null;
      if (message === null) ctx.ignore?.(value.type as string);
      else if (message.role === 'user') sb.userTurn(line);
      else if (message.role === 'assistant') cost += readAssistant(sb, value, message, line);
      else if (message.role === 'toolResult') readResult(sb, message);
      // The user's own `!command`, extension messages, summaries: no model response.
      else ctx.ignore?.(`message.${asString(message.role) ?? 'other'}`);
    }
    if (cost > 0) sb.recordedCost({ usd: cost, source: 'message.usage.cost.total' });
    for (let i = 0; i < abandoned.length; i++) ctx.ignore?.('abandoned branch');
    ctx.builder.endSession(id);
  }
}

/** One model response as a round. Returns the cost pi priced it at (0 when it did not). */
function readAssistant(sb: SessionBuilder, entry: Rec, message: Rec, line: number | null): number {
  sb.round({ line, model: asString(message.model), timestamp: asString(entry.timestamp) });
  for (const block of Array.isArray(message.content) ? message.content.filter(isRec) : []) {
    if (block.type === 'text' && typeof block.text === 'string') sb.text(block.text);
    else if (block.type === 'thinking') {
      const text = asString(block.thinking);
      sb.thinking(block.redacted === true || !text ? { text: null, opaque: true } : { text, opaque: false });
    } else if (block.type === 'toolCall') {
      sb.call({ id: asString(block.id), name: asString(block.name) ?? 'unknown', arguments: block.arguments ?? null });
    }
  }
  const usage = isRec(message.usage) ? message.usage : null;
  // pi counts `input` without the cached part, whatever the provider (pi-ai's usage).
  if (usage) sb.usage(usageWithCache(asNumber(usage.input), asNumber(usage.output), null, asNumber(usage.cacheRead) ?? 0, asNumber(usage.cacheWrite) ?? 0));
  // Esc in pi aborts the response being streamed: the user's interrupt.
  if (message.stopReason === 'aborted') sb.interrupt(line);
  return usage && isRec(usage.cost) ? (asNumber(usage.cost.total) ?? 0) : 0;
}

/**
 * pi marks a failed call itself (`isError`: a non-zero exit, a tool error or a call the user
 * aborted); OpenClaw's `exec` leaves `isError` false for a non-zero exit and keeps it in `details.exitCode`.
 */
function readResult(sb: SessionBuilder, message: Rec): void {
  const exit = isRec(message.details) ? asNumber(message.details.exitCode) : null;
  sb.answer(asString(message.toolCallId), answerOf(message.content ?? '', message.isError === true || (exit !== null && exit !== 0)));
}
