// Qwen Code's hook contract is Claude Code's (verified on 0.24.4: the same event names, matcher
// groups, `{type:"command", command, timeout}` handlers with the timeout in seconds, exit 2 or a
// `permissionDecision: "deny"` refusing the call, `hookSpecificOutput.additionalContext` added to
// the tool's answer). A failing shell call fires PostToolUseFailure, not PostToolUse, with `error`
// as Claude Code's does; the answers are read as Claude Code's.

import { type AgentHook, readClaudeStyle } from '../../hook/contract.js';
import { CLAUDE_KINDS, claudeAnswer, claudeAnswerText, claudeProbe, commandHooks } from '../claude-code/hook.js';

export const qwenHook: AgentHook = {
  // Its transcript is not followed live: stdin carries every call and answer (and its chat log is
  // read offline by the qwen adapter).
  read: (value) => readClaudeStyle({ agent: 'qwen', kinds: CLAUDE_KINDS, answer: claudeAnswerText, followTranscript: false }, value),
  render: claudeAnswer,
  canCarryContext: (kind) => kind === 'pre' || kind === 'post',
  probe: (id, cwd) => claudeProbe(id, cwd, 'run_shell_command'),
  projectDirVariable: 'QWEN_PROJECT_DIR',
  /** ~/.qwen/settings.json or .qwen/settings.json; a group without a matcher runs for every tool. */
  install: commandHooks(
    [
      { event: 'PreToolUse', matcher: null },
      { event: 'PostToolUse', matcher: null },
      { event: 'PostToolUseFailure', matcher: null },
      { event: 'Stop', matcher: null },
    ],
    '.qwen/settings.json',
  ),
};
