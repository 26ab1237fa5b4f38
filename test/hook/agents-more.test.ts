// The live guard in OpenCode, Kilo, Qwen Code, Copilot CLI and Cline (issue 55 item 3), through the
// built binary with each agent's payloads as its hook sends them (../shared/notes/agents-more.md,
// seen on the pinned releases; OpenCode's and Kilo's are what the plugin `hook install` writes
// sends). The same failing call repeated is refused at the third under enforce, before Qwen's and
// Cline's own guards act at the fifth, with the reason in the field the model reads; telemetry
// never answers; a poll whose answer changes is never refused; a payload it cannot read fails open.

import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, scratch } from '../cli/helpers.js';
import { runHook } from './agents.js';

vi.setConfig({ testTimeout: 120_000 });
const tmp = scratch('loopledger-hook-more-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

type Payloads = { pre(i: number, command: string): object; post(i: number, command: string, output: string): object };

const FAILING = 'cat /nonexistent/file';
const NOT_FOUND = 'cat: /nonexistent/file: No such file or directory';

const AGENTS: Record<string, Payloads & { refusal(stdout: string): string | null }> = {
  qwen: {
    pre: (i, command) => ({ session_id: 'q', hook_event_name: 'PreToolUse', permission_mode: 'yolo', tool_name: 'run_shell_command', tool_input: { command }, tool_use_id: `toolu_${i}`, tool_call_id: `call_${i}` }),
    // Qwen Code fires PostToolUseFailure, not PostToolUse, for a failing shell call.
    // tool_call_id goes with every tool event (firePostToolUseFailureHook in 0.24.4's bundle).
    post: (i, command, output) => ({ session_id: 'q', hook_event_name: 'PostToolUseFailure', tool_name: 'run_shell_command', tool_input: { command }, tool_use_id: `toolu_${i}`, tool_call_id: `call_${i}`, error: output, is_interrupt: false }),
    refusal: (out) => {
      const o = JSON.parse(out) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
      return o.hookSpecificOutput.permissionDecision === 'deny' ? o.hookSpecificOutput.permissionDecisionReason : null;
    },
  },
  copilot: {
    // toolArgs is an object and no call id is sent; postToolUse adds toolResult.
    pre: (_i, command) => ({ sessionId: 'c', timestamp: 1, cwd: '/w', toolName: 'bash', toolArgs: { command, description: 'read' } }),
    post: (i, command, output) => ({ sessionId: 'c', timestamp: 2, cwd: '/w', toolName: 'bash', toolArgs: { command, description: 'read' }, toolResult: { resultType: 'success', textResultForLlm: `${output}\n<shellId: ${i} completed with exit code 1>` } }),
    refusal: (out) => {
      const o = JSON.parse(out) as { permissionDecision: string; permissionDecisionReason: string };
      return o.permissionDecision === 'deny' ? o.permissionDecisionReason : null;
    },
  },
  cline: {
    pre: (i, command) => ({ taskId: 't', hookName: 'tool_call', iteration: i, tool_call: { id: `c${i}`, name: 'run_commands', input: { commands: [command] } }, preToolUse: { toolName: 'run_commands', parameters: { commands: JSON.stringify([command]) } } }),
    post: (i, command, output) => ({ taskId: 't', hookName: 'tool_result', tool_result: { id: `c${i}`, name: 'run_commands', input: { commands: [command] }, output: [{ query: command, result: output, error: 'Command exited with code 1', success: false }] } }),
    // overrideInput replaces the call's commands with one that prints the reason and fails.
    refusal: (out) => {
      const o = JSON.parse(out) as { overrideInput?: { commands: string[] }; cancel?: boolean };
      expect(o.cancel).toBeUndefined();
      return o.overrideInput?.commands[0] ?? null;
    },
  },
  opencode: {
    pre: (i, command) => ({ hook_event_name: 'tool.execute.before', session_id: 'ses_o', tool_name: 'bash', tool_use_id: `call_${i}`, tool_input: { command, description: 'read' } }),
    post: (i, command, output) => ({ hook_event_name: 'tool.execute.after', session_id: 'ses_o', tool_name: 'bash', tool_use_id: `call_${i}`, tool_input: { command, description: 'read' }, tool_response: { output, exit: 1 } }),
    refusal: (out) => (JSON.parse(out) as { deny?: string }).deny ?? null,
  },
};
AGENTS.kilo = AGENTS.opencode!;

let n = 0;
describe.concurrent.each(Object.keys(AGENTS))('loopledger hook %s', (agent) => {
  const a = AGENTS[agent]!;
  const run = async (mode: string, stateDir: string, payload: object) => runHook([agent, '--mode', mode, '--state-dir', stateDir], JSON.stringify(payload));

  it('under enforce refuses the third identical failing call before it runs, with the reason the model reads', async () => {
    const stateDir = join(tmp.dir, `state-${agent}-${++n}`);
    const outs: string[] = [];
    for (let i = 1; i <= 3; i++) {
      outs.push((await run('enforce', stateDir, a.pre(i, FAILING))).stdout);
      if (i < 3) expect((await run('enforce', stateDir, a.post(i, FAILING, NOT_FOUND))).stdout).toBe('');
    }
    expect(outs.slice(0, 2)).toEqual(['', '']);
    // Seed 000: "max_strikes = 2 allows two identical batches and errors on the third".
    expect(a.refusal(outs[2]!)).toMatch(/loopledger: refused before it ran\. This tool batch repeats the previous ones/);
  });

  it('under telemetry never answers, and records the refusal enforce would have made', async () => {
    const stateDir = join(tmp.dir, `state-${agent}-${++n}`);
    for (let i = 1; i <= 4; i++) {
      const pre = await run('telemetry', stateDir, a.pre(i, FAILING));
      const post = await run('telemetry', stateDir, a.post(i, FAILING, NOT_FOUND));
      expect([pre.code, pre.stdout, post.code, post.stdout]).toEqual([0, '', 0, '']);
    }
  });

  it('never refuses a poll whose answer changes', async () => {
    const stateDir = join(tmp.dir, `state-${agent}-${++n}`);
    for (let i = 1; i <= 5; i++) {
      expect((await run('enforce', stateDir, a.pre(i, 'cat status.txt'))).stdout).toBe('');
      await run('enforce', stateDir, a.post(i, 'cat status.txt', `pending: ${5 - i} jobs left`));
    }
  });

  it('a payload it cannot read fails open: exit 0, nothing on stdout', async () => {
    const stateDir = join(tmp.dir, `state-${agent}-${++n}`);
    for (const bad of ['not json', '[]', '{}']) {
      const r = await runHook([agent, '--mode', 'enforce', '--state-dir', stateDir], bad);
      expect([r.code, r.stdout]).toEqual([0, '']);
    }
  });
});

// A steer goes where the agent carries context to the model (issue 55 item 4, seen live in
// test/agents/hook-more-chant.test.ts): Copilot CLI 1.0.102 adds a top-level `additionalContext`
// from preToolUse as a user message and from postToolUse to the call's result; Qwen Code reads
// Claude Code's `hookSpecificOutput.additionalContext`; Cline reads `context`. The text is read where
// each agent writes it before a call's hook runs: Qwen's chat log, Copilot's events.jsonl, Cline's
// messages.json (OpenCode's and Kilo's plugin sends it: test/hook/install-more.test.ts).
describe('a steer reaches the model', () => {
  // Seed 002's "inline chanting": one paragraph, round after round, over varied calls.
  const chant = 'I will check the file again now to be sure that nothing has changed since the last time. '.repeat(8);
  const contextOf = (stdout: string): string | null => {
    if (stdout === '') return null;
    const o = JSON.parse(stdout) as { additionalContext?: string; hookSpecificOutput?: { additionalContext?: string } };
    return o.additionalContext ?? o.hookSpecificOutput?.additionalContext ?? null;
  };

  it('copilot: different commands answered with the same error steer (same_error) as additionalContext', async () => {
    const stateDir = join(tmp.dir, `state-copilot-steer-${++n}`);
    const a = AGENTS.copilot!;
    const contexts: (string | null)[] = [];
    for (let i = 1; i <= 4; i++) {
      const command = `make step${i}`;
      await runHook(['copilot', '--mode', 'enforce', '--state-dir', stateDir], JSON.stringify(a.pre(i, command)));
      const post = await runHook(['copilot', '--mode', 'enforce', '--state-dir', stateDir], JSON.stringify(a.post(i, command, 'bash: the sandbox refused the command')));
      contexts.push(contextOf(post.stdout));
    }
    expect(contexts[0]).toBeNull();
    expect(contexts.some((c) => c !== null && c.startsWith('Loop detection: your tool calls'))).toBe(true);
  });

  it('copilot: a text chanted in its events.jsonl ($COPILOT_HOME/session-state/<id>/) is read, and the steer goes as additionalContext', async () => {
    const stateDir = join(tmp.dir, `state-copilot-chant-${++n}`);
    const home = join(tmp.dir, `copilot-home-${n}`);
    const session = `0c0b1a0${n}-0000-4000-8000-000000000000`;
    const log = join(home, 'session-state', session, 'events.jsonl');
    mkdirSync(join(home, 'session-state', session), { recursive: true });
    const event = (type: string, data: object) => JSON.stringify({ type, data, id: `e${Math.random()}`, timestamp: '2026-12-07T03:45:27.308Z', parentId: null }) + '\n';
    writeFileSync(log, event('session.start', { sessionId: session, producer: 'copilot-agent', copilotVersion: '1.0.102', context: { cwd: '/w' } }) + event('user.message', { content: 'Read the file.' }));
    const hook = (payload: object) => runHook(['copilot', '--mode', 'enforce', '--state-dir', stateDir], JSON.stringify(payload), { COPILOT_HOME: home });
    const contexts: (string | null)[] = [];
    // The order 1.0.102 wrote: the response, the call's start, preToolUse, postToolUse, the call's end.
    for (let i = 1; i <= 4; i++) {
      const toolArgs = { command: `echo step ${i}`, description: `echo step ${i}` };
      appendFileSync(log, event('assistant.message', { messageId: `m${i}`, model: 'mock-model', content: chant, toolRequests: [{ toolCallId: `call_${i}`, name: 'bash', arguments: toolArgs }] }));
      appendFileSync(log, event('tool.execution_start', { toolCallId: `call_${i}`, toolName: 'bash', arguments: toolArgs }));
      await hook({ sessionId: session, timestamp: 1, cwd: '/w', toolName: 'bash', toolArgs });
      const post = await hook({ sessionId: session, timestamp: 2, cwd: '/w', toolName: 'bash', toolArgs, toolResult: { resultType: 'success', textResultForLlm: `step ${i}\n<shellId: ${i} completed with exit code 0>` } });
      appendFileSync(log, event('tool.execution_complete', { toolCallId: `call_${i}`, success: true, result: { content: `step ${i}\n<shellId: ${i} completed with exit code 0>` }, shellExecution: { exitCode: 0 } }));
      contexts.push(contextOf(post.stdout));
    }
    expect(contexts.some((c) => c !== null && c.startsWith('Loop detection: your visible output'))).toBe(true);
    expect(contexts.some((c) => c?.includes('check the file again'))).toBe(false);
  });

  it('cline: a text chanted in its messages.json (~/.cline/data/sessions/<root>/) is read, and the steer goes as context', async () => {
    const stateDir = join(tmp.dir, `state-cline-chant-${++n}`);
    const home = join(tmp.dir, `cline-home-${n}`);
    const root = `1796616710168_c${n}`;
    const dir = join(home, '.cline', 'data', 'sessions', root);
    mkdirSync(dir, { recursive: true });
    const messages: object[] = [{ id: 'm0', role: 'user', content: [{ type: 'text', text: 'Read the file.' }], ts: 1 }];
    // Cline rewrites the whole document with each response, before the response's calls' hooks run.
    const save = () => writeFileSync(join(dir, `${root}.messages.json`), JSON.stringify({ version: 1, agent: 'cline', sessionId: root, messages, system_prompt: 'You are Cline.' }, null, 2));
    const hook = (payload: object) => runHook(['cline', '--mode', 'enforce', '--state-dir', stateDir], JSON.stringify({ taskId: `conv_${n}`, sessionContext: { rootSessionId: root }, ...payload }), { HOME: home });
    const contexts: (string | null)[] = [];
    for (let i = 1; i <= 4; i++) {
      const input = { commands: [`echo step ${i}`] };
      messages.push({ id: `a${i}`, role: 'assistant', content: [{ type: 'text', text: chant }, { type: 'tool_use', id: `call_${i}`, name: 'run_commands', input }], ts: i });
      save();
      await hook({ hookName: 'tool_call', iteration: i, tool_call: { id: `call_${i}`, name: 'run_commands', input } });
      const output = [{ query: `echo step ${i}`, result: `step ${i}`, success: true }];
      const post = await hook({ hookName: 'tool_result', tool_result: { id: `call_${i}`, name: 'run_commands', input, output } });
      messages.push({ id: `r${i}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `call_${i}`, name: 'run_commands', content: output }], ts: i });
      save();
      contexts.push(post.stdout === '' ? null : ((JSON.parse(post.stdout) as { context?: string }).context ?? null));
    }
    expect(contexts.some((c) => c !== null && c.startsWith('Loop detection: your visible output'))).toBe(true);
    expect(contexts.some((c) => c?.includes('check the file again'))).toBe(false);
  });

  it('qwen: a text chanted in its chat log (transcript_path) is read, and the steer goes with the round\'s answer', async () => {
    const stateDir = join(tmp.dir, `state-qwen-chant-${++n}`);
    const log = join(tmp.dir, `qwen-chat-${n}.jsonl`);
    const session = `qwen-chant-${n}`;
    const envelope = (type: string, rest: object) => JSON.stringify({ uuid: `u${Math.random()}`, parentUuid: null, sessionId: session, timestamp: '2026-12-07T03:24:15.423Z', type, cwd: '/w', version: '0.24.4', ...rest }) + '\n';
    writeFileSync(log, envelope('user', { message: { role: 'user', parts: [{ text: 'Read the file.' }] } }));
    const payload = (event: string, i: number, extra: object = {}) =>
      // tool_use_id is Qwen's own; tool_call_id is the chat log's id.
      JSON.stringify({ session_id: session, transcript_path: log, cwd: '/w', hook_event_name: event, permission_mode: 'yolo', tool_name: 'run_shell_command', tool_input: { command: `echo step ${i}` }, tool_use_id: `toolu_${i}`, tool_call_id: `call_${i}`, ...extra });
    const contexts: (string | null)[] = [];
    for (let i = 1; i <= 4; i++) {
      appendFileSync(log, envelope('assistant', { model: 'mock-model', message: { role: 'model', parts: [{ text: chant }, { functionCall: { id: `call_${i}`, name: 'run_shell_command', args: { command: `echo step ${i}` } } }] } }));
      await runHook(['qwen', '--mode', 'enforce', '--state-dir', stateDir], payload('PreToolUse', i));
      appendFileSync(log, envelope('tool_result', { message: { role: 'user', parts: [{ functionResponse: { id: `call_${i}`, name: 'run_shell_command', response: { output: `step ${i}` } } }] }, toolCallResult: { callId: `call_${i}`, status: 'success', resultDisplay: { output: `step ${i}`, exitCode: 0 } } }));
      const post = await runHook(['qwen', '--mode', 'enforce', '--state-dir', stateDir], payload('PostToolUse', i, { tool_response: { output: `step ${i}` } }));
      contexts.push(contextOf(post.stdout));
    }
    // The paragraph repeats its sentence within the round too: the first round may already be steered.
    expect(contexts.some((c) => c !== null && c.startsWith('Loop detection: your visible output'))).toBe(true);
    // The reminder never echoes the chanted text (seed 002: "never echoes the looped text").
    expect(contexts.some((c) => c?.includes('check the file again'))).toBe(false);
  });
});
