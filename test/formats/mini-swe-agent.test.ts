import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { audit } from '../../src/run/audit.js';
import { ADAPTERS, detectFormat } from '../../src/formats/index.js';
import { ingestFile } from '../../src/formats/ingest.js';
import { miniSweAgentAdapter } from '../../src/formats/mini-swe-agent.js';
import type { Probe } from '../../src/formats/types.js';
import type { RecordedCost } from '../../src/model/transcript.js';
import { RecordingSink, parseWith } from '../helpers/record.js';

const dir = path.resolve(import.meta.dirname, '../../fixtures/mini-swe-agent');
const V1 = path.join(dir, 'acme__cfgload-212.traj.json');
const V2 = path.join(dir, 'textkit-slug.traj.json');
const doc = (value: unknown, file = 'run.traj.json') => parseWith(miniSweAgentAdapter, JSON.stringify(value), { mode: 'document', path: `/runs/${file}` });
const probe = (value: unknown): Probe => ({ mode: 'document', fileName: 'x.json', value });

class CostSink extends RecordingSink {
  readonly costs: RecordedCost[] = [];
  recordedCost(_id: string, cost: RecordedCost): void {
    this.costs.push(cost);
  }
}

describe('mini-swe-agent v1 (fixture acme__cfgload-212: a no-op sed sent four times)', () => {
  it('one session named by instance_id, one turn, one bash call per valid response answered by the next user message', async () => {
    const sink = new CostSink();
    const summary = await ingestFile(V1, sink);
    expect(summary).toMatchObject({ format: 'mini-swe-agent', sessions: 1, skipped: [] });
    const s = sink.sessions[0]!;
    expect(s.info).toMatchObject({ id: 'acme__cfgload-212', parent: null });
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => r.calls.length)).toEqual([1, 1, 1, 1, 1, 0, 1, 1, 1, 1]);
    const sed = { id: null, name: 'bash', arguments: { command: "sed -i 's/max_retires/max_retries/' src/cfgload/reader.py" } };
    expect(s.rounds.slice(1, 5).map((r) => r.calls[0])).toEqual([sed, sed, sed, sed]);
    expect(s.rounds.slice(1, 5).map((r) => r.answers)).toEqual(Array(4).fill([{ content: '<returncode>0</returncode>\n<output>\n</output>', isError: false }]));
    // the text is the THOUGHT without the fenced command
    expect(s.rounds[1]!.text).toBe('THOUGHT: Replace the misspelled key with the right one.');
    expect(sink.costs).toEqual([{ usd: 0.0421, source: 'info.model_stats.instance_cost' }]);
  });

  it('two blocks are a format error: the round has no call, and the notice after it is neither an answer nor a turn', () => {
    const { sessions } = parseWith(miniSweAgentAdapter, fs.readFileSync(V1, 'utf8'), { mode: 'document', path: V1 });
    const s = sessions[0]!;
    const refused = s.rounds[5]!;
    expect(refused.calls).toEqual([]);
    expect(refused.answers).toEqual([]);
    expect(refused.text).toContain('```bash');
    // the next round's answer is its own command's output, not the notice
    expect(s.rounds[6]!.answers![0]!.content).toMatch(/^<returncode>0<\/returncode>\n<output>\n {4}10\tdef load/);
    expect(s.turns).toEqual([1]);
  });

  it('a ```python excerpt beside the ```bash block is prose; <returncode>1 is an error; the submission answers the COMPLETE command', () => {
    const { sessions } = parseWith(miniSweAgentAdapter, fs.readFileSync(V1, 'utf8'), { mode: 'document', path: V1 });
    const s = sessions[0]!;
    expect(s.rounds[8]!.calls[0]!.arguments).toEqual({ command: 'python -m pytest tests/test_reader.py -q' });
    expect(s.rounds[8]!.text).toContain('```python');
    expect(s.rounds[8]!.answers![0]!.isError).toBe(true);
    expect(s.rounds[9]!.answers![0]!.content).toMatch(/^diff --git/);
  });

  it('model from info.config, usage and reasoning (text and encrypted) from extra.response', () => {
    const { sessions } = parseWith(miniSweAgentAdapter, fs.readFileSync(V1, 'utf8'), { mode: 'document', path: V1 });
    const r = sessions[0]!.rounds[0]!;
    expect(r.model).toBe('openrouter/example-labs/coder-large');
    expect(r.usage).toEqual({ inputTokens: 2410, outputTokens: 96, reasoningTokens: 40, cacheReadTokens: 0 });
    expect(r.thinking).toEqual([
      { text: 'The key name is probably a string literal in the reader module; a grep will show it.', opaque: false },
      { text: null, opaque: true },
    ]);
  });

  it('the ledger stops the third identical sed (round 4) under enforce', async () => {
    const report = await audit([V1], { jobs: 1 });
    const s = report.sessions[0]!;
    expect(s).toMatchObject({ format: 'mini-swe-agent', turns: 1, rounds: 10, tool_calls: 9, model: 'openrouter/example-labs/coder-large' });
    expect(s.recorded_cost).toEqual({ usd: 0.0421, source: 'info.model_stats.instance_cost' });
    // rounds 5 (the same sed) and 6 (a format error) are the loop going on; round 7's `nl -ba` gets a new answer
    expect(s.outcome.enforce.stops).toEqual([{ turn: 1, round: 4, recovered_at: 7 }]);
    expect(s.entries.map((e) => [e.round, e.detector, e.intervention.enforce, e.after_stop])).toEqual([
      [3, 'tool_batch', 'noted', false],
      [4, 'tool_batch', 'stop', false],
      [5, 'tool_batch', 'none', true],
    ]);
  });
});

