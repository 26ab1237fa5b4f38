// OpenHands transcripts, both generations.
//
// V0 (OpenHands ≤ 0.x): events `{id, timestamp, source, action + args | observation + content +
// extras + cause}`, as a trajectory array ("download trajectory", tests/runtime/trajs) or as the
// `history` of each line of an evaluation `output.jsonl` (one run per line, named by `instance_id`).
// A function-calling agent's action carries `tool_call_metadata`: the tool name, the call id and
// the raw model response, whose id groups the calls of one response into one round. Observations
// answer the action whose `id` is their `cause`.
//
// V1 (software-agent-sdk): events `{id, timestamp, source, kind, …}`: MessageEvent, ActionEvent,
// ObservationEvent (paired by `tool_call_id`), ConversationStateUpdateEvent (`stats`: cumulative
// token usage, read by difference)… as JSONL or a JSON array, or a conversation folder
// (base_state.json + events/event-*.json, see read/conversation-dir.ts) read as one session.
//
// Both generations log a lot that is no conversation (agent state changes, "no observation"
// placeholders, recalled workspace context, condensation): those are skipped quietly.

import type { SessionBuilder } from '../model/builder.js';
import type { ThinkingBlock, ToolAnswer, Usage } from '../model/transcript.js';
import { thinkingOf } from './openai.js';
import { asNumber, asString, contentText, isRec, parseJsonString, usageOf, type Rec } from './shared/messages.js';
import { fileStem } from './shared/text.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const openhandsAdapter: FormatAdapter = {
  name: 'openhands',
  description:
    'OpenHands V0 event lists (trajectory array; evaluation output.jsonl, one run per line named by instance_id) and V1 conversations (folder with base_state.json + events/, or events as JSONL/array)',
  detection:
    'events with an id, source user/agent/environment and action or observation (V0), or a kind ending in "Event" (V1); JSONL lines with instance_id and such a history; a folder with base_state.json and events/',
  detect: detectOpenHands,
  open: (ctx) => new OpenHandsParser(ctx),
};

const SOURCES = new Set(['user', 'agent', 'environment']);
const PROBE_EVENTS = 20;

/** V0 events that carry no conversation. */
const NOISE_ACTIONS = new Set(['change_agent_state', 'recall', 'system', 'condensation', 'condensation_request', 'null']);
/** V0 agent states only the user sets (`finished`, `error` and the rest are the agent's own). */
const USER_STOP_STATES = new Set(['paused', 'stopped', 'user_rejected']);
const NOISE_OBSERVATIONS = new Set(['agent_state_changed', 'null', 'recall', 'condensation']);

/**
 * Parameters OpenHands adds to every tool for its own use (a risk rating, a one-line summary the
 * model writes each time): the same command with a rephrased summary is still the same call.
 */
const META_ARGUMENTS = ['security_risk', 'summary'];

/** V0 `args` bookkeeping that is not what the model asked for. */
const V0_BOOKKEEPING = new Set([
  'thought',
  'impl_source',
  'translated_ipython_code',
  'is_input',
  'blocking',
  'confirmation_state',
  'security_risk',
  'hidden',
  'include_extra',
  'kernel_init_code',
  'wait_for_response',
  'image_urls',
]);

/**
 * An evaluation run's history: events, or (older evaluation outputs) [action, observation] pairs.
 * Only that one level of nesting is opened.
 */
function* historyEvents(history: readonly unknown[]): Generator<unknown> {
  for (const h of history) {
    if (Array.isArray(h)) yield* h;
    else yield h;
  }
}

function isV0Event(e: unknown): e is Rec {
  return (
    isRec(e) &&
    'id' in e &&
    typeof e.source === 'string' &&
    SOURCES.has(e.source) &&
    (typeof e.action === 'string' || typeof e.observation === 'string')
  );
}

function isV1Event(e: unknown): e is Rec {
  return isRec(e) && typeof e.kind === 'string' && e.kind.endsWith('Event') && typeof e.source === 'string';
}

function isEvalRun(r: unknown): r is Rec {
  return isRec(r) && Array.isArray(r.history) && ('instance_id' in r || 'instruction' in r || 'metrics' in r);
}

