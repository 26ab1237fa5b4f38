// Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl).
// Every line is an envelope {timestamp, type, payload}. `response_item` lines are the model
// conversation as sent to the API; `event_msg` lines are the UI's stream, which repeats the
// text, reasoning, user messages and tool activity. The conversation is read from
// `response_item`; events fill in only what the items never carry (per-round usage) or, for a
// session without any model-output item, its text and reasoning.

import type { SessionBuilder } from '../model/builder.js';
import type { ThinkingBlock, ToolAnswer, Usage } from '../model/transcript.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';
import { asNumber, asString, fileStem, isRec, type Rec } from './shared/text.js';
import { ANSWER_ITEMS, contentTexts, callId, itemCall, nonEmpty, OUTPUT_ITEMS, reasoningBlock, toolAnswer } from './shared/response-items.js';

const ENVELOPE_TYPES = new Set([
  'session_meta',
  'turn_context',
  'response_item',
  'event_msg',
  'compacted',
  'world_state',
  'inter_agent_communication_metadata',
]);

/** Where a user message was read from: Codex records each one up to three times. */
type UserSource = 'item' | 'event' | 'completed' | 'agent';

/** Where a round's text or reasoning was read from, in order of preference. */
type CopySource = 'item' | 'event' | 'completed';
const COPY_SOURCES: readonly CopySource[] = ['item', 'event', 'completed'];

function detect(probe: Probe): number {
  if (probe.mode !== 'jsonl') return 0;
  let envelopes = 0;
  let meta = false;
  let legacyHeader = false;
  let legacyItems = 0;
  probe.records.forEach((r, i) => {
    if (!isRec(r)) return;
    const type = asString(r.type);
    if (isRec(r.payload) && type !== null && ENVELOPE_TYPES.has(type)) {
      envelopes += 1;
      if (type === 'session_meta') meta = true;
    } else if (i === 0 && isLegacyHeader(r)) {
      legacyHeader = true;
    } else if (type !== null && (OUTPUT_ITEMS.has(type) || ANSWER_ITEMS.has(type))) {
      legacyItems += 1;
    }
  });
  if (meta) return 0.98;
  if (envelopes > 0) return 0.9;
  // Rollouts before the envelope (2025): a header line, then bare response items. The items
  // alone look like OpenAI Responses output; the header makes them Codex's, so it outbids that.
  if (legacyHeader) return legacyItems > 0 ? 0.95 : 0.6;
  return 0;
}

/** The first line of a pre-envelope rollout: {id, timestamp, instructions, git?}. */
function isLegacyHeader(r: Rec): boolean {
  return typeof r.id === 'string' && typeof r.timestamp === 'string' && 'instructions' in r && !('type' in r);
}

class Thread {
  model: string | null = null;
  /** A round is pending in the builder. */
  private open = false;
  /** token_count arrived for the pending round: the response is complete. */
  private closed = false;
  /** A tool output (or other input) arrived since the pending round's last output item. */
  private afterInput = false;
  /** Call ids of the pending round still waiting for their output. */
  private readonly awaiting = new Set<string>();
  /** Some model-output response_item was seen: event copies of text are then ignored. */
  sawItems = false;
  /** The pending round was opened by event copies and no item of it has arrived yet. */
  private eventOnly = false;
  /**
   * This rollout writes token_count before the items of its response (Codex 0.3x: events,
   * token_count, then the items): a token_count then ends the pending round and its figures
   * wait for the round the next items open.
   */
  private usageLeads = false;
  private leadingUsage: Partial<Usage> | null = null;
  private readonly texts: Record<CopySource, string[]> = { item: [], event: [], completed: [] };
  private readonly thinking: Record<CopySource, ThinkingBlock[]> = { item: [], event: [], completed: [] };
  /** User messages per source since the last output: copies of one message pair up. */
  private readonly userCounts = new Map<UserSource, number>();
  /** inter_agent_communication_metadata said the next agent message opens a turn. */
  triggerTurn = false;

  /** Threads this one was spawned or forked from (their copied session_meta is history). */
  readonly ancestors = new Set<string>();

  constructor(
    readonly builder: SessionBuilder,
    readonly threadId: string,
  ) {}

