// mini-swe-agent trajectories (`<instance>.traj.json`): one pretty-printed JSON document per run,
// `{info, messages, trajectory_format, instance_id?}`, or (the oldest layout) a bare message array.
//
// A run is one session of one turn: the task prompt. Each assistant message is one round.
//  - v1 (mini 1.x, `mini-swe-agent-1`): messages are plain `{role, content}`. The action is the one
//    fenced ```bash block of the assistant text, and the next user message is its observation
//    (`<returncode>N</returncode><output>…`): pairing is by position. Zero or two blocks make the
//    response a format error: mini runs nothing and the next user message is the error notice.
//  - v2 (mini 2.x, `mini-swe-agent-1.1`): each message keeps an `extra`. With a tool-call model the
//    assistant carries OpenAI `tool_calls`, answered by `role: "tool"` messages; with a text model the
//    block is ```mswea_bash_command and `extra.actions` holds what was parsed. A format error is a
//    user message with `extra.interrupt_type: "FormatError"` (the failed response is not kept as an
//    assistant message). The run ends with a `role: "exit"` message holding the submission.
//
// Every call is `bash` with `{command}`, in both versions, so a v1 and a v2 run of the same command
// compare equal. The visible text is the prose around the command (the block is the call, not prose).

import type { SessionBuilder } from '../model/builder.js';
import type { ToolAnswer, Usage } from '../model/transcript.js';
import { thinkingOf } from './openai.js';
import { asNumber, asString, contentText, isRec, parseJsonString, timestampOf, usageOf, type Rec } from './shared/messages.js';
import { callId, contentTexts, itemCall, reasoningBlock } from './shared/response-items.js';
import { fileStem } from './shared/text.js';
import { isResponseObject } from './openai-responses.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const miniSweAgentAdapter: FormatAdapter = {
  name: 'mini-swe-agent',
  description:
    'mini-swe-agent trajectory (*.traj.json): {info, messages, trajectory_format} or a bare message array; v1 ```bash actions answered by the next user message, v2 tool_calls / extra.actions',
  detection:
    'a JSON document whose trajectory_format starts with "mini-swe-agent", or whose info has mini_version or a minisweagent agent_type; a bare message array with ```mswea_bash_command blocks or ```bash blocks answered by <returncode>. Checked before openai, which would read it as a chat',
  detect: detectMini,
  open: (ctx) => new MiniSweAgentParser(ctx),
};

/** The command mini runs: the tool name of every call, v1 and v2 alike. */
const MINI_TOOL = 'bash';

const PROBE_MESSAGES = 40;

function detectMini(probe: Probe): number {
  // A minified trajectory is one line: offered as JSONL of one record too.
  const doc = probe.mode === 'document' ? probe.value : probe.records.length === 1 ? probe.records[0] : undefined;
  if (isRec(doc)) {
    if (!Array.isArray(doc.messages)) return 0;
    const format = asString(doc.trajectory_format);
    if (format !== null && format.startsWith('mini-swe-agent')) return 0.99;
    const info = isRec(doc.info) ? doc.info : null;
    if (info && typeof info.mini_version === 'string') return 0.98;
    const config = info && isRec(info.config) ? info.config : null;
    if (config && /minisweagent/.test(String(config.agent_type ?? ''))) return 0.97;
    return 0;
  }
  if (Array.isArray(doc)) return bareMiniArray(doc) ? 0.95 : 0;
  return 0;
}

/**
 * The oldest layout has no envelope: only mini's own marks tell it from an OpenAI chat. A text
 * model's ```mswea_bash_command block, or a ```bash block answered by a `<returncode>` message.
 */
function bareMiniArray(list: readonly unknown[]): boolean {
  let bashBlock = false;
  for (const m of list.slice(0, PROBE_MESSAGES)) {
    if (!isRec(m) || typeof m.role !== 'string' || !('content' in m)) return false;
    const text = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'assistant') {
      if (blocksOf(text, 'mswea_bash_command').length > 0) return true;
      bashBlock = blocksOf(text, 'bash').length === 1;
    } else if (m.role === 'user' && bashBlock && text.trimStart().startsWith('<returncode>')) {
      return true;
    }
  }
  return false;
}

/**
 * The fenced blocks of one kind, as mini's own regex finds them: ```` ```kind\s*\n(.*?)\n``` ````
 * (a block must end with a newline before its closing fence). Returns each block's span and body.
 */
function blocksOf(text: string, fence: string): { start: number; end: number; command: string }[] {
  const re = new RegExp('```' + fence.replace(/[^\w-]/g, '') + '\\s*\\n([\\s\\S]*?)\\n```', 'g');
  const out: { start: number; end: number; command: string }[] = [];
  for (const m of text.matchAll(re)) out.push({ start: m.index, end: m.index + m[0].length, command: m[1]!.trim() });
  return out;
}

