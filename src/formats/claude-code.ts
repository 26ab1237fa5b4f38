// Claude Code session JSONL (~/.claude/projects/<project>/<sessionId>.jsonl and the sub-agent
// files beside it). Claude Code writes one line per content block, so a model response is the
// run of assistant lines sharing `message.id`; tool results come back inside user lines.

import type { SessionBuilder } from '../model/builder.js';
import { subagentFile } from '../read/stores.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';
import { asNumber, asString, fileStem, flattenContent, isRec, type Rec } from './shared/text.js';
import { documentScore, isStreamRecord, resultCost, streamScore } from './claude-stream.js';

/**
 * Record types that carry no conversation. Listed only to recognize a file made solely of them;
 * the parser skips every type other than user/assistant, known or not, without reporting it.
 */
const SIDE_TYPES = new Set([
  'file-history-snapshot',
  'summary',
  'system',
  'progress',
  'queue-operation',
  'attachment',
  'permission-mode',
  'mode',
  'agent-name',
  'custom-title',
  'ai-title',
  'last-prompt',
  'frame-link',
  'pr-link',
  'worktree-state',
  'bridge-session',
]);

/**
 * User lines whose text opens with one of these tags are written by Claude Code itself (slash
 * commands and their output, `!` shell escapes, background-task notices), not typed as a prompt
 * the model answers: they are not turns.
 */
const INJECTED_TAGS = [
  '<system-reminder>',
  '<command-name>',
  '<command-message>',
  '<command-args>',
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<local-command-caveat>',
  '<bash-input>',
  '<bash-stdout>',
  '<bash-stderr>',
  '<task-notification>',
  '<user-memory-input>',
];

/**
 * Whether `s` is shaped like a UUID (8-4-4-4-12 hex digits, either case): a length check and a
 * test per character, read on every line, where a regular expression cost twice as much.
 */
function isUuidShaped(s: string): boolean {
  if (s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 0x2d) return false;
    } else if (!((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66))) {
      return false;
    }
  }
  return true;
}

/**
 * A UUID as a 53-bit number (two 32-bit FNV-1a hashes of its text, 21 + 32 bits). Kept instead of
 * the 36-character string, which costs about 40 bytes more per line held (a million-line file
 * holds a million of them). Two different UUIDs share a key with odds of about n²/2^54 (one in ten
 * thousand for a file of a million lines), and then one line is read once too few.
 */
function uuidKey(uuid: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < uuid.length; i++) {
    const c = uuid.charCodeAt(i) | 0x20; // case-insensitive, as UUIDs are
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 11) * 2 ** 32 + (b >>> 0);
}

/** Written by Claude Code when the user presses Esc: marks an interruption, asks for nothing. */
const INTERRUPTED = '[Request interrupted by user';

/** The model name Claude Code gives to messages it makes up itself (API errors, aborts). */
const SYNTHETIC_MODEL = '<synthetic>';

const CALL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

function detect(probe: Probe): number {
  if (probe.mode === 'document') return isAgentManifest(probe.value) ? 0.6 : documentScore(probe.value);
  // A one-line manifest may be probed as JSONL too.
  if (probe.records.length === 1 && isAgentManifest(probe.records[0])) return 0.6;
  let conversation = 0;
  let side = 0;
  for (const r of probe.records) {
    if (!isRec(r)) continue;
    const type = asString(r.type);
    if (!type) continue;
    if ((type === 'user' || type === 'assistant') && isRec(r.message)) {
      if ('sessionId' in r || 'uuid' in r || 'parentUuid' in r) conversation += 1;
    } else if (SIDE_TYPES.has(type) && ('sessionId' in r || 'uuid' in r || 'leafUuid' in r || 'messageId' in r)) {
      side += 1;
    }
  }
  if (conversation > 0) return 0.95;
  const stream = streamScore(probe.records);
  if (stream > 0) return stream;
  // A file of only side records (a session with no exchange yet) is still Claude Code's.
  if (side > 0) return 0.6;
  return 0;
}