  /**
   * An output item: part of the pending response, or the first of a new one. A new response
   * begins after token_count closed the last one, or after inputs once no call of the pending
   * round awaits its output (Codex may record one call's output before the next call of the
   * same parallel batch).
   */
  output(line: number | null, timestamp: string | null, source: CopySource): void {
    if (source === 'item' && !this.sawItems && this.open && this.eventOnly && !this.afterInput) {
      // The thread's first item repeats the response its event copies opened: one round, and
      // a token_count between the two says this rollout writes usage before the items.
      if (this.closed) this.usageLeads = true;
      this.closed = false;
    } else if (!this.open || this.closed || (this.afterInput && this.awaiting.size === 0)) {
      this.finalize();
      this.builder.round({ line, model: this.model, timestamp });
      this.open = true;
      this.closed = false;
      this.eventOnly = true;
      this.awaiting.clear(); // the released round's unanswered calls stay unanswered
      if (this.leadingUsage) this.builder.usage(this.leadingUsage);
      this.leadingUsage = null;
    }
    if (source === 'item') {
      this.sawItems = true;
      this.eventOnly = false;
    }
    this.afterInput = false;
    this.userCounts.clear();
  }

  text(source: CopySource, text: string): void {
    if (text.length > 0) this.texts[source].push(text);
  }

  think(source: CopySource, block: ThinkingBlock): void {
    this.thinking[source].push(block);
  }

  call(id: string | null, name: string, args: unknown): void {
    this.builder.call({ id, name, arguments: args });
    if (id !== null) this.awaiting.add(id);
  }

  answer(callId: string | null, answer: ToolAnswer): void {
    if (this.builder.answer(callId, answer) && callId !== null) this.awaiting.delete(callId);
    this.afterInput = true;
  }

  input(): void {
    this.afterInput = true;
  }

  usage(usage: Partial<Usage>): void {
    if (this.usageLeads) {
      // It opens the next response: the pending one is complete; a repeat keeps the first figures.
      if (this.open) this.closed = true;
      this.leadingUsage ??= usage;
      return;
    }
    // The first token_count after a response is its own; later ones (a repeat, or the
    // compaction request's) must not overwrite it.
    if (!this.open || this.closed) return;
    this.builder.usage(usage);
    this.closed = true;
  }

  /** A user message read from `source`; a turn unless it is another copy of one already seen. */
  user(source: UserSource, line: number | null): void {
    let others = 0;
    for (const [s, n] of this.userCounts) if (s !== source) others = Math.max(others, n);
    const mine = (this.userCounts.get(source) ?? 0) + 1;
    this.userCounts.set(source, mine);
    if (mine <= others) return;
    this.finalize();
    this.builder.userTurn(line);
    this.open = false;
    this.closed = false;
    this.afterInput = false;
    this.awaiting.clear();
  }

  /** Hand the pending round's text and reasoning to the builder, one copy of each. */
  finalize(): void {
    if (!this.open) return;
    const texts = COPY_SOURCES.map((s) => this.texts[s]).find((t) => t.length > 0) ?? [];
    for (const t of texts) this.builder.text(t);
    const thinking = COPY_SOURCES.map((s) => this.thinking[s]).find((t) => t.length > 0) ?? [];
    for (const b of thinking) this.builder.thinking(b);
    for (const s of COPY_SOURCES) {
      this.texts[s] = [];
      this.thinking[s] = [];
    }
  }
}