/** Which fence marks an action: the configured regex's, else mini's default for the version. */
function fenceOf(doc: Rec | null, messages: readonly unknown[]): string {
  const info = doc && isRec(doc.info) ? doc.info : null;
  const config = info && isRec(info.config) ? info.config : null;
  for (const holder of [config?.model, config?.agent]) {
    const regex = isRec(holder) ? asString(holder.action_regex) : null;
    const fence = regex ? /```([\w-]+)/.exec(regex)?.[1] : undefined;
    if (fence) return fence;
  }
  const version = info ? asString(info.mini_version) : null;
  if (version !== null) return Number(version.split('.')[0]) >= 2 ? 'mswea_bash_command' : 'bash';
  // No version (the bare array): whichever fence the assistant used.
  const used = messages.some((m) => isRec(m) && m.role === 'assistant' && typeof m.content === 'string' && m.content.includes('```mswea_bash_command'));
  return used ? 'mswea_bash_command' : 'bash';
}

class MiniSweAgentParser implements RecordParser {
  private runs = 0;

  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    const doc = isRec(value) ? value : null;
    const messages = doc ? doc.messages : value;
    if (!Array.isArray(messages)) {
      this.ctx.skip(line, 'not a mini-swe-agent trajectory: no "messages" list');
      return;
    }
    // A forced --input-format on a file of several documents: each is a run of its own.
    this.runs += 1;
    const key = `run:${this.runs}`;
    const instance = doc ? asString(doc.instance_id) : null;
    const sb = this.ctx.builder.session(key, { id: instance || runName(this.ctx.path) });
    new Run(sb, modelOf(doc), fenceOf(doc, messages)).read(messages);
    const usd = recordedCost(doc);
    if (usd !== null) sb.recordedCost({ usd, source: 'info.model_stats.instance_cost' });
    this.ctx.builder.endSession(key);
  }

  end(): void {}
}

/** The file name without `.traj.json` (mini names each run's file after its instance). */
function runName(filePath: string): string {
  return fileStem(filePath).replace(/\.traj$/i, '') || 'session';
}

/** What mini itself counted the run cost; 0 means it did not price the model, not a free run. */
function recordedCost(doc: Rec | null): number | null {
  const info = doc && isRec(doc.info) ? doc.info : null;
  const stats = info && isRec(info.model_stats) ? info.model_stats : null;
  const usd = stats ? asNumber(stats.instance_cost) : null;
  return usd !== null && usd > 0 ? usd : null;
}

function modelOf(doc: Rec | null): string | null {
  const info = doc && isRec(doc.info) ? doc.info : null;
  const config = info && isRec(info.config) ? info.config : null;
  const model = config && isRec(config.model) ? config.model : null;
  return (model && asString(model.model_name)) || null;
}

/** One trajectory's messages, read in order. */
class Run {
  private prompted = false;
  /** Call ids of the open round, in order; null for a text action (answered by position). */
  private calls: (string | null)[] = [];
  private answered = 0;
  /** The open round made no valid action: the next user message is mini's format-error notice. */
  private formatError = false;

  constructor(
    private readonly sb: SessionBuilder,
    private readonly model: string | null,
    private readonly fence: string,
  ) {}

  read(messages: readonly unknown[]): void {
    for (const m of messages) if (isRec(m)) this.message(m);
  }

  private message(m: Rec): void {
    // A Responses model (v2 litellm_response…): the whole Response is the assistant message, and
    // each command's observation a function_call_output.
    if (isResponseObject(m as unknown)) return this.responseMessage(m);
    if (m.type === 'function_call_output') return this.observation({ ...m, content: m.output }, callId(m));
    switch (m.role) {
      case 'assistant':
        return this.assistant(m);
      case 'tool':
        return this.observation(m, asString(m.tool_call_id));
      case 'user':
        return this.user(m);
      case 'exit':
        // The submission closes the run; it is what the final command printed.
        if (this.awaiting()) this.answerNext({ content: contentText(m.content), isError: false });
        return;
      default:
        // system prompt
        return;
    }
  }

  private user(m: Rec): void {
    const extra = isRec(m.extra) ? m.extra : null;
    const interrupt = extra ? asString(extra.interrupt_type) : null;
    if (interrupt === 'FormatError') return this.failedResponse(extra!);
    if (!this.prompted) {
      this.prompted = true;
      this.sb.userTurn(null);
      return;
    }
    if (this.formatError) {
      this.formatError = false;
      return;
    }
    if (interrupt === 'UserInterruption') {
      this.sb.userTurn(null);
      this.calls = [];
      return;
    }
    if (this.awaiting()) return this.observation(m, null);
    // Anything else (a limits notice, an exception mini reports back) informs the model; it is
    // neither the user speaking nor an answer.
  }

  /** Whether a call of the open round still waits for its observation. */
  private awaiting(): boolean {
    return this.calls.some((id) => id !== null && this.sb.awaits(id)) || this.calls.filter((id) => id === null).length > this.answered;
  }

