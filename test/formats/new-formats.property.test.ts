// Properties of the 0.2 readers over generated runs: mini-swe-agent v1's positional pairing and
// OpenHands V1's cumulative usage.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { miniSweAgentAdapter } from '../../src/formats/mini-swe-agent.js';
import { openhandsAdapter } from '../../src/formats/openhands.js';
import { jsonl, parseWith } from '../helpers/record.js';

const command = fc.stringMatching(/^[a-z][a-z0-9 ._/-]{0,20}$/).filter((c) => c.trim() === c);

describe('mini-swe-agent v1: one call per response with exactly one ```bash block', () => {
  it('calls, answers and turns follow from the block counts, whatever the responses', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ blocks: fc.array(command, { maxLength: 3 }), output: fc.string({ maxLength: 20 }), code: fc.integer({ min: 0, max: 2 }) }), {
          maxLength: 12,
        }),
        (steps) => {
          const messages: unknown[] = [
            { role: 'system', content: 'one ```bash block per reply' },
            { role: 'user', content: 'the task' },
          ];
          for (const st of steps) {
            const body = st.blocks.map((b) => '```bash\n' + b + '\n```').join('\nand\n');
            messages.push({ role: 'assistant', content: `THOUGHT: step\n\n${body}` });
            // mini answers a valid action with its output, anything else with the format notice
            messages.push({
              role: 'user',
              content: st.blocks.length === 1 ? `<returncode>${st.code}</returncode>\n<output>\n${st.output}</output>` : 'Please always provide EXACTLY ONE action in triple backticks.',
            });
          }
          const doc = { trajectory_format: 'mini-swe-agent-1', info: { mini_version: '1.15.0' }, messages };
          const { sessions, skipped } = parseWith(miniSweAgentAdapter, JSON.stringify(doc), { mode: 'document', path: 'p.traj.json' });
          expect(skipped).toEqual([]);
          const s = sessions[0]!;
          expect(s.turns).toEqual([1]);
          expect(s.rounds).toHaveLength(steps.length);
          s.rounds.forEach((r, i) => {
            const st = steps[i]!;
            if (st.blocks.length === 1) {
              expect(r.calls).toEqual([{ id: null, name: 'bash', arguments: { command: st.blocks[0] } }]);
              expect(r.answers).toEqual([{ content: `<returncode>${st.code}</returncode>\n<output>\n${st.output}</output>`, isError: st.code !== 0 }]);
            } else {
              expect(r.calls).toEqual([]);
              expect(r.answers).toEqual([]);
            }
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('OpenHands V1: usage from cumulative stats', () => {
  it('each round gets the difference since the previous update, and the differences add up to the last total', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ input: fc.integer({ min: 1, max: 50_000 }), output: fc.integer({ min: 1, max: 4_000 }), calls: fc.integer({ min: 1, max: 3 }) }), {
          minLength: 1,
          maxLength: 10,
        }),
        (responses) => {
          const events: unknown[] = [{ id: 'u', source: 'user', kind: 'MessageEvent', llm_message: { role: 'user', content: [{ type: 'text', text: 'go' }] } }];
          let input = 0;
          let output = 0;
          responses.forEach((r, i) => {
            input += r.input;
            output += r.output;
            events.push({
              id: `s${i}`,
              source: 'environment',
              kind: 'ConversationStateUpdateEvent',
              key: 'stats',
              value: { usage_to_metrics: { default: { model_name: 'm', accumulated_token_usage: { prompt_tokens: input, completion_tokens: output } } } },
            });
            for (let c = 0; c < r.calls; c++) {
              events.push({ id: `a${i}-${c}`, source: 'agent', kind: 'ActionEvent', tool_name: 't', tool_call_id: `c${i}-${c}`, llm_response_id: `r${i}`, action: { command: `x${c}` } });
            }
            for (let c = 0; c < r.calls; c++) {
              events.push({ id: `o${i}-${c}`, source: 'environment', kind: 'ObservationEvent', tool_call_id: `c${i}-${c}`, observation: { content: [{ type: 'text', text: 'ok' }] } });
            }
          });
          const s = parseWith(openhandsAdapter, jsonl(events), { path: 'e.jsonl' }).sessions[0]!;
          expect(s.rounds.map((r) => [r.calls.length, r.usage?.inputTokens, r.usage?.outputTokens])).toEqual(responses.map((r) => [r.calls, r.input, r.output]));
          expect(s.rounds.reduce((n, r) => n + (r.usage?.inputTokens ?? 0), 0)).toBe(input);
          expect(s.rounds.every((r) => r.answers !== null && r.model === 'm')).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});