class CodexParser implements RecordParser {
  private readonly threads = new Map<string, Thread>();
  private current: Thread | null = null;

  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    if (!isRec(value)) {
      this.ctx.skip(line, 'codex: line is not a JSON object');
      return;
    }
    const type = asString(value.type);
    const payload = value.payload;
    if (!isRec(payload)) {
      this.legacy(value, type, line);
      return;
    }
    if (type === null) return;
    const timestamp = asString(value.timestamp);
    // Every envelope is stamped: the session's first and last record say when it ran.
    if (type !== 'session_meta') this.stamp(timestamp);
    switch (type) {
      case 'session_meta':
        this.sessionMeta(payload);
        this.stamp(timestamp);
        return;
      case 'turn_context':
        if (asString(payload.model)) this.thread().model = asString(payload.model);
        return;
      case 'world_state': {
        const state = isRec(payload.state) ? payload.state : null;
        if (state && asString(state.model)) this.thread().model = asString(state.model);
        return;
      }
      case 'inter_agent_communication_metadata':
        this.thread().triggerTurn = payload.trigger_turn === true;
        return;
      case 'response_item':
        this.responseItem(payload, line, timestamp);
        return;
      case 'event_msg':
        this.event(payload, line, timestamp);
        return;
      default:
        // compacted (a summary replacing earlier history, not new conversation) and newer types.
        return;
    }
  }

  end(): void {
    for (const t of this.threads.values()) t.finalize();
  }

  /** A record's time, for the thread it belongs to: the session's first and last say when it ran. */
  private stamp(timestamp: string | null): void {
    this.current?.builder.at(timestamp);
  }

  /**
   * Pre-envelope rollouts: the header line is the session_meta, response items stand bare,
   * `{record_type: "state"}` lines carry nothing. Anything else without a payload is not ours.
   */
  private legacy(value: Rec, type: string | null, line: number | null): void {
    if (this.current === null && isLegacyHeader(value)) {
      this.sessionMeta(value);
      this.stamp(asString(value.timestamp));
    } else if (type !== null && (OUTPUT_ITEMS.has(type) || ANSWER_ITEMS.has(type) || type === 'agent_message')) {
      this.responseItem(value, line, asString(value.timestamp));
    }
  }

  /**
   * Each thread id is its own session. A thread spawned by another (a sub-agent) or forked
   * from one names that thread as parent, and its id is `<parent>/<thread id>`.
   *
   * A forked thread's rollout starts with its own session_meta and then copies the source
   * thread's rollout, session_meta included. That copy is the context the fork's model sees,
   * so a session_meta of an ancestor of the current thread does not switch threads: the copied
   * history stays in the fork's session. A session_meta of any other known thread switches
   * back to it; an unknown one opens a new session.
   */
  private sessionMeta(p: Rec): void {
    const id = nonEmpty(p.id) ?? nonEmpty(p.session_id);
    if (id === null) return;
    const current = this.current;
    if (current && (current.threadId === id || current.ancestors.has(id))) return;
    const existing = this.threads.get(id);
    if (existing) {
      this.current = existing;
      return;
    }
    const spawnedBy = nonEmpty(p.parent_thread_id) ?? spawnParent(p.source);
    const forkedFrom = nonEmpty(p.forked_from_id);
    let parent = spawnedBy ?? forkedFrom;
    if (parent === id) parent = null;
    // Codex keeps sessions by date, not by project: the working directory names the project.
    const builder = this.ctx.builder.session(id, { id: parent ? `${parent}/${id}` : id, parent, project: asString(p.cwd) });
    const thread = new Thread(builder, id);
    for (const a of [spawnedBy, forkedFrom]) if (a !== null && a !== id) thread.ancestors.add(a);
    if (asString(p.model)) thread.model = asString(p.model);
    this.threads.set(id, thread);
    this.current = thread;
  }

  /** The current thread; lines before any session_meta belong to one named after the file. */
  private thread(): Thread {
    if (this.current) return this.current;
    const stem = fileStem(this.ctx.path);
    // rollout-2025-01-01T00-00-00-<uuid>: the thread id is the trailing uuid.
    const uuid = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(stem);
    const id = uuid ? uuid[1]! : stem;
    const thread = new Thread(this.ctx.builder.session(id), id);
    this.threads.set(id, thread);
    this.current = thread;
    return thread;
  }

  private responseItem(p: Rec, line: number | null, timestamp: string | null): void {
    const type = asString(p.type);
    if (type === null) return;
    const t = this.thread();
    if (type === 'message') {
      const role = asString(p.role);
      if (role === 'assistant') {
        t.output(line, timestamp, 'item');
        t.text('item', contentTexts(p.content).join('\n'));
      } else if (role === 'user') {
        if (isRealUserContent(p.content)) t.user('item', line);
      }
      // developer and system messages are instructions Codex injects, not conversation.
      return;
    }
    if (type === 'agent_message') {
      // A message from another agent of a multi-agent run: it opens a turn only when the
      // preceding metadata says it triggers one; otherwise it is input like a tool output.
      if (t.triggerTurn) t.user('agent', line);
      else t.input();
      t.triggerTurn = false;
      return;
    }
    if (OUTPUT_ITEMS.has(type)) {
      t.output(line, timestamp, 'item');
      if (type === 'reasoning') {
        t.think('item', reasoningBlock(p));
        return;
      }
      const call = itemCall(p);
      if (call) t.call(call.id, call.name, call.arguments);
      if (call?.answer) t.answer(call.id, call.answer);
      return;
    }
    if (ANSWER_ITEMS.has(type)) {
      t.answer(callId(p), toolAnswer(p));
      return;
    }
    // ghost_snapshot, image_generation_call and newer items carry no call batch to compare.
  }

  private event(p: Rec, line: number | null, timestamp: string | null): void {
    const type = asString(p.type);
    const t = this.thread();
    switch (type) {
      case 'user_message': {
        const kind = asString(p.kind);
        if (kind === 'user_instructions' || kind === 'environment_context') return;
        const message = asString(p.message) ?? '';
        const images = (Array.isArray(p.images) && p.images.length > 0) || (Array.isArray(p.local_images) && p.local_images.length > 0);
        if (images || isRealUserText(message)) t.user('event', line);
        return;
      }
      case 'agent_message':
        if (t.sawItems) return;
        t.output(line, timestamp, 'event');
        t.text('event', asString(p.message) ?? '');
        return;
      case 'agent_reasoning':
      case 'agent_reasoning_raw_content':
        if (t.sawItems) return;
        t.output(line, timestamp, 'event');
        t.think('event', textBlock(asString(p.text)));
        return;
      case 'token_count': {
        const info = isRec(p.info) ? p.info : null;
        // Older rollouts put the figures on the event itself.
        const last = info ? (isRec(info.last_token_usage) ? info.last_token_usage : null) : p;
        if (!last || asNumber(last.input_tokens) === null) return;
        // input_tokens is the whole prompt, cached part included; reasoning is inside output_tokens.
        const input = asNumber(last.input_tokens)!;
        const cached = asNumber(last.cached_input_tokens);
        t.usage({
          inputTokens: input,
          outputTokens: asNumber(last.output_tokens),
          reasoningTokens: asNumber(last.reasoning_output_tokens),
          ...(cached !== null ? { cacheReadTokens: Math.min(cached, input) } : {}),
        });
        return;
      }
      case 'item_completed':
        this.completedItem(t, isRec(p.item) ? p.item : null, line, timestamp);
        return;
      case 'turn_aborted':
        // Esc in the TUI (`interrupted`); a turn `replaced` by a new prompt or a review ending is no stop.
        if ((asString(p.reason) ?? 'interrupted') === 'interrupted') t.builder.interrupt(line);
        return;
      case 'thread_settings_applied': {
        const settings = isRec(p.thread_settings) ? p.thread_settings : null;
        if (settings && asString(settings.model)) t.model = asString(settings.model);
        return;
      }
      default:
        // Tool activity events (exec_command_end, mcp_tool_call_end, web_search_end, …) repeat
        // the response items; lifecycle events carry no conversation.
        return;
    }
  }

  /** The newest Codex repeats every item once more as item_completed: a copy of last resort. */
  private completedItem(t: Thread, item: Rec | null, line: number | null, timestamp: string | null): void {
    if (!item) return;
    const type = asString(item.type);
    if (type === 'UserMessage') {
      if (isRealUserContent(item.content)) t.user('completed', line);
    } else if (type === 'AgentMessage') {
      if (t.sawItems) return;
      t.output(line, timestamp, 'completed');
      t.text('completed', contentTexts(item.content).join('\n'));
    } else if (type === 'Reasoning') {
      if (t.sawItems) return;
      const parts = [...textsOf(item.raw_content), ...textsOf(item.summary_text)];
      if (parts.length === 0) return;
      t.output(line, timestamp, 'completed');
      t.think('completed', textBlock(parts.join('\n')));
    }
  }
}