/** base_state.json of a V1 conversation folder: the conversation id and the agent's LLM. */
function isBaseState(r: unknown): r is Rec {
  return isRec(r) && !('kind' in r) && isRec(r.agent) && typeof r.id === 'string';
}

function eventShare(list: readonly unknown[]): number {
  const sample = [...historyEvents(list.slice(0, PROBE_EVENTS))].filter(isRec);
  if (sample.length === 0) return 0;
  return sample.filter((e) => isV0Event(e) || isV1Event(e)).length / sample.length;
}

function detectOpenHands(probe: Probe): number {
  if (probe.mode === 'document') {
    const v = probe.value;
    if (Array.isArray(v)) return eventShare(v) >= 0.8 ? 0.97 : 0;
    if (isEvalRun(v)) return eventShare(v.history as unknown[]) >= 0.5 || (v.history as unknown[]).length === 0 ? 0.97 : 0;
    // One event file of a V1 folder named on its own.
    if (isV1Event(v) || isV0Event(v)) return 0.9;
    return 0;
  }
  const records = probe.records;
  if (records.length === 0) return 0;
  if (records.some(isEvalRun)) {
    const runs = records.filter(isEvalRun);
    return runs.some((r) => eventShare(r.history as unknown[]) >= 0.5) || runs.every((r) => (r.history as unknown[]).length === 0) ? 0.97 : 0;
  }
  return eventShare(records) >= 0.8 ? 0.97 : 0;
}

class OpenHandsParser implements RecordParser {
  private readonly stem: string;
  private readonly ignore = (kind: string) => this.ctx.ignore?.(kind);
  /** The session of a file (or folder) that holds one conversation's events. */
  private fileSession: Conversation | null = null;
  /** base_state.json, read before the folder's events. */
  private state: Rec | null = null;

  constructor(private readonly ctx: AdapterContext) {
    this.stem = fileStem(ctx.path);
  }

  push(value: unknown, line: number | null): void {
    if (Array.isArray(value)) {
      const conversation = this.file();
      for (const e of historyEvents(value)) conversation.event(e, null);
      return;
    }
    if (!isRec(value)) {
      this.ctx.skip(line, 'not an OpenHands event or run');
      return;
    }
    if (isEvalRun(value)) return this.evalRun(value, line);
    if (isBaseState(value) && this.fileSession === null) {
      this.state = value;
      return;
    }
    if (isV0Event(value) || isV1Event(value)) return this.file().event(value, line);
    // Other lines (a header, metadata) carry no conversation.
  }

  end(): void {
    this.fileSession?.finish();
  }

  private file(): Conversation {
    if (!this.fileSession) {
      const id = (this.state && asString(this.state.id)) || this.stem;
      const conversation = new Conversation(this.ctx.builder.session('file', { id }), this.ignore);
      if (this.state) conversation.baseState(this.state);
      this.fileSession = conversation;
    }
    return this.fileSession;
  }

  /** One line of an evaluation output.jsonl: a run of its own, named by its instance. */
  private evalRun(run: Rec, line: number | null): void {
    const key = `run:${line ?? 'document'}`;
    const instance = asString(run.instance_id) ?? (typeof run.instance_id === 'number' ? String(run.instance_id) : null);
    const id = instance || (line === null ? this.stem : `${this.stem}:${line}`);
    const conversation = new Conversation(this.ctx.builder.session(key, { id }), this.ignore);
    const metadata = isRec(run.metadata) ? run.metadata : null;
    const llm = metadata && isRec(metadata.llm_config) ? metadata.llm_config : null;
    conversation.defaultModel = (llm && asString(llm.model)) || null;
    if (isRec(run.metrics)) {
      conversation.tokenUsages(run.metrics.token_usages);
      conversation.recorded(asNumber(run.metrics.accumulated_cost), 'metrics.accumulated_cost');
    }
    for (const e of historyEvents(run.history as unknown[])) conversation.event(e, line);
    conversation.finish();
    this.ctx.builder.endSession(key);
  }
}

