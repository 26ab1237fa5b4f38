// Qwen Code's hook contract is Claude Code's (verified on 0.24.4: the same event names, matcher
// groups, `{type:"command", command, timeout}` handlers with the timeout in seconds, exit 2 or a
// `permissionDecision: "deny"` refusing the call, `hookSpecificOutput.additionalContext` added to
// the tool's answer). A failing shell call fires PostToolUseFailure, not PostToolUse, with `error`
// as Claude Code's does; the answers are read as Claude Code's.

import { type AgentHook, readClaudeStyle, type Rec } from '../../hook/contract.js';
import { CLAUDE_KINDS, claudeAnswer, claudeAnswerText, claudeProbe, commandHooks } from '../claude-code/hook.js';

/**
 * The call's id as the chat log has it. `tool_use_id` is Qwen's own, made up for its hooks
 * (`toolu_<ms>_<random>`, generateToolUseId in 0.24.4's bundle) and found nowhere in the chat log;
 * `tool_call_id`, sent with PreToolUse, PostToolUse and PostToolUseFailure alike, is the model's
 * id, the one the chat log's `functionCall.id` and `functionResponse.id` carry.
 */
function withChatLogId(value: Rec): Rec {
  return typeof value.tool_call_id === 'string' && value.tool_call_id !== '' ? { ...value, tool_use_id: value.tool_call_id } : value;
}

export const qwenHook: AgentHook = {
  // The chat log (`transcript_path`) is followed live, as Claude Code's transcript is: Qwen writes a
  // response (its text, then its calls) before the calls run, so a chanted text is read at the
  // round it closes and the steer goes with that round's answer.
  read: (value) => readClaudeStyle({ agent: 'qwen', kinds: CLAUDE_KINDS, answer: claudeAnswerText }, withChatLogId(value)),
  render: claudeAnswer,
  canCarryContext: (kind) => kind === 'pre' || kind === 'post',
  probe: (id, cwd) => claudeProbe(id, cwd, 'run_shell_command'),
  projectDirVariable: 'QWEN_PROJECT_DIR',
  transcript: { adapter: async () => (await import('../../formats/qwen.js')).qwenAdapter, layout: 'jsonl' },
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
