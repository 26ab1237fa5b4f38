// Gemini CLI sessions: the legacy single-JSON chat recording, the newer append-only JSONL
// recording, and `/chat save` checkpoints (a list of Gemini API `Content` objects).
//
// The JSONL recording is an upsert log: Gemini CLI appends a message again, in full, each time its
// tool calls, results or token counts change, and the last copy of an id wins. It only ever
// rewrites the newest message (its writer updates "the last message"), so this adapter holds
// exactly one message back and releases it when a record with another id arrives or the file
// ends. That keeps the adapter streaming, with one message of look-ahead, and gives the same
// result as reading the whole file, for every file Gemini CLI writes. A copy of an id that was
// already released (which Gemini CLI does not produce) is ignored: the round stands as released.
//
// `$set` records patch session metadata. A `$set` carrying `messages` replaces the model's context
// (compression, masking of old tool output); it rewrites what the model will see next, not what
// it did, so the audit keeps the rounds as they happened and ignores it. `$rewindTo` likewise
// does not undo rounds that were already produced and paid for.

import path from 'node:path';
import type { SessionBuilder } from '../model/builder.js';
import type { ToolAnswer, Usage } from '../model/transcript.js';
import { fileStem, contentText, isRec, asNumber, stringifySafe, asString, timestampOf, type Rec } from './shared/messages.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';
import { normaliseGeminiOutput } from './shared/gemini-output.js';

export const geminiAdapter: FormatAdapter = {
  name: 'gemini',
  description: 'Gemini CLI sessions: legacy JSON (messages[]), JSONL with $set updates, and /chat save checkpoints',
  detection: 'a sessionId+projectHash metadata record, "$set"/"$rewindTo" records, messages typed "gemini", or a list of {role: user|model, parts}',
  detect: detectGemini,
  open: (ctx) => new GeminiParser(ctx),
};

const MESSAGE_TYPES = new Set(['user', 'gemini', 'model', 'info', 'error', 'warning']);

function detectGemini(probe: Probe): number {
  if (probe.mode === 'document') return detectValue(probe.value);
  let best = 0;
  for (const record of probe.records) {
    let score = detectValue(record);
    if (isRec(record)) {
      if (isMetadata(record)) score = Math.max(score, 0.95);
      else if (isRec(record.$set) || typeof record.$rewindTo === 'string') score = Math.max(score, 0.9);
      else if (isMessageRecord(record) && record.type === 'gemini') score = Math.max(score, 0.9);
    }
    best = Math.max(best, score);
  }
  return best;
}

function detectValue(value: unknown): number {
  if (isRec(value) && Array.isArray(value.messages)) {
    const typed = value.messages.slice(0, 50).filter((m) => isRec(m) && typeof m.type === 'string' && MESSAGE_TYPES.has(m.type));
    if (typed.length === 0) return 0;
    if (typeof value.sessionId === 'string' || typeof value.projectHash === 'string') return 1;
    return typed.some((m) => (m as Rec).type === 'gemini') ? 0.8 : 0;
  }
  const history = checkpointHistory(value);
  if (history && history.length > 0) {
    const contents = history.slice(0, 50);
    if (!contents.every((c) => isRec(c) && (c.role === 'user' || c.role === 'model') && Array.isArray(c.parts))) return 0;
    return contents.some((c) => (c as Rec).role === 'model') ? 0.95 : 0.6;
  }
  return 0;
}

/** A checkpoint is a bare `Content[]` or `{history: Content[]}`. */
function checkpointHistory(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (isRec(value) && Array.isArray(value.history) && !('messages' in value)) return value.history;
  return null;
}

/** The JSONL header line (it may carry an empty `messages` list, never a filled one). */
function isMetadata(r: Rec): boolean {
  return (
    typeof r.sessionId === 'string' &&
    typeof r.projectHash === 'string' &&
    !('type' in r) &&
    !(Array.isArray(r.messages) && r.messages.length > 0)
  );
}

function isMessageRecord(r: Rec): boolean {
  return typeof r.id === 'string' && typeof r.type === 'string';
}