/** One conversation's events, V0 or V1 (a file holds one generation, but either is read). */
class Conversation {
  defaultModel: string | null = null;
  /** V0: action id → the call id its observations answer. */
  private readonly callOfAction = new Map<string, string>();
  /** Response id of the open round, to take its text and usage once. */
  private openKey: string | null = null;
  private textTaken = false;
  /** Per-request usage by response id (base_state stats or an evaluation run's metrics). */
  private readonly usageById = new Map<string, Partial<Usage>>();
  /** V1 stats: the last cumulative figures seen, per LLM usage id. */
  private readonly cumulative = new Map<string, Cumulative>();
  /** A stats difference waiting for the round it paid for (stats precede that response's actions). */
  private pendingUsage: Partial<Usage> | null = null;
  /** The usage id of the agent's own LLM (not the condenser's). */
  private agentUsageId: string | null = null;
  private syntheticIds = 0;
  /** The run's cost as OpenHands counted it, reported when the session is done. */
  private cost: { usd: number; source: string } | null = null;

  constructor(
    private readonly sb: SessionBuilder,
    /** Counts what is set aside as no conversation (inputs[].ignored). */
    private readonly ignore: (kind: string) => void,
  ) {}

  /** A recorded cost; 0 means OpenHands had no price for the model, not a free run. */
  recorded(usd: number | null, source: string): void {
    if (usd !== null && usd > 0) this.cost = { usd, source };
  }

  finish(): void {
    if (this.cost) this.sb.recordedCost(this.cost);
    this.cost = null;
  }

  baseState(state: Rec): void {
    const agent = isRec(state.agent) ? state.agent : null;
    const llm = agent && isRec(agent.llm) ? agent.llm : null;
    this.defaultModel = (llm && asString(llm.model)) || null;
    this.agentUsageId = (llm && asString(llm.usage_id)) || null;
    const stats = isRec(state.stats) && isRec(state.stats.usage_to_metrics) ? state.stats.usage_to_metrics : null;
    const metrics = stats ? agentMetrics(stats, this.agentUsageId) : null;
    if (metrics) this.tokenUsages(metrics.token_usages);
    if (stats) this.recorded(totalCost(stats), 'base_state.stats accumulated_cost');
  }

  /** Per-request token usages `[{prompt_tokens, completion_tokens, …, response_id}]`. */
  tokenUsages(list: unknown): void {
    if (!Array.isArray(list)) return;
    for (const u of list) {
      if (!isRec(u)) continue;
      const id = asString(u.response_id);
      const usage = tokenUsage(u);
      if (id && usage) this.usageById.set(id, usage);
    }
  }

  event(e: unknown, line: number | null): void {
    if (isV1Event(e)) this.v1(e, line);
    else if (isV0Event(e)) this.v0(e, line);
  }

  // ---- V0 ----

  private v0(e: Rec, line: number | null): void {
    const action = asString(e.action);
    if (action !== null) return this.v0Action(e, action, line);
    const observation = asString(e.observation)!;
    // The user paused or stopped the agent, or rejected an action it asked to run.
    if (observation === 'user_rejected' || (observation === 'agent_state_changed' && USER_STOP_STATES.has(String((e.extras as Rec | undefined)?.agent_state)))) {
      this.sb.interrupt(line);
    }
    if (NOISE_OBSERVATIONS.has(observation)) return this.ignore(`observation:${observation}`);
    const cause = e.cause === undefined || e.cause === null ? null : String(e.cause);
    const meta = isRec(e.tool_call_metadata) ? e.tool_call_metadata : null;
    const callId = (cause !== null ? this.callOfAction.get(cause) : undefined) ?? (meta ? asString(meta.tool_call_id) : null);
    if (callId === null || callId === undefined) return;
    const extras = isRec(e.extras) ? e.extras : null;
    const metadata = extras && isRec(extras.metadata) ? extras.metadata : null;
    const exit = metadata ? asNumber(metadata.exit_code) : null;
    const isError = observation === 'error' || e.success === false || (exit !== null && exit !== 0);
    this.sb.answer(callId, { content: contentText(e.content), isError });
  }

