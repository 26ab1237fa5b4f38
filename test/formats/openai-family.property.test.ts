// The five message-list adapters never throw, whatever JSON arrives in either mode, and always
// deliver a consistent event stream (RecordingSink throws on an event for an unknown session).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../src/formats/anthropic.js';
import { canonicalAdapter } from '../../src/formats/canonical.js';
import { chatgptAdapter } from '../../src/formats/chatgpt.js';
import { geminiAdapter } from '../../src/formats/gemini.js';
import { openaiAdapter } from '../../src/formats/openai.js';
import { TranscriptBuilder } from '../../src/model/builder.js';
import { RecordingSink } from '../helpers/record.js';

const j = fc.jsonValue({ maxDepth: 3 });
const s = fc.constantFrom('user', 'assistant', 'tool', 'function', 'system', 'model', 'gemini', 'info', 'session', 'tool_result', 'all', 'python', 'c1', 'g1');
const block = fc.record(
  { type: fc.constantFrom('text', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result'), id: s, tool_use_id: s, text: j, thinking: j, content: j, input: j },
  { requiredKeys: ['type'] },
);
const message = fc.record({
  role: s,
  type: s,
  id: s,
  content: fc.oneof(j, fc.array(block, { maxLength: 4 })),
  parts: fc.array(fc.oneof(j, fc.record({ text: j, thought: fc.boolean(), functionCall: fc.record({ id: s, name: s, args: j }), functionResponse: fc.record({ id: s, name: s, response: j }) })), { maxLength: 3 }),
  tool_calls: fc.array(fc.record({ id: s, function: fc.record({ name: s, arguments: fc.oneof(fc.string(), j) }), name: s, arguments: j }), { maxLength: 3 }),
  toolCalls: fc.array(fc.record({ id: s, name: s, args: j, status: fc.constantFrom('success', 'error', 'executing'), result: j }), { maxLength: 2 }),
  tool_call_id: s,
  reasoning: j,
  reasoning_content: j,
  thoughts: j,
  tokens: j,
  usage: j,
  text: j,
  thinking: j,
  is_error: j,
  $set: j,
  $rewindTo: s,
  sessionId: s,
  projectHash: s,
  recipient: s,
  author: fc.record({ role: s, name: s }),
});
const node = fc.record({ message: fc.oneof(message, j), parent: fc.oneof(s, j), children: fc.array(s) });
const conversation = fc.record({ mapping: fc.dictionary(s, node), current_node: fc.oneof(s, j), id: s });
const record = fc.oneof(j, message, fc.array(message, { maxLength: 4 }), fc.record({ messages: fc.array(fc.oneof(message, j), { maxLength: 5 }), model: j, response: j }), conversation, fc.array(conversation, { maxLength: 2 }));

describe.each([openaiAdapter, anthropicAdapter, geminiAdapter, chatgptAdapter, canonicalAdapter])('$name never throws', (adapter) => {
  it('on arbitrary records, in jsonl and document mode, and detect stays within [0, 1]', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 10 }), fc.boolean(), (records, asDocument) => {
        const sink = new RecordingSink();
        const builder = new TranscriptBuilder(sink, 'x.jsonl', adapter.name);
        const parser = adapter.open({ path: 'x.jsonl', builder, skip: () => {} });
        if (asDocument) parser.push(records, null);
        else records.forEach((r, i) => parser.push(r, i + 1));
        parser.end();
        builder.end();
        for (const session of sink.sessions) {
          expect(session.ended).toBe(true);
          session.rounds.forEach((r, i) => {
            expect(r.index).toBe(i + 1);
            if (r.answers) expect(r.answers).toHaveLength(r.calls.length);
          });
        }
        for (const score of [adapter.detect({ mode: 'jsonl', fileName: 'x', records }), adapter.detect({ mode: 'document', fileName: 'x', value: records })]) {
          expect(score).toBeGreaterThanOrEqual(0);
          expect(score).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 200 },
    );
  });
});