function spawnParent(source: unknown): string | null {
  if (!isRec(source) || !isRec(source.subagent)) return null;
  const spawn = source.subagent.thread_spawn;
  return isRec(spawn) ? nonEmpty(spawn.parent_thread_id) : null;
}

function textBlock(text: string | null): ThinkingBlock {
  return text ? { text, opaque: false } : { text: null, opaque: true };
}

function textsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is string => typeof v === 'string' && v.length > 0);
}

/**
 * Codex injects its context as user messages: `<environment_context>`, `<user_instructions>`,
 * `<turn_aborted>`, `<user_shell_command>`… (one element wrapping the whole text) and the
 * AGENTS.md preamble. Those are not turns; a message with anything else (or an image) is.
 */
function isRealUserContent(content: unknown): boolean {
  if (typeof content === 'string') return isRealUserText(content);
  if (!Array.isArray(content)) return false;
  let real = false;
  for (const part of content) {
    if (!isRec(part)) continue;
    if (typeof part.text === 'string') {
      if (isRealUserText(part.text)) real = true;
    } else if (typeof part.type === 'string' && /image/.test(part.type)) {
      real = true;
    }
  }
  return real;
}

function isRealUserText(text: string): boolean {
  const t = text.trim();
  if (t.length === 0) return false;
  if (t.startsWith('# AGENTS.md instructions')) return false;
  const open = /^<(([a-z][a-z0-9_-]*)[^<>]*)>/i.exec(t);
  return !(open && (t.endsWith(`</${open[1]}>`) || t.endsWith(`</${open[2]}>`)));
}

export const codexAdapter: FormatAdapter = {
  name: 'codex',
  description: 'Codex CLI rollout JSONL (session_meta, turn_context, response_item, event_msg)',
  detection: 'JSONL envelopes {timestamp, type, payload} with type session_meta, turn_context, response_item or event_msg',
  detect,
  open: (ctx) => new CodexParser(ctx),
};
