// The traps the 0.2 research samples show (mini-swe-agent, OpenHands, Claude Code stream-json), each
// pinned on the real file through the real reader. The samples stay in ../shared/research-samples;
// the figures below were read off the files by hand (see the comments).

import {  } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { ingestFile } from '../../src/formats/ingest.js';
import type { RecordedCost } from '../../src/model/transcript.js';
import { discoverInputs } from '../../src/read/discover.js';
import { RecordingSink } from '../helpers/record.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const samples = path.resolve(repoRoot, '../shared/research-samples');

class CostSink extends RecordingSink {
  readonly costs: [string, RecordedCost][] = [];
  recordedCost(id: string, cost: RecordedCost): void {
    this.costs.push([id, cost]);
  }
}

async function read(rel: string) {
  const sink = new CostSink();
  const summary = await ingestFile(path.join(samples, rel), sink);
  return { summary, sessions: sink.sessions, s: sink.sessions[0]!, costs: sink.costs };
}

describeWith('research-samples', 'research samples: mini-swe-agent', () => {
  it('v1 (gemini, django): one bash call per assistant message, its observation the next user message; model, usage and reasoning from extra.response', async () => {
    const { summary, s, costs } = await read('mini-swe-agent/msa1_gemini3_django__django-16255.traj.json');
    // read as an OpenAI chat it had 18 "turns" and 0 tool calls
    expect(summary.format).toBe('mini-swe-agent');
    expect(s.turns).toEqual([1]);
    // info.model_stats.api_calls is 17: one round per model call
    expect(s.rounds).toHaveLength(17);
    expect(s.rounds.every((r) => r.calls.length === 1 && r.calls[0]!.name === 'bash' && r.calls[0]!.id === null)).toBe(true);
    expect(s.rounds[0]!.calls[0]!.arguments).toEqual({ command: 'ls -R django/contrib/sitemaps' });
    expect(s.rounds[0]!.answers![0]!.content).toMatch(/^<returncode>0<\/returncode>\n<output>\ndjango\/contrib\/sitemaps:/);
    // the prose is the THOUGHT; the fenced command is the call, not text
    expect(s.rounds[0]!.text).toMatch(/^THOUGHT: /);
    expect(s.rounds.some((r) => r.text.includes('```bash'))).toBe(false);
    // the last user message is the submission (the diff): it answers the COMPLETE command
    expect((s.rounds[16]!.calls[0]!.arguments as { command: string }).command).toMatch(/^echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT/);
    expect(s.rounds[16]!.answers![0]!.content).toMatch(/^diff --git a\/django\/contrib\/sitemaps/);
    expect(s.rounds.every((r) => r.model === 'google/gemini-3-pro-preview' && r.usage !== null)).toBe(true);
    expect(costs).toEqual([['django__django-16255', { usd: 0.08934840000000001, source: 'info.model_stats.instance_cost' }]]);
  });

  it('v1 (gemini, xarray): a ```python excerpt beside the ```bash block is not a second action; returncode 1 is an error; OpenRouter reasoning_details are text plus an opaque block', async () => {
    const { s } = await read('mini-swe-agent/msa1_gemini3_pydata__xarray-4629.traj.json');
    expect(s.rounds).toHaveLength(18);
    // message 10 (round 5) quotes the code in ```python, then runs one sed
    const r5 = s.rounds[4]!;
    expect(r5.calls).toHaveLength(1);
    expect((r5.calls[0]!.arguments as { command: string }).command).toMatch(/^sed -i '504s/);
    expect(r5.text).toContain('```python');
    // messages 25 and 29 answer with <returncode>1</returncode> (two failing pytest runs)
    expect(s.rounds.map((r, i) => (r.answers![0]!.isError ? i + 1 : 0)).filter((n) => n > 0)).toEqual([12, 14]);
    // first response: usage 2328 prompt / 217 completion, 174 of it reasoning
    expect(s.rounds[0]!.usage).toEqual({ inputTokens: 2328, outputTokens: 217, reasoningTokens: 174, cacheReadTokens: 0 });
    expect(s.rounds[0]!.thinking.map((t) => t.opaque)).toEqual([false, true]);
    expect(s.rounds[0]!.thinking[0]!.text).toMatch(/^\*\*Addressing Attribute Behavior\*\*/);
  });

  it('v2 (deepseek, tool calls): role "tool" answers by id, returncode ≠ 0 is an error, the exit message answers the submission', async () => {
    const { s, costs } = await read('mini-swe-agent/msa2_deepseek_django__django-14752.traj.json');
    // read as OpenAI it had the right counts but "model unknown"
    expect(s.rounds).toHaveLength(31);
    expect(s.rounds.every((r) => r.model === 'deepseek/deepseek-chat')).toBe(true);
    expect(s.rounds[0]!.calls[0]).toEqual({
      id: 'call_00_9ZSwNwRjFxvwMIvlqQPpvOuX',
      name: 'bash',
      arguments: { command: 'find /testbed -type f -name "*.py" | grep -i autocomplete | head -20' },
    });
    // extra.returncode 1 on the tool messages 9, 13, 21, 27, 29, 57: rounds 4, 6, 10, 13, 14, 28
    expect(s.rounds.map((r, i) => (r.answers![0]!.isError ? i + 1 : 0)).filter((n) => n > 0)).toEqual([4, 6, 10, 13, 14, 28]);
    // 30 tool messages for 31 calls: the last is answered by the role "exit" message (the patch)
    expect(s.rounds[30]!.answers![0]!.content).toMatch(/^diff --git a\/django\/contrib\/admin\/views\/autocomplete\.py/);
    expect(s.rounds[0]!.usage).toEqual({ inputTokens: 1995, outputTokens: 93, reasoningTokens: null, cacheReadTokens: 320 });
    expect(s.rounds[0]!.timestamp).toBe(new Date(1775812897218).toISOString());
    expect(costs.map(([, c]) => c.usd)).toEqual([0.013638016]);
  });

  it('the oldest layout (a bare message array, ```mswea_bash_command) is mini-swe-agent, not an OpenAI chat', async () => {
    const { summary, s } = await read('mini-swe-agent/mini-swe-agent_test_local.traj.json');
    expect(summary.format).toBe('mini-swe-agent');
    expect(s.info.id).toBe('mini-swe-agent_test_local');
    expect(s.rounds.map((r) => r.calls.map((c) => c.arguments))).toEqual([[{ command: "echo 'hello world'" }], [{ command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT' }]]);
    // the closing empty user message answers the COMPLETE command
    expect(s.rounds.map((r) => r.answers)).toEqual([
      [{ content: '<returncode>0</returncode>\n<output>\nhello world\n</output>', isError: false }],
      [{ content: '', isError: false }],
    ]);
  });
});

describeWith('research-samples', 'research samples: OpenHands', () => {
  it('V0 GUI trajectory: eight state-change and "no observation" events are no turns and no rounds; an edit\'s text comes from the raw tool call', async () => {
    const { s, summary } = await read('openhands/OpenHands_trajs_basic_gui_mode.json');
    // skipped quietly, and counted: events 0, 3, 5, 17; 1; 2, 6, 16
    expect(summary.ignored).toEqual({ 'observation:agent_state_changed': 4, 'action:change_agent_state': 1, 'observation:null': 3 });
    expect(summary.skipped).toEqual([]);
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => r.calls.map((c) => c.name))).toEqual([['execute_bash'], ['str_replace_editor'], ['str_replace_editor'], ['execute_bash'], []]);
    // OpenHands' own args keep `content: ""` for a create; the model's arguments hold the file
    const edit = s.rounds[1]!.calls[0]!.arguments as Record<string, unknown>;
    expect(edit).toMatchObject({ command: 'create', path: '/workspace/todo-app/index.html' });
    expect(String(edit.file_text)).toMatch(/^<!DOCTYPE html>/);
    expect(edit).not.toHaveProperty('impl_source');
    // the server that never returned: exit code -1 is a failure
    expect(s.rounds[3]!.answers![0]!.isError).toBe(true);
    expect(s.rounds[0]!.answers).toEqual([{ content: '', isError: false }]);
    // litellm's prompt_tokens already counts the cached prompt: taken as is
    expect(s.rounds[0]!.usage).toEqual({ inputTokens: 3439, outputTokens: 104, reasoningTokens: null, cacheReadTokens: 0, cacheWriteTokens: 3435 });
    expect(s.rounds[0]!.model).toBe('claude-3-5-sonnet-20241022');
    expect(s.rounds[0]!.text).toMatch(/^I'll help you create a Vue\.js application with all the requested todo list functionality/);
    expect(s.rounds[4]!.text).toMatch(/^I've created a complete Vue\.js todo application/);
  });

  it('V0: prompt_tokens includes the cache writes (3475 = 4 + 3471), never added twice; observations answer by cause across skipped ids', async () => {
    const { s } = await read('openhands/OpenHands_trajs_wrong_initial_state.json');
    expect(s.rounds[0]!.usage).toEqual({ inputTokens: 3475, outputTokens: 95, reasoningTokens: null, cacheReadTokens: 0, cacheWriteTokens: 3471 });
    expect(s.rounds.map((r) => r.calls[0]!.name)).toEqual(['str_replace_editor', 'execute_bash', 'str_replace_editor', 'finish']);
    // the model's own arguments, as it wrote them (OpenHands' args add blocking, thought…)
    expect(s.rounds[1]!.calls[0]!.arguments).toEqual({ command: 'mv /workspace/game_2048.py /workspace/2048.py', is_input: 'false' });
    expect(s.rounds.slice(0, 3).every((r) => r.answers !== null)).toBe(true);
    // finish is a call nothing answers
    expect(s.rounds[3]!.answers).toBeNull();
    const basic = (await read('openhands/OpenHands_trajs_basic_interactions.json')).s;
    expect(basic.turns).toEqual([1, 2, 3]);
    expect(basic.rounds.map((r) => [r.turn, r.text.slice(0, 15), r.calls.length])).toEqual([
      [1, '1 + 1 equals 2.', 0],
      [2, "Goldbach's conj", 0],
      [3, '', 1],
    ]);
    // "All done! What's next on the agenda?" is OpenHands' canned finish message: the model wrote
    // nothing (content null, arguments {})
    expect(basic.rounds[2]!.calls[0]).toMatchObject({ name: 'finish', arguments: {} });
  });

  it('V1 event stream: <think> is thinking, not text; stats are cumulative (rounds get differences); the observation of an action outside the excerpt answers nothing', async () => {
    const { summary, s } = await read('openhands/software-agent-sdk_goal_events.jsonl');
    expect(summary.skipped).toEqual([]);
    expect(s.rounds).toHaveLength(2);
    const [r1, r2] = s.rounds as [typeof s.rounds[0], typeof s.rounds[0]];
    expect(r1.text).toMatch(/^I'll help you review PR #3745/);
    expect(r1.text).not.toContain('<think>');
    expect(r1.thinking).toEqual([{ text: expect.stringMatching(/^Let me analyze the task/), opaque: false }]);
    // "Cannot execute multiple commands": is_error with exit_code null
    expect(r1.answers).toEqual([{ content: expect.stringMatching(/^Cannot execute multiple commands at once/), isError: true }]);
    // the SDK's own parameters are not the command
    expect(r1.calls[0]!.arguments).toEqual({ command: expect.stringMatching(/^SESSION_URL=/) });
    // stats lines 3 → 2 and 8 → 6 (the update at line 6 paid for the action missing from the excerpt)
    expect(r1.usage).toEqual({ inputTokens: 35895 - 596, outputTokens: 960 - 775, reasoningTokens: 0, cacheReadTokens: 1115 - 0, cacheWriteTokens: 0 });
    expect(r2.usage).toEqual({ inputTokens: 107458 - 71474, outputTokens: 1347 - 1155, reasoningTokens: 0, cacheReadTokens: 68193 - 34536, cacheWriteTokens: 0 });
    expect(s.rounds.every((r) => r.model === 'litellm_proxy/minimax-m2.7')).toBe(true);
  });

  it('V1 folder: found as one input by discovery, read as one session; usage per response from base_state token_usages; the recorded cost', async () => {
    const root = path.join(samples, 'openhands');
    const { files } = await discoverInputs([root]);
    const folder = path.join(root, 'software-agent-sdk_v1_conversation_cd945624');
    expect(files.filter((f) => f.startsWith(folder))).toEqual([folder]);
    const { summary, s, costs } = await read('openhands/software-agent-sdk_v1_conversation_cd945624');
    // base_state.json and the eight event files (the lock file is not an event)
    expect(summary).toMatchObject({ format: 'openhands', sessions: 1, lines: 9, skipped: [] });
    expect(s.info.id).toBe('cd945624-03b9-487e-bdd4-018e3f531dfd');
    expect(s.rounds.map((r) => r.usage)).toEqual([
      { inputTokens: 3778, outputTokens: 36, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { inputTokens: 3869, outputTokens: 32, reasoningTokens: 0, cacheReadTokens: 3712, cacheWriteTokens: 0 },
      { inputTokens: 3936, outputTokens: 26, reasoningTokens: 0, cacheReadTokens: 3840, cacheWriteTokens: 0 },
    ]);
    expect(s.rounds[1]!.calls[0]).toMatchObject({ name: 'finish', arguments: { message: 'The current directory has been written to tool_output.txt.' } });
    expect(s.rounds[1]!.answers).toEqual([{ content: 'The current directory has been written to tool_output.txt.', isError: false }]);
    expect(costs).toEqual([['cd945624-03b9-487e-bdd4-018e3f531dfd', { usd: 0.00122745, source: 'base_state.stats accumulated_cost' }]]);
  });
});

describeWith('research-samples', 'research samples: Claude Code stream-json', () => {
  it('a JSON array of stream-json records: user lines without session_id belong to the init session; the result line cost is recorded', async () => {
    const { summary, sessions, s, costs } = await read('claude-stream-json/claude-code-action_sample-turns.json');
    expect(summary.format).toBe('claude-code');
    expect(sessions).toHaveLength(1);
    expect(s.info.id).toBe('sample-session-id');
    expect(s.rounds.map((r) => r.calls.map((c) => c.name))).toEqual([['Read'], ['Edit'], ['mcp__github__add_pull_request_review_comment'], []]);
    expect(s.rounds.every((r) => r.answers !== null)).toBe(true);
    // input 100 + cache read 50
    expect(s.rounds[0]!.usage).toEqual({ inputTokens: 150, outputTokens: 75, reasoningTokens: null, cacheReadTokens: 50, cacheWriteTokens: 0 });
    expect(costs).toEqual([['sample-session-id', { usd: 0.0347, source: 'result.total_cost_usd' }]]);
  });
});
