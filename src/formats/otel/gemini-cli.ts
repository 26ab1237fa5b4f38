// Gemini CLI's telemetry outfile (verified with 0.61.0, `telemetry.target: local`): pretty-printed
// JS SDK objects one after another. Log records `gemini_cli.api_response` (one per model response:
// its text, thoughts and function calls in `response_text`, token counts), `gemini_cli.tool_call`
// (name, arguments, success, error: no output text), `gemini_cli.user_prompt`; spans `llm_call`.

import type { ToolAnswer } from '../../model/transcript.js';
import { isRec } from '../shared/text.js';
import { byTime, nearestEnded, newRound, roundAt, traceOf, type RoundDraft, type SessionDraft } from './draft.js';
import { attrString, type OtelItem } from './items.js';
import { eventName, type Producer } from './producer.js';
import { bool, jsonish, num } from './values.js';

const PREFIX = 'gemini_cli.';

function partsOf(responseText: unknown): unknown[] {
  const chunks = jsonish(responseText);
  const out: unknown[] = [];
  for (const chunk of Array.isArray(chunks) ? chunks : [chunks]) {
    const content = isRec(chunk) && Array.isArray(chunk.candidates) && isRec(chunk.candidates[0]) ? chunk.candidates[0].content : null;
    if (isRec(content) && Array.isArray(content.parts)) out.push(...content.parts);
  }
  return out;
}

function fillRound(r: RoundDraft, item: OtelItem): void {
  for (const p of partsOf(item.attrs.response_text)) {
    if (!isRec(p)) continue;
    if (isRec(p.functionCall)) {
      const fc = p.functionCall;
      r.calls.push({ id: typeof fc.id === 'string' ? fc.id : null, name: typeof fc.name === 'string' ? fc.name : 'unknown', arguments: jsonish(fc.args ?? {}) });
    } else if (typeof p.text === 'string') {
      if (p.thought === true) r.thinking.push({ text: p.text, opaque: false });
      else r.text.push(p.text);
    }
  }
  const output = num(item.attrs.output_token_count);
  const thoughts = num(item.attrs.thoughts_token_count);
  const input = num(item.attrs.input_token_count);
  const cached = num(item.attrs.cached_content_token_count);
  // Google bills thoughts as output, as the gemini reader counts them.
  if (input !== null || output !== null) {
    r.usage = { inputTokens: input, outputTokens: output === null ? null : output + (thoughts ?? 0), reasoningTokens: thoughts };
    if (cached !== null && input !== null) r.usage.cacheReadTokens = Math.min(cached, input);
  }
  r.model = attrString(item, 'model');
}

function answerOf(item: OtelItem): ToolAnswer {
  const meta = jsonish(item.attrs.metadata);
  const failed = bool(item.attrs.success) === false || (isRec(meta) && meta.isError === true) || attrString(item, 'error') !== null;
  return { content: attrString(item, 'error') ?? '', isError: failed };
}

export const geminiCli: Producer = {
  name: 'gemini-cli',
  verified: '0.61.0 (fixtures/otel/gemini-0.61.0)',
  detection: 'log records named gemini_cli.* (the telemetry outfile, or OTLP); spans of scope gemini-cli',
  unrecorded: ['tool output text (only whether it failed, and its error)'],
  matches: (item) => item.name.startsWith(PREFIX) || item.scope === 'gemini-cli',
  read(items): SessionDraft {
    const logs = items.filter((i) => i.kind === 'log');
    const llm = items.filter((i) => i.kind === 'span' && i.name === 'llm_call' && !Number.isNaN(i.end)).sort((a, b) => a.end - b.end);
    const used = new Set<OtelItem>();
    const draft: SessionDraft = { turns: [], rounds: [] };
    for (const l of logs) {
      const name = eventName(l, PREFIX);
      if (name === 'user_prompt') draft.turns.push({ time: l.start, line: l.line });
      if (name !== 'api_response') continue;
      // Logged when the response has ended: it began `duration_ms` before.
      const start = l.start - (num(l.attrs.duration_ms) ?? 0);
      // The llm_call span that ended as the response was logged and began with it.
      const span = nearestEnded(llm, l.start, used, (s) => s.start <= l.start && s.start >= start - 50);
      const r = newRound(start, l.line, traceOf(span ?? l));
      fillRound(r, l);
      draft.rounds.push(r);
    }
    draft.rounds = byTime(draft.rounds);
    // A tool_call record names no call id: it answers the first unanswered call of that name in its round.
    const taken = new Set<string>();
    for (const { item } of byTime(logs.filter((l) => eventName(l, PREFIX) === 'tool_call').map((item) => ({ item, time: item.start - (num(item.attrs.duration_ms) ?? 0) })))) {
      const round = roundAt(draft.rounds, item.start - (num(item.attrs.duration_ms) ?? 0));
      if (!round) continue;
      const name = attrString(item, 'function_name');
      const index = round.calls.findIndex((c, i) => c.name === name && !taken.has(`${round.time}:${i}`));
      if (index < 0) continue;
      taken.add(`${round.time}:${index}`);
      const call = round.calls[index]!;
      if (call.id !== null) round.answers.set(call.id, answerOf(item));
      else round.positional.push(answerOf(item));
    }
    return draft;
  },
};