  private v0Action(e: Rec, action: string, line: number | null): void {
    if (NOISE_ACTIONS.has(action)) return this.ignore(`action:${action}`);
    const args = isRec(e.args) ? e.args : {};
    if (e.source === 'user') {
      if (action === 'message') this.turn(line);
      return;
    }
    if (e.source !== 'agent') return;
    const meta = isRec(e.tool_call_metadata) ? e.tool_call_metadata : null;
    const response = meta && isRec(meta.model_response) ? meta.model_response : null;
    const responseId = response ? asString(response.id) : null;
    const message = responseMessage(response);
    const model = response ? asString(response.model) : null;
    // A later plain message has no response of its own: it was written by the same model.
    if (model) this.defaultModel = model;
    this.open(responseId, line, model, asString(e.timestamp));
    if (!this.textTaken) {
      this.textTaken = true;
      // The response's own text once per response (parallel actions each repeat it as `thought`).
      const text = message ? contentText(message.content) : (asString(args.thought) ?? '');
      this.sb.text(text.trim());
      for (const block of message ? thinkingBlocks(message) : []) this.sb.thinking(block);
      const usage = (response && usageOf(response.usage)) || (responseId ? this.usageById.get(responseId) : undefined);
      if (usage) this.sb.usage(usage);
    }
    if (meta) {
      const callId = asString(meta.tool_call_id) ?? this.syntheticId();
      const name = asString(meta.function_name) ?? action;
      this.sb.call({ id: callId, name, arguments: v0Arguments(message, callId, args) });
      if (e.id !== undefined && e.id !== null) this.callOfAction.set(String(e.id), callId);
      if (action === 'finish') this.finalThought(args);
      return;
    }
    // Without function calling: a message or finish is the agent talking; any other action is a
    // call named after its kind, answered by the observation that names it as cause.
    if (action === 'message') {
      this.sb.text(asString(args.content) ?? asString(e.message) ?? '');
    } else if (action === 'finish') {
      this.finalThought(args);
    } else {
      const callId = this.syntheticId();
      this.sb.call({ id: callId, name: action, arguments: withoutKeys(args, V0_BOOKKEEPING) });
      if (e.id !== undefined && e.id !== null) this.callOfAction.set(String(e.id), callId);
    }
  }

  private finalThought(args: Rec): void {
    const final = asString(args.final_thought) ?? asString(args.message);
    if (final && final !== asString(args.thought)) this.sb.text(final);
  }

  // ---- V1 ----

  private v1(e: Rec, line: number | null): void {
    switch (e.kind) {
      case 'MessageEvent':
        return this.v1Message(e, line);
      case 'ActionEvent':
        return this.v1Action(e, line);
      case 'UserRejectObservation':
        this.v1Observation(e);
        this.sb.interrupt(line);
        return;
      case 'PauseEvent':
        this.sb.interrupt(line);
        return;
      case 'ObservationEvent':
      case 'AgentErrorEvent':
        return this.v1Observation(e);
      case 'ConversationStateUpdateEvent':
        if (e.key === 'stats' && isRec(e.value)) this.stats(e.value);
        else this.ignore(`ConversationStateUpdateEvent:${String(e.key)}`);
        return;
      default:
        // SystemPromptEvent, PauseEvent, Condensation*…: no conversation.
        this.ignore(String(e.kind));
        return;
    }
  }

  private v1Message(e: Rec, line: number | null): void {
    const message = isRec(e.llm_message) ? e.llm_message : null;
    if (!message) return;
    if (e.source === 'user') {
      this.turn(line);
      return;
    }
    if (e.source !== 'agent') return;
    this.open(asString(e.llm_response_id), line, null, asString(e.timestamp));
    for (const block of thinkingBlocks(message)) this.sb.thinking(block);
    this.sb.text(contentText(message.content).trim());
  }

  private v1Action(e: Rec, line: number | null): void {
    const responseId = asString(e.llm_response_id);
    this.open(responseId, line, null, asString(e.timestamp));
    if (!this.textTaken) {
      this.textTaken = true;
      const thinking = thinkingBlocks(e);
      for (const block of thinking) this.sb.thinking(block);
      // Some models write their reasoning inline as <think>…</think>, which the SDK also splits
      // out as reasoning_content: the visible text is what follows it.
      const thought = contentText(e.thought);
      this.sb.text((thinking.length > 0 ? thought.replace(/^\s*<think>[\s\S]*?<\/think>/, '') : thought).trim());
    }
    const tc = isRec(e.tool_call) ? e.tool_call : null;
    const id = asString(e.tool_call_id) ?? (tc ? asString(tc.id) : null) ?? this.syntheticId();
    const name = asString(e.tool_name) ?? (tc ? asString(tc.name) : null) ?? (isRec(e.action) ? asString(e.action.kind) : null) ?? 'unknown';
    let args: unknown = tc && tc.arguments !== undefined ? parseJsonString(tc.arguments) : isRec(e.action) ? withoutKeys(e.action, new Set(['kind'])) : null;
    if (isRec(args)) args = withoutKeys(args, new Set(META_ARGUMENTS));
    this.sb.call({ id, name, arguments: args });
  }