/**
 * Claude Code 2.1 writes `agent-<id>.meta.json` ({agentType, description, …}) beside each
 * sub-agent's JSONL. It carries no conversation; claiming it keeps a scan of
 * ~/.claude/projects from reporting every manifest as an unknown format.
 */
function isAgentManifest(value: unknown): boolean {
  return isRec(value) && typeof value.agentType === 'string' && ('description' in value || 'spawnDepth' in value || 'toolUseId' in value) && !('messages' in value);
}

class ClaudeCodeParser implements RecordParser {
  /** stream-json: the init line's session id and model (user lines may lack the id). */
  private stream: { sessionId: string | null; model: string | null } = { sessionId: null, model: null };
  /** Per session, the message id whose usage is being read and the ids already counted. */
  private readonly requests = new Map<SessionBuilder, { current: string | null; done: Set<string> }>();
  /** Claude Code 2.1 keeps each sub-agent in `<session>/subagents/agent-<id>.jsonl`. */
  private readonly subagent: { parent: string; agentId: string } | null;
  /** Conversation lines' uuids seen so far, per session id. */
  private readonly seen = new Map<string, Set<number>>();

  constructor(private readonly ctx: AdapterContext) {
    this.subagent = subagentFile(ctx.path);
  }

  push(value: unknown, line: number | null): void {
    // stream-json saved as one JSON array, and the web export's loglines: each element a record.
    if (Array.isArray(value)) {
      for (const r of value) this.push(r, line);
      return;
    }
    if (isRec(value) && Array.isArray(value.loglines)) {
      for (const r of value.loglines) this.push(r, line);
      return;
    }
    if (!isRec(value)) {
      this.ctx.skip(line, 'claude-code: line is not a JSON object');
      return;
    }
    const type = value.type;
    if ((type === 'system' || type === 'result') && isStreamRecord(value)) {
      this.streamRecord(value);
      return;
    }
    if (type !== 'attachment' && type !== 'user' && type !== 'assistant') {
      this.stampKnown(value);
      return;
    }
    if (this.repeated(value)) return;
    if (type === 'attachment') {
      this.attachment(value, line);
      return;
    }
    const message = value.message;
    if (!isRec(message)) {
      this.ctx.skip(line, `claude-code: ${type} record without a message object`);
      return;
    }
    const session = this.sessionFor(value);
    session.at(asString(value.timestamp));
    if (type === 'assistant') this.assistant(session, value, message, line);
    else this.user(session, value, message, line);
  }

  end(): void {}

  /** stream-json's first and last lines: the session's id and model, and its recorded result. */
  private streamRecord(r: Rec): void {
    const id = nonEmpty(r.session_id);
    if (r.type === 'system') {
      this.stream = { sessionId: id ?? this.stream.sessionId, model: nonEmpty(r.model) ?? this.stream.model };
      return;
    }
    const usd = resultCost(r);
    if (usd === null) return;
    const sessionId = id ?? this.stream.sessionId ?? fileStem(this.ctx.path);
    this.ctx.builder.session(sessionId).recordedCost({ usd, source: 'result.total_cost_usd' });
  }

  /**
   * A resumed session starts by copying its history, lines and uuids unchanged: a line whose uuid
   * was already read for the same session is that copy, and counts once (SPEC: "Claude Code lines
   * repeated with the same uuid count once"). Replayed, the copy would double every round and
   * make each of its tool batches look repeated. Only a value shaped like a UUID (what Claude Code
   * writes) identifies a line: a placeholder shared by many lines (a trimmed fixture's) does not.
   */
  private repeated(r: Rec): boolean {
    const uuid = r.uuid;
    if (typeof uuid !== 'string' || !isUuidShaped(uuid)) return false;
    const session = nonEmpty(r.sessionId) ?? '';
    let uuids = this.seen.get(session);
    if (!uuids) {
      uuids = new Set();
      this.seen.set(session, uuids);
    }
    const key = uuidKey(uuid);
    if (uuids.has(key)) return true;
    uuids.add(key);
    return false;
  }

