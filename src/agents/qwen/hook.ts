// Qwen Code's hook contract is Claude Code's (verified on 0.24.4: the same event names, matcher
// groups, `{type:"command", command, timeout}` handlers with the timeout in seconds, exit 2 or a
// `permissionDecision: "deny"` refusing the call, `hookSpecificOutput.additionalContext` added to
// the tool's answer). A failing shell call fires PostToolUseFailure, not PostToolUse.

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type AgentHook, type EventKind, readClaudeStyle, type Rec, responseText, stableJson } from '../../hook/contract.js';
import { claudeAnswer } from '../claude-code/hook.js';

const KINDS: Record<string, EventKind> = {
  PreToolUse: 'pre',
  PostToolUse: 'post',
  PostToolUseFailure: 'post',
  Stop: 'stop',
};

/** PostToolUseFailure carries `error` (and `is_interrupt`, `duration_ms`); PostToolUse `tool_response`. */
function answerText(name: string, value: Rec): { content: string; isError: boolean } {
  if (name === 'PostToolUseFailure') {
    const error = value.error;
    if (typeof error === 'string' && value.is_interrupt !== true) return { content: error, isError: true };
    return { content: stableJson({ error: error ?? null, is_interrupt: value.is_interrupt === true }), isError: true };
  }
  return responseText(value.tool_response);
}

export const qwenHook: AgentHook = {
  // Its transcript is not followed live: stdin carries every call and answer (and its chat log is
  // read offline by the qwen adapter).
  read: (value) => readClaudeStyle({ agent: 'qwen', kinds: KINDS, answer: answerText, followTranscript: false }, value),
  render: claudeAnswer,
  canCarryContext: (kind) => kind === 'pre' || kind === 'post',
  probe: (id, cwd) => ({
    session_id: `loopledger-probe-${id}`,
    transcript_path: null,
    cwd,
    loopledger_probe: id,
    hook_event_name: 'PreToolUse',
    tool_name: 'run_shell_command',
    tool_input: { command: 'true' },
    tool_use_id: `probe_${id}`,
    permission_mode: 'default',
  }),
  projectDirVariable: 'QWEN_PROJECT_DIR',
  /** ~/.qwen/settings.json or .qwen/settings.json; a group without a matcher runs for every tool. */
  install: {
    kind: 'settings',
    nesting: 'groups',
    events: [
      { event: 'PreToolUse', matcher: null },
      { event: 'PostToolUse', matcher: null },
      { event: 'PostToolUseFailure', matcher: null },
      { event: 'Stop', matcher: null },
    ],
    handler: (command) => ({ type: 'command', command, timeout: 5 }),
    commandField: 'command',
    timeoutField: 'timeout',
    timeout: 5,
    timeoutUnitMs: 1000,
    comments: false,
    user: (env) => join(env['HOME'] || homedir(), '.qwen/settings.json'),
    project: (cwd) => resolve(cwd, '.qwen/settings.json'),
  },
};
