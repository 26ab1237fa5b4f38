// Codex's telemetry (verified with 0.169.0, `[otel]` exporter otlp-http, json): log records
// `codex.api_request` (a request to the model), `codex.sse_event` (`response.completed` carries the
// token counts), `codex.tool_decision`/`codex.tool_result` (call id, name, arguments, output
// snippet, success), `codex.user_prompt`; `conversation.id` on each. No assistant text, no reasoning.

import { usageOf } from '../shared/messages.js';
import { toolAnswer } from '../shared/response-items.js';
import { byTime, newRound, roundAt, traceOf, type SessionDraft } from './draft.js';
import { attrString } from './items.js';
import { eventName, type Producer } from './producer.js';
import { bool, jsonish, num } from './values.js';

const PREFIX = 'codex.';

export const codex: Producer = {
  name: 'codex',
  verified: '0.169.0 (fixtures/otel/codex-0.169.0)',
  detection: 'log records whose event.name starts with codex. (codex.api_request, codex.tool_result…)',
  unrecorded: ['assistant text', 'reasoning'],
  matches: (item) => item.kind === 'log' && item.name.startsWith(PREFIX),
  read(items): SessionDraft {
    const logs = byTime(items.filter((i) => i.kind === 'log').map((item) => ({ item, time: item.start }))).map((x) => x.item);
    const draft: SessionDraft = { turns: [], rounds: [] };
    for (const l of logs) {
      const name = eventName(l, PREFIX);
      if (name === 'user_prompt') draft.turns.push({ time: l.start, line: l.line });
      else if (name === 'api_request') {
        const r = newRound(l.start, l.line, traceOf(l));
        r.model = attrString(l, 'model', 'slug');
        draft.rounds.push(r);
      }
    }
    for (const l of logs) {
      const name = eventName(l, PREFIX);
      const round = roundAt(draft.rounds, l.start);
      if (!round) continue;
      if (name === 'sse_event' && l.attrs['event.kind'] === 'response.completed' && num(l.attrs.input_token_count) !== null) {
        round.usage = usageOf({
          input_tokens: num(l.attrs.input_token_count),
          output_tokens: num(l.attrs.output_token_count),
          input_tokens_details: { cached_tokens: num(l.attrs.cached_token_count) },
          output_tokens_details: { reasoning_tokens: num(l.attrs.reasoning_token_count) },
        });
      } else if (name === 'tool_result') {
        const id = attrString(l, 'call_id');
        round.calls.push({ id, name: attrString(l, 'tool_name') ?? 'unknown', arguments: jsonish(l.attrs.arguments ?? {}) });
        // Codex's own header (chunk id, wall time) is dropped and the exit code read, as from its rollout.
        const answer = toolAnswer({ output: attrString(l, 'output') ?? '', success: bool(l.attrs.success) });
        if (id !== null) round.answers.set(id, answer);
        else round.positional.push(answer);
      }
    }
    return draft;
  },
};