  /**
   * Attachments are context Claude Code adds to the next request and are skipped, except a
   * prompt the user typed while the agent was working (`queued_command` in prompt mode): it
   * reaches the model mid-turn, but it is the user stepping in, so it opens a turn.
   */
  private attachment(r: Rec, line: number | null): void {
    const a = r.attachment;
    if (!isRec(a) || a.type !== 'queued_command' || a.commandMode !== 'prompt' || a.isMeta === true) return;
    this.sessionFor(r).userTurn(line);
  }

  /** A system or other record of a session already open: its time still says when the session ran. */
  private stampKnown(r: Rec): void {
    const id = nonEmpty(r.sessionId);
    if (id !== null && r.isSidechain !== true && this.subagent === null && this.ctx.builder.has(id)) this.ctx.builder.session(id).at(asString(r.timestamp));
  }

  /**
   * Sidechain lines are a sub-agent's thread: their own session, named after the main one.
   * `isSidechain` decides; `agentId` alone only when `isSidechain` is absent (a main-chain line
   * may carry an agent's attribution without being a sub-agent's thread).
   */
  private sessionFor(r: Rec): SessionBuilder {
    const file = this.subagent;
    const sessionId = nonEmpty(r.sessionId) ?? nonEmpty(r.session_id) ?? this.stream.sessionId ?? file?.parent ?? fileStem(this.ctx.path);
    // stream-json: a sub-agent's (Task) traffic names the tool call that started it.
    const parentTool = nonEmpty(r.parent_tool_use_id);
    if (parentTool !== null) return this.ctx.builder.session(`${sessionId}/${parentTool}`, { parent: sessionId });
    const agentId = nonEmpty(r.agentId) ?? file?.agentId ?? null;
    // A file in a `subagents` folder is a sub-agent's thread whatever its lines say.
    const sidechain = file !== null || r.isSidechain === true || (r.isSidechain === undefined && agentId !== null);
    if (!sidechain) return this.ctx.builder.session(sessionId);
    const id = agentId !== null ? `${sessionId}/agent-${agentId}` : `${sessionId}/sidechain`;
    return this.ctx.builder.session(id, { parent: sessionId });
  }

  private assistant(session: SessionBuilder, r: Rec, message: Rec, line: number | null): void {
    const model = asString(message.model) ?? this.stream.model;
    if (model === SYNTHETIC_MODEL) return;
    const key = nonEmpty(message.id);
    session.round({
      key,
      line,
      model,
      timestamp: asString(r.timestamp),
    });
    const content = message.content;
    if (typeof content === 'string') {
      session.text(content);
    } else if (Array.isArray(content)) {
      for (const block of content) {
        if (isRec(block)) this.assistantBlock(session, block);
      }
    }
    const usage = message.usage;
    if (isRec(usage) && this.firstSighting(session, key)) {
      const input = asNumber(usage.input_tokens);
      // input_tokens leaves out the cached part of the prompt; the prompt is all three.
      const cacheRead = asNumber(usage.cache_read_input_tokens) ?? 0;
      const cacheWrite = asNumber(usage.cache_creation_input_tokens) ?? 0;
      const creation = isRec(usage.cache_creation) ? usage.cache_creation : null;
      const cacheWrite1h = creation ? asNumber(creation.ephemeral_1h_input_tokens) : null;
      const details = isRec(usage.output_tokens_details) ? usage.output_tokens_details : null;
      // Each line of a round repeats the round's usage, growing while it streams: one request,
      // counted once, at the largest usage seen (never the sum).
      session.usage(
        {
          inputTokens: input === null ? null : input + cacheRead + cacheWrite,
          outputTokens: asNumber(usage.output_tokens),
          reasoningTokens: details ? asNumber(details.thinking_tokens) : null,
          ...(input !== null ? { cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite } : {}),
          ...(input !== null && cacheWrite1h !== null ? { cacheWrite1hTokens: Math.min(cacheWrite1h, cacheWrite) } : {}),
        },
        'largest',
      );
    }
  }

