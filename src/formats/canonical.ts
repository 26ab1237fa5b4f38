// loopledger's own JSONL (docs/canonical-format.md): one record per line, shaped like the
// transcript model, so any other log converts to it with a few lines of jq.

import type { SessionBuilder } from '../model/builder.js';
import type { ThinkingBlock, Usage } from '../model/transcript.js';
import { answerOf, fileStem, isRec, asNumber, asString, timestampOf, type Rec } from './shared/messages.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const CANONICAL_SCHEMA = 'loopledger-canonical/1';

export const canonicalAdapter: FormatAdapter = {
  name: 'canonical',
  description: "loopledger's canonical JSONL (docs/canonical-format.md): session / user / assistant / tool_result records",
  detection: `a {"type":"session","schema":"${CANONICAL_SCHEMA}"} header (certain), or records typed user/assistant/tool_result with canonical fields`,
  detect: detectCanonical,
  open: (ctx) => new CanonicalParser(ctx),
};

const TYPES = new Set(['session', 'user', 'assistant', 'tool_result']);
// Keys of other formats' records that share `type: user|assistant` (Claude Code, Codex, Gemini).
const FOREIGN_KEYS = ['message', 'uuid', 'sessionId', 'payload', 'role', 'parentUuid', 'toolCalls'];

function detectCanonical(probe: Probe): number {
  if (probe.mode === 'document') return 0;
  const isHeader = (r: unknown) =>
    isRec(r) && r.type === 'session' && typeof r.schema === 'string' && r.schema.startsWith('loopledger-canonical/');
  if (probe.records.some(isHeader)) return 1;
  let canonical = 0;
  for (const r of probe.records) {
    if (!isRec(r) || typeof r.type !== 'string') continue;
    if (!TYPES.has(r.type)) return 0;
    if (FOREIGN_KEYS.some((k) => k in r)) return 0;
    if (!looksCanonical(r)) return 0;
    canonical += 1;
  }
  return canonical > 0 ? 0.7 : 0;
}

function looksCanonical(r: Rec): boolean {
  switch (r.type) {
    case 'session':
      return 'id' in r || 'model' in r || 'parent' in r;
    case 'user':
      return typeof r.text === 'string' && !('content' in r);
    case 'assistant':
      return 'text' in r || Array.isArray(r.tool_calls) || Array.isArray(r.thinking);
    case 'tool_result':
      return 'id' in r && 'content' in r;
    default:
      return false;
  }
}

class CanonicalParser implements RecordParser {
  private readonly base: string;
  private session: SessionBuilder | null = null;
  private sessionKey: string | null = null;
  private model: string | null = null;
  private headers = 0;

  constructor(private readonly ctx: AdapterContext) {
    this.base = fileStem(ctx.path);
  }

  push(value: unknown, line: number | null): void {
    if (value === null) return;
    if (!isRec(value)) return this.ctx.skip(line, 'not a canonical record (expected an object)');
    switch (value.type) {
      case 'session':
        return this.header(value);
      case 'user':
        if (value.meta === true) return; // injected context, not a turn
        this.current().userTurn(line);
        return;
      case 'assistant':
        return this.assistant(value, line);
      case 'tool_result': {
        const id = asString(value.id);
        this.current().answer(id, answerOf(value.content ?? '', value.is_error === true));
        return;
      }
      default:
        // Unknown record types are left for later versions of the format.
        return;
    }
  }

  /** A header ends the previous session: sessions in one file are contiguous. */
  private header(h: Rec): void {
    if (this.sessionKey !== null) this.ctx.builder.endSession(this.sessionKey);
    this.headers += 1;
    this.sessionKey = `session:${this.headers}`;
    this.model = asString(h.model);
    this.session = this.ctx.builder.session(this.sessionKey, {
      // An empty id names nothing: it falls back like a missing one.
      id: asString(h.id) || (this.headers === 1 ? this.base : `${this.base}#${this.headers}`),
      parent: asString(h.parent) || null,
    });
  }

  private current(): SessionBuilder {
    if (!this.session) {
      this.sessionKey = 'file';
      this.session = this.ctx.builder.session('file', { id: this.base });
    }
    return this.session;
  }

  private assistant(r: Rec, line: number | null): void {
    const sb = this.current();
    sb.round({ line, model: asString(r.model) ?? this.model, timestamp: timestampOf(r.timestamp) });
    for (const t of Array.isArray(r.thinking) ? r.thinking : typeof r.thinking === 'string' ? [r.thinking] : []) {
      const block = thinkingBlock(t);
      if (block) sb.thinking(block);
    }
    if (typeof r.text === 'string') sb.text(r.text);
    if (Array.isArray(r.tool_calls)) {
      for (const c of r.tool_calls) {
        if (!isRec(c)) continue;
        // Arguments are taken exactly as written: a string stays a string (see the doc).
        sb.call({ id: asString(c.id), name: asString(c.name) ?? 'unknown', arguments: c.arguments ?? null });
      }
    }
    if (isRec(r.usage)) sb.usage(canonicalUsage(r.usage));
  }

  end(): void {}
}

/** `usage`: `input` is the whole prompt; `cache_read`, `cache_write` (and of those `cache_write_1h`) are parts of it. */
function canonicalUsage(raw: Rec): Partial<Usage> {
  const input = asNumber(raw.input);
  const usage: Partial<Usage> = { inputTokens: input, outputTokens: asNumber(raw.output), reasoningTokens: asNumber(raw.reasoning) };
  if (input === null) return usage;
  const read = asNumber(raw.cache_read);
  const write = asNumber(raw.cache_write);
  const write1h = asNumber(raw.cache_write_1h);
  if (read !== null) usage.cacheReadTokens = Math.min(read, input);
  if (write !== null) usage.cacheWriteTokens = Math.min(write, input - (usage.cacheReadTokens ?? 0));
  if (write1h !== null && usage.cacheWriteTokens !== undefined) usage.cacheWrite1hTokens = Math.min(write1h, usage.cacheWriteTokens);
  return usage;
}

function thinkingBlock(t: unknown): ThinkingBlock | null {
  if (typeof t === 'string') return { text: t, opaque: false };
  if (!isRec(t)) return null;
  if (t.opaque === true || typeof t.text !== 'string') return { text: null, opaque: true };
  return { text: t.text, opaque: false };
}