class GeminiParser implements RecordParser {
  private readonly base: string;
  private session: SessionBuilder | null = null;
  private sessionKey: string | null = null;
  /** Session keys already ended in this file: a second document with the same id is a session of its own, not lost. */
  private endedKeys = new Set<string>();
  private meta: Rec | null = null;
  private pending: { id: string; record: Rec; line: number | null } | null = null;
  private readonly released = new Set<string>();
  private readonly calls = new CallBook();

  constructor(private readonly ctx: AdapterContext) {
    this.base = fileStem(ctx.path);
  }

  push(value: unknown, line: number | null): void {
    if (value === null) return;
    const whole = isRec(value) && Array.isArray(value.messages) && (line === null || !isMetadata(value));
    const history = whole ? null : checkpointHistory(value);
    // A whole chat or checkpoint on a line of a JSONL recording that is under way is not part of
    // it: read as one, it would end the recording's session, and every later round of that
    // session would arrive for an ended session and be lost.
    if ((whole || history) && line !== null && (this.session !== null || this.pending !== null)) {
      return this.ctx.skip(line, 'not a Gemini CLI record: a whole chat or checkpoint inside a JSONL recording');
    }
    if (whole) return this.readLegacy(value as Rec, line);
    if (history) return this.readCheckpoint(history, line);
    if (!isRec(value)) return this.ctx.skip(line, 'not a Gemini CLI record');
    if (isMetadata(value)) {
      if (this.session && this.sessionKey !== value.sessionId) this.endCurrent();
      this.meta = value;
      return;
    }
    if (isMessageRecord(value)) return this.upsert(value, line);
    // `$set`, `$rewindTo` and anything else: see the header comment.
  }

  private upsert(record: Rec, line: number | null): void {
    const id = record.id as string;
    if (this.pending && this.pending.id === id) {
      this.pending.record = record;
      return;
    }
    if (this.released.has(id)) return;
    this.releasePending();
    this.pending = { id, record, line };
  }

  private releasePending(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    this.released.add(p.id);
    const sb = this.current();
    readMessage(sb, p.record, p.line, this.calls);
    // The message carries its own results and is final now: nothing can still answer it.
    sb.flush();
  }

  private current(): SessionBuilder {
    if (!this.session) {
      const named = asString(this.meta?.sessionId) ?? this.base;
      const own = this.endedKeys.has(named) ? `${named}#${this.endedKeys.size + 1}` : named;
      const parent = this.parentOf(this.meta);
      this.sessionKey = own;
      // Sub-agent threads are named after their parent, as the other formats name them.
      this.session = this.ctx.builder.session(own, { id: parent ? `${parent}/${own}` : own, parent });
    }
    return this.session;
  }

  /** Sub-agent recordings live in chats/<parent session id>/<id>.jsonl. */
  private parentOf(meta: Rec | null): string | null {
    if (!meta || meta.kind !== 'subagent') return null;
    const dir = path.basename(path.dirname(this.ctx.path));
    return dir && dir !== '.' && dir !== 'chats' ? dir : null;
  }

  private endCurrent(): void {
    this.releasePending();
    if (this.sessionKey !== null) {
      this.ctx.builder.endSession(this.sessionKey);
      this.endedKeys.add(this.sessionKey);
    }
    this.session = null;
    this.sessionKey = null;
    this.released.clear();
  }

  private readLegacy(doc: Rec, line: number | null): void {
    this.endCurrent();
    this.meta = doc;
    const sb = this.current();
    for (const m of doc.messages as unknown[]) if (isRec(m)) readMessage(sb, m, line, this.calls);
    this.endCurrent();
    this.meta = null;
  }

  private readCheckpoint(history: unknown[], line: number | null): void {
    this.endCurrent();
    const key = line === null ? this.base : `${this.base}:${line}`;
    const sb = this.ctx.builder.session(key, { id: key });
    for (const c of history) if (isRec(c)) readContent(sb, c, line, this.calls);
    this.ctx.builder.endSession(key);
  }

  end(): void {
    this.releasePending();
  }
}