describe('mini-swe-agent v2 (fixture textkit-slug: tool calls)', () => {
  const read = () => parseWith(miniSweAgentAdapter, fs.readFileSync(V2, 'utf8'), { mode: 'document', path: V2 }).sessions[0]!;

  it('a parallel batch answered out of order by tool_call_id; returncode 1 an error; named after the file without .traj.json', () => {
    const s = read();
    expect(s.info.id).toBe('textkit-slug');
    expect(s.rounds[0]!.calls.map((c) => [c.id, c.name])).toEqual([
      ['toolu_ex01', 'bash'],
      ['toolu_ex02', 'bash'],
    ]);
    expect(s.rounds[0]!.answers!.map((a) => a.content)).toEqual([
      '<returncode>0</returncode>\n<output>\n7:def slugify(text):\n8:    out = re.sub(r\'[^a-z0-9]+\', \'-\', text.lower())\n9:    return out\n</output>',
      '<returncode>0</returncode>\n<output>\ntest_slug.py\n</output>',
    ]);
    expect(s.rounds[1]!.answers![0]!.isError).toBe(true);
  });

  it('a refused response (interrupt_type FormatError) is a round without calls, with the text mini kept and its usage; not a turn', () => {
    const s = read();
    expect(s.turns).toEqual([1]);
    const refused = s.rounds[2]!;
    expect(refused).toMatchObject({ calls: [], answers: [], text: 'The module is not installed; I believe the fix is simply to strip dashes.' });
    expect(refused.usage).toEqual({ inputTokens: 2301, outputTokens: 41, reasoningTokens: null, cacheReadTokens: 2112, cacheWriteTokens: 0 });
  });

  it('the exit message answers the submission; per-round timestamps and model', () => {
    const s = read();
    expect(s.rounds).toHaveLength(5);
    expect(s.rounds[4]!.answers![0]!.content).toMatch(/^diff --git a\/src\/textkit\/slug\.py/);
    expect(s.rounds[0]!.timestamp).toBe(new Date(1771000001500).toISOString());
    expect(s.rounds.every((r) => r.model === 'anthropic/claude-example-4')).toBe(true);
  });

  it('Responses-model runs: the Response object is the assistant message, function_call_output its observation', () => {
    const { sessions } = doc({
      trajectory_format: 'mini-swe-agent-1.1',
      info: { mini_version: '2.3.0', config: { model: { model_name: 'openai/gpt-example' } } },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'task' },
        {
          object: 'response',
          id: 'resp_1',
          model: 'gpt-example',
          output: [
            { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'look first' }] },
            { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'bash', arguments: '{"command": "ls"}' },
          ],
          usage: { input_tokens: 900, output_tokens: 30, output_tokens_details: { reasoning_tokens: 12 } },
          extra: { actions: [{ command: 'ls', tool_call_id: 'call_1' }], timestamp: 1770000000 },
        },
        { type: 'function_call_output', call_id: 'call_1', output: '<returncode>2</returncode>\n<output>\nls: boom\n</output>', extra: { returncode: 2 } },
      ],
    });
    const r = sessions[0]!.rounds[0]!;
    expect(r.calls).toEqual([{ id: 'call_1', name: 'bash', arguments: { command: 'ls' } }]);
    expect(r.answers).toEqual([{ content: '<returncode>2</returncode>\n<output>\nls: boom\n</output>', isError: true }]);
    expect(r.thinking).toEqual([{ text: 'look first', opaque: false }]);
    expect(r.usage).toEqual({ inputTokens: 900, outputTokens: 30, reasoningTokens: 12 });
  });

  it('a user interruption (v2 interactive) opens a turn; other notices after a round do not', () => {
    const { sessions } = doc({
      trajectory_format: 'mini-swe-agent-1.1',
      info: { mini_version: '2.0.0' },
      messages: [
        { role: 'user', content: 'task' },
        { role: 'assistant', content: 'look', tool_calls: [{ id: 'c1', function: { name: 'bash', arguments: '{"command":"ls"}' } }], extra: { actions: [{ command: 'ls', tool_call_id: 'c1' }] } },
        { role: 'tool', tool_call_id: 'c1', content: 'a', extra: { returncode: 0 } },
        { role: 'user', content: 'LimitsExceeded', extra: { interrupt_type: 'LimitsExceeded' } },
        { role: 'user', content: 'stop, use git instead', extra: { interrupt_type: 'UserInterruption' } },
        { role: 'assistant', content: 'ok', tool_calls: [{ id: 'c2', function: { name: 'bash', arguments: '{"command":"git status"}' } }] },
      ],
    });
    expect(sessions[0]!.turns).toEqual([1, 2]);
    expect(sessions[0]!.rounds.map((r) => r.turn)).toEqual([1, 2]);
  });
});