  private answerNext(answer: ToolAnswer): void {
    const waiting = this.calls.find((id) => id !== null && this.sb.awaits(id));
    if (waiting !== undefined) {
      this.sb.answer(waiting, answer);
    } else if (this.calls.filter((id) => id === null).length > this.answered) {
      this.answered += 1;
      this.sb.answer(null, answer);
    }
  }

  private observation(m: Rec, id: string | null): void {
    const extra = isRec(m.extra) ? m.extra : null;
    const content = contentText(m.content);
    const code = extra && 'returncode' in extra ? asNumber(extra.returncode) : returnCodeIn(content);
    const answer = { content, isError: code !== null && code !== 0 };
    if (id !== null && this.sb.awaits(id)) this.sb.answer(id, answer);
    else this.answerNext(answer);
  }

  /** A new round; without a model in info.config, the one the response names. */
  private openRound(timestamp: unknown, response: Rec | null): void {
    const model = this.model ?? (response ? asString(response.model) : null);
    this.sb.round({ line: null, model, timestamp: timestampOf(timestamp) });
    this.calls = [];
    this.answered = 0;
    this.formatError = false;
  }

  private assistant(m: Rec): void {
    const extra = isRec(m.extra) ? m.extra : {};
    const response = isRec(extra.response) ? extra.response : null;
    this.openRound(extra.timestamp, response);
    // Reasoning on the message itself (v2 keeps the model's message), else in the raw response.
    const choice = response && Array.isArray(response.choices) && isRec(response.choices[0]) ? response.choices[0] : null;
    const raw = choice && isRec(choice.message) ? choice.message : null;
    const own = thinkingOf(m);
    for (const block of own.length > 0 ? own : raw ? thinkingOf(raw) : []) this.sb.thinking(block);
    const content = contentText(m.content);
    if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      this.sb.text(content.trim());
      for (const tc of m.tool_calls) this.toolCall(tc);
    } else if (Array.isArray(extra.actions) && extra.actions.length > 0) {
      // A text model under v2: the actions mini parsed are authoritative; the block stays prose-free.
      this.sb.text(withoutBlocks(content, blocksOf(content, this.fence)));
      for (const a of extra.actions) {
        if (!isRec(a)) continue;
        const id = asString(a.tool_call_id);
        this.calls.push(id);
        this.sb.call({ id, name: MINI_TOOL, arguments: { command: a.command ?? null } });
      }
    } else {
      const blocks = blocksOf(content, this.fence);
      if (blocks.length === 1) {
        this.sb.text(withoutBlocks(content, blocks));
        this.calls.push(null);
        this.sb.call({ id: null, name: MINI_TOOL, arguments: { command: blocks[0]!.command } });
      } else {
        // Zero or several blocks: mini refuses the response and runs nothing.
        this.sb.text(content.trim());
        this.formatError = true;
      }
    }
    this.usage(response);
  }

  private responseMessage(r: Rec): void {
    const extra = isRec(r.extra) ? r.extra : {};
    this.openRound(extra.timestamp ?? r.created_at, r);
    for (const item of r.output as unknown[]) {
      if (!isRec(item)) continue;
      if (item.type === 'reasoning') this.sb.thinking(reasoningBlock(item));
      else if (item.type === 'message') this.sb.text(contentTexts(item.content).join('\n').trim());
      else {
        const call = itemCall(item);
        if (!call) continue;
        this.calls.push(call.id);
        this.sb.call({ id: call.id, name: call.name, arguments: call.arguments });
      }
    }
    this.usage(r);
  }

  /** v2: a response mini refused is not kept as an assistant message, only inside the notice. */
  private failedResponse(extra: Rec): void {
    const response = isRec(extra.response) ? extra.response : null;
    this.openRound(null, response);
    const text = asString(extra.model_response);
    if (text) this.sb.text(text.trim());
    this.usage(response);
  }

  private toolCall(tc: unknown): void {
    if (!isRec(tc)) return;
    const fn = isRec(tc.function) ? tc.function : null;
    const id = asString(tc.id);
    this.calls.push(id);
    this.sb.call({ id, name: (fn && asString(fn.name)) || MINI_TOOL, arguments: parseJsonString(fn ? fn.arguments : tc.arguments) });
  }

  private usage(response: Rec | null): void {
    const usage: Partial<Usage> | null = response ? usageOf(response.usage) : null;
    if (usage) this.sb.usage(usage);
  }
}

/** The exit status mini printed, `<returncode>N</returncode>` at the top of an observation. */
function returnCodeIn(text: string): number | null {
  const m = /^\s*<returncode>(-?\d+)<\/returncode>/.exec(text);
  return m ? Number(m[1]) : null;
}

/** The text with the action blocks cut out: the prose the model wrote around its command. */
function withoutBlocks(text: string, blocks: readonly { start: number; end: number }[]): string {
  let out = '';
  let at = 0;
  for (const b of blocks) {
    out += text.slice(at, b.start);
    at = b.end;
  }
  return (out + text.slice(at)).trim();
}
