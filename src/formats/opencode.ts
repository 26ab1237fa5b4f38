// OpenCode (and Kilo, which keeps OpenCode's store): a session as `opencode export <id>` writes it,
// `{info, messages: [{info, parts}]}`, one per JSONL line, one document or an array of them. The store
// (`opencode.db`, `kilo.db`) is read into the same records by opencode-db.ts. Each step of an
// assistant message (`step-start` … `step-finish`) is one model request, so one round.

import type { SessionBuilder } from '../model/builder.js';
import { asNumber, asString, isRec, type Rec } from './shared/text.js';
import { answerOf } from './shared/messages.js';
import { usageWithCache } from './shared/usage.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const opencodeAdapter: FormatAdapter = {
  name: 'opencode',
  description: 'OpenCode and Kilo sessions: the SQLite store (opencode.db, kilo.db: session, message, part) or `opencode export` JSON; each step is a round',
  detection: 'a SQLite database with OpenCode\'s session, message and part tables; or {info: {id: "ses_…"}, messages: [{info, parts}]}',
  detect: detectOpencode,
  open: (ctx) => new OpencodeParser(ctx),
};

function isSession(value: unknown): value is Rec & { info: Rec; messages: unknown[] } {
  return isRec(value) && isRec(value.info) && typeof value.info.id === 'string' && Array.isArray(value.messages);
}

function detectOpencode(probe: Probe): number {
  const records = probe.mode === 'document' ? (Array.isArray(probe.value) ? probe.value : [probe.value]) : probe.records;
  const first = records[0];
  if (!isSession(first)) return 0;
  const messages = first.messages.filter((m) => isRec(m) && isRec(m.info) && Array.isArray(m.parts));
  return (first.info.id as string).startsWith('ses_') && messages.length === first.messages.length ? 0.95 : 0;
}

/** The agents that write this format: Kilo's records say so, OpenCode's exports do not need to. */
const AGENTS = new Set(['opencode', 'kilo']);

class OpencodeParser implements RecordParser {
  /** The sessions read: an array that gathers the same export twice holds one session, read once. */
  private readonly read = new Set<string>();

  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    // Several exports gathered in one JSON array.
    if (Array.isArray(value)) {
      for (const item of value) this.push(item, line);
      return;
    }
    if (!isSession(value)) {
      this.ctx.skip(line, 'not an OpenCode session ({info, messages})');
      return;
    }
    const info = value.info;
    if (this.read.has(info.id as string)) {
      this.ctx.skip(line, `OpenCode session ${info.id as string} again: read from its first copy`);
      return;
    }
    this.read.add(info.id as string);
    const agent = typeof value.agent === 'string' && AGENTS.has(value.agent) ? value.agent : 'opencode';
    const sb = this.ctx.builder.session(info.id as string, {
      parent: asString(info.parentID),
      project: asString(info.directory),
      agent,
    });
    let cost = 0;
    for (const message of value.messages) {
      if (!isRec(message) || !isRec(message.info) || !Array.isArray(message.parts)) continue;
      if (message.info.role === 'user') sb.userTurn(line);
      else if (message.info.role === 'assistant') cost += readAssistant(sb, message.info, message.parts, line);
    }
    if (cost > 0) sb.recordedCost({ usd: cost, source: 'message.cost' });
    this.ctx.builder.endSession(info.id as string);
  }

  end(): void {}
}

/** One assistant message: its steps as rounds. Returns the cost it recorded. */
function readAssistant(sb: SessionBuilder, info: Rec, parts: unknown[], line: number | null): number {
  const model = asString(info.modelID);
  const created = isRec(info.time) ? asNumber(info.time.created) : null;
  const timestamp = created !== null ? new Date(created).toISOString() : null;
  let open = false;
  const start = () => {
    sb.round({ line, model, timestamp });
    open = true;
  };
  for (const part of parts) {
    if (!isRec(part)) continue;
    switch (part.type) {
      case 'step-start':
        start();
        break;
      case 'text':
        if (!open) start();
        if (typeof part.text === 'string' && part.synthetic !== true) sb.text(part.text);
        break;
      case 'reasoning':
        if (!open) start();
        sb.thinking(typeof part.text === 'string' && part.text !== '' ? { text: part.text, opaque: false } : { text: null, opaque: true });
        break;
      case 'tool':
        if (!open) start();
        readTool(sb, part);
        break;
      case 'step-finish':
        if (!open) start();
        sb.usage(usageOf(part.tokens));
        // The next step is the next request, even when its step-start is missing.
        sb.flush();
        open = false;
        break;
    }
  }
  // The user's Esc: OpenCode ends the message with MessageAbortedError.
  if (isRec(info.error) && info.error.name === 'MessageAbortedError') sb.interrupt(line);
  return asNumber(info.cost) ?? 0;
}

/**
 * A tool part: the call, and its answer once settled. A shell command that ran is `completed`
 * whatever its exit code: `metadata.exit` says whether it failed. `error` is a call refused or
 * thrown (a plugin's veto, a bad argument); pending and running calls have no answer yet.
 */
function readTool(sb: SessionBuilder, part: Rec): void {
  const state = isRec(part.state) ? part.state : {};
  const id = asString(part.callID);
  sb.call({ id, name: asString(part.tool) ?? 'unknown', arguments: state.input ?? null });
  if (state.status === 'completed') {
    const exit = isRec(state.metadata) ? asNumber(state.metadata.exit) : null;
    sb.answer(id, answerOf(state.output ?? '', exit !== null && exit !== 0));
  } else if (state.status === 'error') {
    sb.answer(id, answerOf(state.error ?? '', true));
    if (typeof state.error === 'string' && /aborted/i.test(state.error)) sb.interrupt(null);
  }
}

/** OpenCode's `input` leaves out the cached part of the prompt, and `output` the reasoning. */
function usageOf(tokens: unknown) {
  if (!isRec(tokens)) return {};
  const cache = isRec(tokens.cache) ? tokens.cache : {};
  const read = asNumber(cache.read) ?? 0;
  const write = asNumber(cache.write) ?? 0;
  const input = asNumber(tokens.input);
  const output = asNumber(tokens.output);
  const reasoning = asNumber(tokens.reasoning);
  return usageWithCache(input, output === null ? null : output + (reasoning ?? 0), reasoning, read, write);
}
