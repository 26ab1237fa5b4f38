// Claude Code's telemetry (verified with 2.1.328): log records `claude_code.api_request` (one per
// model response: model, tokens), `assistant_response` (its text), `tool_decision`/`tool_result`
// (the call: name, id, full input; success and error), `user_prompt`; spans `claude_code.interaction`
// (a user turn), `claude_code.llm_request` (a model response), `claude_code.tool` and its
// `tool.execution`. Logs carry the conversation; spans give each round its trace and span id.

import type { ToolAnswer } from '../../model/transcript.js';
import { usageOf } from '../shared/messages.js';
import { isRec } from '../shared/text.js';
import { byTime, nearestEnded, newRound, roundAt, traceOf, type RoundDraft, type SessionDraft } from './draft.js';
import { attrString, type OtelItem } from './items.js';
import { eventName, type Producer } from './producer.js';
import { bool, jsonish, num } from './values.js';

const PREFIX = 'claude_code.';

function event(item: OtelItem): string {
  return item.kind === 'log' ? eventName(item, PREFIX) : item.name;
}

function usage(item: OtelItem) {
  const a = item.attrs;
  return usageOf({
    input_tokens: num(a.input_tokens),
    output_tokens: num(a.output_tokens),
    cache_read_input_tokens: num(a.cache_read_tokens),
    cache_creation_input_tokens: num(a.cache_creation_tokens),
    cache_creation: { ephemeral_1h_input_tokens: num(a.cache_creation_1h_tokens) },
  });
}

function rounds(logs: readonly OtelItem[], spans: readonly OtelItem[]): RoundDraft[] {
  const llm = spans.filter((s) => s.name === 'claude_code.llm_request' && !Number.isNaN(s.end)).sort((a, b) => a.end - b.end);
  const requests = logs.filter((l) => event(l) === 'api_request');
  const used = new Set<OtelItem>();
  const source = requests.length > 0 ? requests : llm;
  return byTime(
    source.map((item) => {
      // A request is logged when its response has ended: it started `duration_ms` before.
      const duration = item.kind === 'log' ? (num(item.attrs.duration_ms) ?? 0) : 0;
      // The llm_request span that ended when the request was logged (and had begun by then).
      const span = item.kind === 'log' ? nearestEnded(llm, item.start, used, (s) => s.start <= item.start + 1) : item;
      const r = newRound(item.start - duration, item.line, traceOf(span ?? item));
      r.usage = usage(item);
      r.model = attrString(item, 'model', 'gen_ai.response.model', 'gen_ai.request.model');
      return r;
    }),
  );
}

function answerOf(item: OtelItem): ToolAnswer {
  const ok = bool(item.attrs.success);
  const output = attrString(item, 'tool_output', 'tool_result', 'output');
  const error = attrString(item, 'error');
  return { content: output ?? (ok === false ? (error ?? '') : ''), isError: ok === false };
}

function argumentsOf(item: OtelItem): unknown {
  const input = jsonish(item.attrs.tool_input ?? item.attrs['gen_ai.tool.call.arguments']);
  if (input !== undefined && input !== null) return input;
  const params = jsonish(item.attrs.tool_parameters);
  if (isRec(params) && typeof params.full_command === 'string') return { command: params.full_command };
  const command = attrString(item, 'full_command');
  return command !== null ? { command } : (params ?? {});
}

export const claudeCode: Producer = {
  name: 'claude-code',
  verified: '2.1.328 (fixtures/otel/claude-code-2.1.328)',
  detection: 'log records named claude_code.* (scope com.anthropic.claude_code.events) or spans claude_code.*',
  unrecorded: ['reasoning', 'tool output text (only the error message of a failed call)'],
  matches: (item) => item.name.startsWith(PREFIX) || item.scope.startsWith('com.anthropic.claude_code') || (typeof item.body === 'string' && item.body.startsWith(PREFIX)),
  read(items): SessionDraft {
    const logs = items.filter((i) => i.kind === 'log');
    const spans = items.filter((i) => i.kind === 'span');
    const draft: SessionDraft = { turns: [], rounds: rounds(logs, spans) };
    const prompts = logs.filter((l) => event(l) === 'user_prompt');
    const turnItems = prompts.length > 0 ? prompts : spans.filter((s) => s.name === 'claude_code.interaction');
    for (const t of turnItems) draft.turns.push({ time: t.start, line: t.line });
    const decided = new Map<string, number>();
    for (const l of logs) if (event(l) === 'tool_decision') decided.set(attrString(l, 'tool_use_id') ?? '', l.start);
    // A call is the model's, so it belongs to the response under way when it was decided.
    const results = logs.filter((l) => event(l) === 'tool_result');
    const callItems = results.length > 0 ? results : spans.filter((s) => s.name === 'claude_code.tool');
    const executions = new Map(spans.filter((s) => s.name === 'claude_code.tool.execution').map((s) => [attrString(s, 'tool_use_id', 'gen_ai.tool.call.id') ?? '', s]));
    for (const c of byTime(callItems.map((item) => ({ item, time: callTime(item, decided) })))) {
      const id = attrString(c.item, 'tool_use_id', 'gen_ai.tool.call.id');
      const round = roundAt(draft.rounds, c.time);
      if (!round) continue;
      round.calls.push({ id, name: attrString(c.item, 'tool_name', 'gen_ai.tool.name') ?? 'unknown', arguments: argumentsOf(c.item) });
      const answered = c.item.kind === 'log' ? c.item : (executions.get(id ?? '') ?? null);
      if (answered && id !== null) round.answers.set(id, answerOf(answered));
    }
    for (const l of logs) {
      if (event(l) !== 'assistant_response') continue;
      const text = attrString(l, 'response');
      if (text !== null) roundAt(draft.rounds, l.start)?.text.push(text);
    }
    return draft;
  },
};

function callTime(item: OtelItem, decided: Map<string, number>): number {
  const id = attrString(item, 'tool_use_id', 'gen_ai.tool.call.id');
  const at = id !== null ? decided.get(id) : undefined;
  if (at !== undefined) return at;
  return item.kind === 'log' ? item.start - (num(item.attrs.duration_ms) ?? 0) : item.start;
}