describe('mini-swe-agent detection', () => {
  const v1 = JSON.parse(fs.readFileSync(V1, 'utf8')) as { messages: unknown[] };

  it('wins over openai on trajectories of both versions and on the bare message array', () => {
    expect(detectFormat(probe(v1))?.name).toBe('mini-swe-agent');
    expect(detectFormat(probe(JSON.parse(fs.readFileSync(V2, 'utf8'))))?.name).toBe('mini-swe-agent');
    // no envelope: the ```bash block answered by <returncode> is mini's mark
    expect(detectFormat(probe(v1.messages))?.name).toBe('mini-swe-agent');
    // a minified trajectory is one JSONL line
    expect(detectFormat({ mode: 'jsonl', fileName: 'x.traj.json', records: [v1] })?.name).toBe('mini-swe-agent');
  });

  it('an OpenAI chat that merely shows a ```bash block stays openai', () => {
    const chat = [
      { role: 'system', content: 'You help with shell.' },
      { role: 'user', content: 'how do I list files?' },
      { role: 'assistant', content: 'Use:\n\n```bash\nls -la\n```' },
      { role: 'user', content: 'thanks' },
    ];
    expect(detectFormat(probe(chat))?.name).toBe('openai');
    expect(miniSweAgentAdapter.detect(probe(chat))).toBe(0);
  });

  it('is listed before openai, so a tie goes to it', () => {
    const names = ADAPTERS.map((a) => a.name);
    expect(names.indexOf('mini-swe-agent')).toBeLessThan(names.indexOf('openai'));
  });
});