/**
 * The calls of the open round in order, so a response without an id (or with one the call
 * lacked) still finds its call: by id, else the first unanswered call of that name. The
 * builder matches id-less answers by position, so those are handed over in call order once
 * every id-less call has its answer (a missing one leaves the batch unknown either way).
 */
class CallBook {
  private calls: { id: string | null; name: string; answer: ToolAnswer | null }[] = [];
  private delivered = false;

  reset(): void {
    this.calls = [];
    this.delivered = false;
  }

  add(id: string | null, name: string): void {
    this.calls.push({ id, name, answer: null });
  }

  answer(sb: SessionBuilder, id: string | null, name: string | null, answer: ToolAnswer): void {
    let call = id !== null ? this.calls.find((c) => !c.answer && c.id === id) : undefined;
    call ??= this.calls.find((c) => !c.answer && (name === null || c.name === name));
    if (!call) return;
    call.answer = answer;
    if (call.id !== null) {
      sb.answer(call.id, answer);
      return;
    }
    const idless = this.calls.filter((c) => c.id === null);
    if (this.delivered || !idless.every((c) => c.answer)) return;
    this.delivered = true;
    for (const c of idless) sb.answer(null, c.answer!);
  }
}

// Text a client injects into the user role: the environment preamble (bare in checkpoints,
// inside <session_context> since 0.61), compression snapshots, and slash commands (`/chat save`,
// `/stats`) that never reach the model.
function isInjected(text: string): boolean {
  const t = text.trimStart();
  return (
    t === '' ||
    t.startsWith('This is the Gemini CLI. We are setting up the context') ||
    t.startsWith('<session_context>') ||
    t.startsWith('<state_snapshot>') ||
    /^\/[a-z][\w-]*(\s|$)/i.test(t)
  );
}

function readMessage(sb: SessionBuilder, m: Rec, line: number | null, calls: CallBook): void {
  sb.at(timestampOf(m.timestamp));
  const type = m.type;
  if (type === 'user') {
    const parts = Array.isArray(m.content) ? m.content : [];
    const responses = parts.filter((p) => isRec(p) && isRec(p.functionResponse));
    for (const p of responses) answerResponse(sb, (p as Rec).functionResponse as Rec, calls);
    if (responses.length === 0 && !isInjected(contentText(m.content))) {
      sb.userTurn(line);
      calls.reset();
    }
    return;
  }
  // Esc in Gemini CLI cancels the request ("Request cancelled.") and its pending tool calls.
  if (type === 'info' && /^Request cancelled/i.test(contentText(m.content).trim())) {
    sb.interrupt(line);
    return;
  }
  if (type !== 'gemini' && type !== 'model') return; // info / error / warning: client notices
  sb.round({ line, model: asString(m.model), timestamp: timestampOf(m.timestamp) });
  calls.reset();
  if (Array.isArray(m.thoughts)) {
    for (const t of m.thoughts) {
      if (!isRec(t)) continue;
      const text = [asString(t.subject), asString(t.description)].filter((s) => s).join('\n');
      if (text) sb.thinking({ text, opaque: false });
    }
  }
  const content = m.content ?? m.parts;
  readParts(sb, content, Array.isArray(m.toolCalls), calls);
  if (Array.isArray(m.toolCalls)) {
    for (const tc of m.toolCalls) {
      if (!isRec(tc)) continue;
      const id = asString(tc.id);
      const name = asString(tc.name) ?? 'unknown';
      sb.call({ id, name, arguments: tc.args ?? null });
      calls.add(id, name);
      const answer = toolCallAnswer(tc);
      if (answer) calls.answer(sb, id, name, answer);
    }
    if (m.toolCalls.some((tc) => isRec(tc) && tc.status === 'cancelled')) sb.interrupt(line);
  }
  if (isRec(m.tokens)) sb.usage(geminiUsage(m.tokens));
}