  private v1Observation(e: Rec): void {
    const id = asString(e.tool_call_id);
    if (id === null) return;
    let answer: ToolAnswer;
    if (e.kind === 'UserRejectObservation') {
      answer = { content: asString(e.rejection_reason) ?? 'rejected by the user', isError: true };
    } else if (e.kind === 'AgentErrorEvent') {
      answer = { content: asString(e.error) ?? '', isError: true };
    } else {
      const o = isRec(e.observation) ? e.observation : {};
      const exit = asNumber(o.exit_code);
      answer = { content: contentText(o.content), isError: o.is_error === true || (exit !== null && exit !== 0) };
    }
    this.sb.answer(id, answer);
  }

  /**
   * A stats update holds each LLM's cumulative usage. Its difference from the previous update is
   * what the calls in between cost; the SDK writes it just before the actions of the response it
   * paid for, so it goes to the next round that opens.
   */
  private stats(value: Rec): void {
    const all = isRec(value.usage_to_metrics) ? value.usage_to_metrics : null;
    if (!all) return;
    this.recorded(totalCost(all), 'stats accumulated_cost');
    const usageId = this.agentUsageId ?? agentUsageKey(all);
    const metrics = usageId !== null && isRec(all[usageId]) ? (all[usageId] as Rec) : null;
    if (!metrics) return;
    if (this.defaultModel === null) this.defaultModel = asString(metrics.model_name);
    const acc = isRec(metrics.accumulated_token_usage) ? metrics.accumulated_token_usage : null;
    if (!acc) return;
    const now: Cumulative = {
      input: asNumber(acc.prompt_tokens) ?? 0,
      output: asNumber(acc.completion_tokens) ?? 0,
      reasoning: asNumber(acc.reasoning_tokens) ?? 0,
      cacheRead: asNumber(acc.cache_read_tokens) ?? 0,
      cacheWrite: asNumber(acc.cache_write_tokens) ?? 0,
    };
    const before = this.cumulative.get(usageId!) ?? { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 };
    this.cumulative.set(usageId!, now);
    if (now.input < before.input || now.output < before.output) return; // a reset: nothing to credit
    if (now.input === before.input && now.output === before.output) return;
    this.pendingUsage = withCache(
      {
        inputTokens: now.input - before.input,
        outputTokens: now.output - before.output,
        reasoningTokens: now.reasoning - before.reasoning,
      },
      now.cacheRead - before.cacheRead,
      now.cacheWrite - before.cacheWrite,
    );
  }

  // ---- shared ----

  private turn(line: number | null): void {
    this.sb.userTurn(line);
    this.openKey = null;
    this.textTaken = false;
  }

  /** Open the round of response `key` (continue it when it is the open one); null opens a new one. */
  private open(key: string | null, line: number | null, model: string | null, timestamp: string | null): void {
    if (key !== null && key === this.openKey) return;
    this.sb.round({ key, line, model: model ?? this.defaultModel, timestamp });
    this.openKey = key;
    this.textTaken = false;
    const usage = (key !== null ? this.usageById.get(key) : undefined) ?? this.pendingUsage;
    this.pendingUsage = null;
    if (usage) this.sb.usage(usage);
  }

  private syntheticId(): string {
    this.syntheticIds += 1;
    return `openhands-call-${this.syntheticIds}`;
  }
}