  /**
   * Whether usage under message id `key` may be counted: not when that request's round was already
   * released and the id turns up again later (a copied line), or its tokens would count twice.
   */
  private firstSighting(session: SessionBuilder, key: string | null): boolean {
    if (key === null) return true;
    let seen = this.requests.get(session);
    if (!seen) {
      seen = { current: null, done: new Set() };
      this.requests.set(session, seen);
    }
    if (seen.current === key) return true;
    if (seen.done.has(key)) return false;
    if (seen.current !== null) seen.done.add(seen.current);
    seen.current = key;
    return true;
  }

  private assistantBlock(session: SessionBuilder, block: Rec): void {
    const type = asString(block.type);
    if (type === 'text') {
      const text = asString(block.text);
      if (text) session.text(text);
    } else if (type === 'thinking') {
      const text = asString(block.thinking);
      // An empty thinking block with only a signature is reasoning the log does not show.
      session.thinking(text ? { text, opaque: false } : { text: null, opaque: true });
    } else if (type === 'redacted_thinking') {
      session.thinking({ text: null, opaque: true });
    } else if (type !== null && CALL_BLOCKS.has(type)) {
      session.call({
        id: nonEmpty(block.id),
        name: asString(block.name) ?? 'unknown',
        arguments: block.input === undefined ? null : block.input,
      });
    } else if (type !== null && type.endsWith('_tool_result')) {
      // Server tools (web search, code execution) answer inside the same assistant message.
      session.answer(nonEmpty(block.tool_use_id), {
        content: flattenContent(block.content),
        isError: block.is_error === true || (isRec(block.content) && typeof block.content.error_code === 'string'),
      });
    }
  }

  private user(session: SessionBuilder, r: Rec, message: Rec, line: number | null): void {
    const content = message.content;
    const texts: string[] = [];
    let other = false;
    if (typeof content === 'string') {
      texts.push(content);
    } else if (Array.isArray(content)) {
      for (const block of content) {
        if (!isRec(block)) continue;
        const type = asString(block.type);
        if (type === 'tool_result') {
          // Answers are read even on isMeta lines: Claude Code marks some tool results meta.
          session.answer(nonEmpty(block.tool_use_id), {
            content: flattenContent(block.content),
            isError: block.is_error === true,
          });
        } else if (type === 'text') {
          const text = asString(block.text);
          if (text !== null) texts.push(text);
        } else if (type !== null) {
          other = true; // an image or document the user attached
        }
      }
    }
    // The user pressed Esc: a weak label that what ran before was not worth waiting for.
    if (r.isMeta !== true && texts.some((t) => t.trimStart().startsWith(INTERRUPTED))) session.interrupt(line);
    if (isRealPrompt(r, texts, other)) session.userTurn(line);
  }
}

function isRealPrompt(r: Rec, texts: string[], other: boolean): boolean {
  if (r.isMeta === true || r.isCompactSummary === true || r.isVisibleInTranscriptOnly === true) return false;
  const visible = texts.map((t) => t.trim()).filter((t) => t.length > 0);
  // A line of only tool results carries no prompt.
  if (visible.length === 0) return other;
  if (visible.every((t) => t.startsWith(INTERRUPTED) || INJECTED_TAGS.some((tag) => t.startsWith(tag)))) return other;
  return true;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

export const claudeCodeAdapter: FormatAdapter = {
  name: 'claude-code',
  description:
    'Claude Code session JSONL (one line per content block; sub-agent sidechains as their own sessions), `claude -p --output-format stream-json` (JSONL or a JSON array; parent_tool_use_id traffic as sub-agent sessions) and {"loglines": [...]} web exports',
  detection:
    'JSONL whose records have type user/assistant with a `message` and sessionId/uuid/parentUuid, or only Claude Code side records (file-history-snapshot, summary, queue-operation…); stream-json: a system/init record with session_id, or user/assistant records with snake-case session_id; a document whose "loglines" hold user/assistant records',
  detect,
  open: (ctx) => new ClaudeCodeParser(ctx),
};
