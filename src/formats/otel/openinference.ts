// OpenInference (Arize Phoenix's conventions): flattened, indexed keys. LLM spans carry
// `llm.output_messages.N.message.{content,tool_calls.M.tool_call.function.{name,arguments}}`,
// `llm.token_count.*` and `llm.model_name`; TOOL spans `tool.name`, `input.value`, `output.value`.
// Every LLM span repeats the whole history in its input messages: rounds come from outputs only.

import type { ToolAnswer } from '../../model/transcript.js';
import type { Rec } from '../shared/text.js';
import { ToolSpans, byTime, newRound, traceOf, type SessionDraft } from './draft.js';
import { toolAnswer, argumentsOf } from './genai.js';
import { attrString, type OtelItem } from './items.js';
import type { Producer } from './producer.js';
import { num } from './values.js';

/** `prefix.N.rest` keys as one object per N, in index order (`{rest: value}`). */
function indexed(attrs: Rec, prefix: string): Rec[] {
  const byIndex = new Map<number, Rec>();
  for (const [key, value] of Object.entries(attrs)) {
    if (!key.startsWith(prefix)) continue;
    const m = /^(\d+)\.(.+)$/.exec(key.slice(prefix.length));
    if (!m) continue;
    const n = Number(m[1]);
    let rec = byIndex.get(n);
    if (!rec) byIndex.set(n, (rec = Object.create(null) as Rec));
    rec[m[2]!] = value;
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
}

function kind(item: OtelItem): string {
  return String(item.attrs['openinference.span.kind'] ?? '').toUpperCase();
}

export const openinference: Producer = {
  name: 'openinference',
  verified: 'OpenInference semantic conventions (hand-written fixture modelled on Phoenix exports)',
  detection: 'spans with openinference.span.kind, or llm.output_messages.* / llm.model_name attributes',
  unrecorded: ['reasoning (OpenInference has no reasoning key)'],
  matches: (item) => 'openinference.span.kind' in item.attrs || 'llm.model_name' in item.attrs,
  read(items): SessionDraft {
    const draft: SessionDraft = { turns: [], rounds: [] };
    const answers = new Map<string, ToolAnswer>();
    for (const span of items) {
      if (span.kind !== 'span' || kind(span) !== 'LLM') continue;
      const r = newRound(span.start, span.line, traceOf(span));
      for (const m of indexed(span.attrs, 'llm.output_messages.')) {
        const content = m['message.content'];
        if (typeof content === 'string' && content.length > 0) r.text.push(content);
        for (const part of indexed(m, 'message.contents.')) if (typeof part['message_content.text'] === 'string') r.text.push(part['message_content.text']);
        for (const c of indexed(m, 'message.tool_calls.')) {
          const id = c['tool_call.id'];
          const name = c['tool_call.function.name'];
          r.calls.push({ id: typeof id === 'string' ? id : null, name: typeof name === 'string' ? name : 'unknown', arguments: argumentsOf(c['tool_call.function.arguments']) });
        }
      }
      const input = num(span.attrs['llm.token_count.prompt']);
      const output = num(span.attrs['llm.token_count.completion']);
      if (input !== null || output !== null) {
        r.usage = { inputTokens: input, outputTokens: output, reasoningTokens: num(span.attrs['llm.token_count.completion_details.reasoning']) };
        const cached = num(span.attrs['llm.token_count.prompt_details.cache_read']);
        if (cached !== null && input !== null) r.usage.cacheReadTokens = Math.min(cached, input);
      }
      r.model = attrString(span, 'llm.model_name');
      const inputs = indexed(span.attrs, 'llm.input_messages.');
      for (const m of inputs) {
        const id = m['message.tool_call_id'];
        if (m['message.role'] === 'tool' && typeof id === 'string' && !answers.has(id)) answers.set(id, { content: String(m['message.content'] ?? ''), isError: false });
      }
      const last = inputs[inputs.length - 1];
      if (last && last['message.role'] === 'user') draft.turns.push({ time: span.start, line: span.line });
      draft.rounds.push(r);
    }
    draft.rounds = byTime(draft.rounds);
    for (const r of draft.rounds) for (const c of r.calls) if (c.id !== null && answers.has(c.id)) r.answers.set(c.id, answers.get(c.id)!);
    const tools = new ToolSpans(draft.rounds);
    for (const { item: s } of byTime(items.filter((i) => i.kind === 'span' && kind(i) === 'TOOL').map((item) => ({ item, time: item.start })))) {
      tools.attach({
        id: attrString(s, 'tool_call.id', 'tool.id'),
        name: attrString(s, 'tool.name') ?? s.name,
        arguments: argumentsOf(s.attrs['tool.parameters'] ?? s.attrs['input.value'] ?? {}),
        answer: toolAnswer(s),
        time: s.start,
      });
    }
    return draft;
  },
};