/** Text, thought and functionCall parts of a model message (`content` string or parts). */
function readParts(sb: SessionBuilder, content: unknown, callsElsewhere: boolean, calls: CallBook): void {
  if (typeof content === 'string') {
    sb.text(content);
    return;
  }
  const parts = Array.isArray(content) ? content : isRec(content) ? [content] : [];
  for (const p of parts) {
    if (typeof p === 'string') sb.text(p);
    if (!isRec(p)) continue;
    if (p.thought === true) {
      const text = asString(p.text);
      sb.thinking(text ? { text, opaque: false } : { text: null, opaque: true });
    } else if (typeof p.text === 'string') {
      sb.text(p.text);
    } else if (isRec(p.functionCall) && !callsElsewhere) {
      const id = asString(p.functionCall.id);
      const name = asString(p.functionCall.name) ?? 'unknown';
      sb.call({ id, name, arguments: p.functionCall.args ?? null });
      calls.add(id, name);
    }
  }
}

function toolCallAnswer(tc: Rec): ToolAnswer | null {
  const isError = tc.status === 'error' || tc.status === 'cancelled';
  if (Array.isArray(tc.result)) {
    const texts: string[] = [];
    let error = isError;
    for (const part of tc.result) {
      if (!isRec(part)) continue;
      if (isRec(part.functionResponse)) {
        const a = responseAnswer(part.functionResponse);
        texts.push(a.content);
        error ||= a.isError;
      } else if (typeof part.text === 'string') {
        texts.push(normaliseGeminiOutput(part.text));
      }
    }
    if (texts.length > 0) return { content: texts.join('\n'), isError: error };
  }
  // A call still scheduled or executing has no answer yet; a finished one without a result
  // part still showed the model its display text.
  if ((tc.status === 'success' || isError) && typeof tc.resultDisplay === 'string') {
    return { content: normaliseGeminiOutput(tc.resultDisplay), isError };
  }
  return null;
}

function responseAnswer(fr: Rec): ToolAnswer {
  const r = fr.response;
  if (isRec(r)) {
    if (typeof r.error === 'string' || isRec(r.error)) {
      return { content: asString(r.error) ?? stringifySafe(r.error), isError: true };
    }
    const text = asString(r.output) ?? asString(r.content) ?? asString(r.result);
    return { content: text !== null ? normaliseGeminiOutput(text) : stringifySafe(r), isError: false };
  }
  return { content: typeof r === 'string' ? normaliseGeminiOutput(r) : stringifySafe(r ?? ''), isError: false };
}

function answerResponse(sb: SessionBuilder, fr: Rec, calls: CallBook): void {
  calls.answer(sb, asString(fr.id), asString(fr.name), responseAnswer(fr));
}

/** One checkpoint `Content`: a user turn, function responses, or a model round. */
function readContent(sb: SessionBuilder, c: Rec, line: number | null, calls: CallBook): void {
  const parts = Array.isArray(c.parts) ? c.parts : [];
  if (c.role === 'model') {
    sb.round({ line });
    calls.reset();
    readParts(sb, parts, false, calls);
    return;
  }
  if (c.role !== 'user') return;
  const responses = parts.filter((p) => isRec(p) && isRec(p.functionResponse));
  for (const p of responses) answerResponse(sb, (p as Rec).functionResponse as Rec, calls);
  if (responses.length === 0 && !isInjected(contentText(parts))) {
    sb.userTurn(line);
    calls.reset();
  }
}

/**
 * Gemini CLI's `tokens` of one response: `input` is the whole prompt (`cached` is part of it),
 * `tool` the tool-use prompt sent beside it (billed as input), `thoughts` are billed as output
 * on top of `output`. The parts add up to the record's own `total`.
 */
export function geminiUsage(tokens: Rec): Partial<Usage> {
  const prompt = asNumber(tokens.input);
  const tool = asNumber(tokens.tool) ?? 0;
  const output = asNumber(tokens.output);
  const thoughts = asNumber(tokens.thoughts);
  const cached = asNumber(tokens.cached);
  const input = prompt === null ? null : prompt + tool;
  const usage: Partial<Usage> = {
    inputTokens: input,
    outputTokens: output === null && thoughts === null ? null : (output ?? 0) + (thoughts ?? 0),
    reasoningTokens: thoughts,
  };
  if (input !== null && cached !== null) usage.cacheReadTokens = Math.min(cached, input);
  return usage;
}
