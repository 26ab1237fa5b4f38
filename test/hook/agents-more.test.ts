// The live guard in OpenCode, Kilo, Qwen Code, Copilot CLI and Cline (issue 55 item 3), through the
// built binary with each agent's payloads as its hook sends them (../shared/notes/agents-more.md,
// seen on the pinned releases; OpenCode's and Kilo's are what the plugin `hook install` writes
// sends). The same failing call repeated is refused at the third under enforce, before Qwen's and
// Cline's own guards act at the fifth, with the reason in the field the model reads; telemetry
// never answers; a poll whose answer changes is never refused; a payload it cannot read fails open.

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
    post: (i, command, output) => ({ session_id: 'q', hook_event_name: 'PostToolUseFailure', tool_name: 'run_shell_command', tool_input: { command }, tool_use_id: `toolu_${i}`, error: output, is_interrupt: false }),
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