interface Cumulative {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The agent's own LLM among the usage ids: `agent`, else `default`, else the only one. */
function agentUsageKey(all: Rec): string | null {
  if (isRec(all.agent)) return 'agent';
  if (isRec(all.default)) return 'default';
  const keys = Object.keys(all).filter((k) => isRec(all[k]));
  return keys.length === 1 ? keys[0]! : null;
}

/** Every LLM's accumulated cost (the agent's and the condenser's): what the run cost. */
function totalCost(all: Rec): number | null {
  let sum: number | null = null;
  for (const m of Object.values(all)) {
    const usd = isRec(m) ? asNumber(m.accumulated_cost) : null;
    if (usd !== null) sum = (sum ?? 0) + usd;
  }
  return sum;
}

function agentMetrics(all: Rec, usageId: string | null): Rec | null {
  const key = usageId !== null && isRec(all[usageId]) ? usageId : agentUsageKey(all);
  return key !== null && isRec(all[key]) ? (all[key] as Rec) : null;
}

/** OpenHands' own token record: prompt_tokens already counts the cached part of the prompt. */
function tokenUsage(u: Rec): Partial<Usage> | null {
  const input = asNumber(u.prompt_tokens);
  const output = asNumber(u.completion_tokens);
  if (input === null && output === null) return null;
  return withCache({ inputTokens: input, outputTokens: output, reasoningTokens: asNumber(u.reasoning_tokens) }, asNumber(u.cache_read_tokens), asNumber(u.cache_write_tokens));
}

/** OpenHands' prompt_tokens include the cached prompt; its cache_read/cache_write_tokens are parts of it. */
function withCache(usage: Partial<Usage>, read: number | null, write: number | null): Partial<Usage> {
  const input = usage.inputTokens;
  if (input == null) return usage;
  if (read !== null) usage.cacheReadTokens = Math.max(0, Math.min(read, input));
  if (write !== null) usage.cacheWriteTokens = Math.max(0, Math.min(write, input - (usage.cacheReadTokens ?? 0)));
  return usage;
}

/** The assistant message of a V0 action's raw model response. */
function responseMessage(response: Rec | null): Rec | null {
  if (!response || !Array.isArray(response.choices)) return null;
  const choice = response.choices[0];
  return isRec(choice) && isRec(choice.message) ? choice.message : null;
}

/**
 * A call's arguments as the model wrote them: the raw JSON of its tool call in the model response
 * (OpenHands' `args` drop some, e.g. an edit's file text), else `args` without OpenHands' own keys.
 */
function v0Arguments(message: Rec | null, callId: string, args: Rec): unknown {
  const calls = message && Array.isArray(message.tool_calls) ? message.tool_calls : [];
  for (const tc of calls) {
    if (!isRec(tc) || tc.id !== callId) continue;
    const fn = isRec(tc.function) ? tc.function : null;
    const parsed = parseJsonString(fn ? fn.arguments : tc.arguments);
    return isRec(parsed) ? withoutKeys(parsed, new Set(META_ARGUMENTS)) : parsed;
  }
  return withoutKeys(args, V0_BOOKKEEPING);
}

/** Thinking of a message or V1 event: Anthropic thinking_blocks, else reasoning fields. */
function thinkingBlocks(m: Rec): ThinkingBlock[] {
  const blocks: ThinkingBlock[] = [];
  if (Array.isArray(m.thinking_blocks)) {
    for (const b of m.thinking_blocks) {
      if (!isRec(b)) continue;
      const text = asString(b.thinking);
      if (text) blocks.push({ text, opaque: false });
      else if (b.type === 'redacted_thinking' || b.signature !== undefined || b.data !== undefined) blocks.push({ text: null, opaque: true });
    }
  }
  if (blocks.length > 0) return blocks;
  const fromFields = thinkingOf(m);
  if (fromFields.length > 0) return fromFields;
  // V1 Responses models: the reasoning item of the response.
  const item = isRec(m.responses_reasoning_item) ? m.responses_reasoning_item : null;
  if (item) {
    const text = partTexts(item.content) || partTexts(item.summary);
    if (text) return [{ text, opaque: false }];
    if (item.encrypted_content) return [{ text: null, opaque: true }];
  }
  return [];
}

/** The `text` of each part of a list, joined (reasoning_text and summary_text parts included). */
function partTexts(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts
    .map((p) => (isRec(p) ? asString(p.text) : typeof p === 'string' ? p : null))
    .filter((t): t is string => !!t)
    .join('\n');
}

function withoutKeys(r: Rec, drop: ReadonlySet<string>): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(r)) if (!drop.has(k)) out[k] = v;
  return out;
}
