// Claude Code's hook contract, "Hooks reference" (https://code.claude.com/docs/en/hooks; mirrored in
// aiclaudelib/ccode-plugin knowledge/hooks-reference-core.md and hooks-reference-events.md).

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type AgentHook, type EventKind, readClaudeStyle, type Rec, type SettingsInstall, stableJson, type Verdict } from '../../hook/contract.js';
import { isRecord } from '../../is-record.js';

/**
 * PreToolUse carries `tool_name`, `tool_input`, `tool_use_id`; PostToolUse adds `tool_response`;
 * PostToolUseFailure adds `error` and `is_interrupt`; Stop carries `stop_hook_active` and
 * `last_assistant_message`. Common: `session_id`, `transcript_path`, `cwd`, `hook_event_name`;
 * `prompt_id` in newer versions; `agent_id` inside sub-agents.
 */
export const CLAUDE_KINDS: Readonly<Record<string, EventKind>> = {
  PreToolUse: 'pre',
  PostToolUse: 'post',
  PostToolUseFailure: 'post',
  Stop: 'stop',
};

/**
 * The answer as the transcript records it (seen on 2.1.328 in test/agents: the payloads and the
 * transcripts of the same calls): a failing call's `error` is the tool_result's text ("Exit code
 * 1\n…"), and a Bash response's `stdout` is its text (stderr arrives merged into stdout).
 */
export function claudeAnswerText(name: string, value: Rec): { content: string; isError: boolean } {
  if (name === 'PostToolUseFailure') {
    const error = value.error;
    if (typeof error === 'string' && value.is_interrupt !== true) return { content: error, isError: true };
    return { content: stableJson({ error: error ?? null, is_interrupt: value.is_interrupt === true }), isError: true };
  }
  const body = value.tool_response ?? null;
  if (typeof body === 'string') return { content: body, isError: false };
  if (!isRecord(body)) return { content: stableJson(body), isError: false };
  const isError = body.is_error === true || body.success === false;
  if (!isError && typeof body.stdout === 'string' && (body.stderr === undefined || body.stderr === '') && body.interrupted !== true) {
    return { content: body.stdout, isError };
  }
  return { content: stableJson(body), isError };
}

/**
 * Claude Code's answers, and Qwen Code's, which reads the same shape:
 * - JSON is read on exit 0 only; `continue: false` "stops Claude entirely" and takes precedence
 *   over decisions; `stopReason` is shown to the user, not to Claude.
 * - PreToolUse: `hookSpecificOutput.permissionDecision: "deny"` with `permissionDecisionReason`
 *   (shown to Claude for a deny) and `additionalContext`; the top-level decision is deprecated there.
 * - PostToolUse / PostToolUseFailure: `hookSpecificOutput.additionalContext` for Claude.
 * - Stop: only `decision: "block"`, which would keep Claude going: never sent.
 */
export function claudeAnswer(eventName: string, kind: EventKind, v: Verdict): object | null {
  if (kind === 'pre') {
    const specific: Record<string, string> = { hookEventName: 'PreToolUse' };
    if (v.deny !== null) {
      specific.permissionDecision = 'deny';
      specific.permissionDecisionReason = v.deny;
    } else if (v.context !== null) {
      specific.additionalContext = v.context;
    }
    const out: Record<string, unknown> = { hookSpecificOutput: specific };
    if (v.stop !== null) Object.assign(out, { continue: false, stopReason: v.stop });
    return out;
  }
  if (kind === 'post') {
    if (v.stop !== null) return { continue: false, stopReason: v.stop };
    if (v.context !== null) return { hookSpecificOutput: { hookEventName: eventName, additionalContext: v.context } };
  }
  return null;
}

/** The PreToolUse payload `hook doctor` sends, for a harmless call of the agent's shell tool. */
export function claudeProbe(id: string, cwd: string, shellTool = 'Bash'): Rec {
  return {
    session_id: `loopledger-probe-${id}`,
    transcript_path: null,
    cwd,
    loopledger_probe: id,
    hook_event_name: 'PreToolUse',
    tool_name: shellTool,
    tool_input: { command: 'true' },
    tool_use_id: `probe_${id}`,
    permission_mode: 'default',
  };
}

/**
 * Claude Code's settings shape, which Codex and Qwen Code read too: each event a list of matcher
 * groups of `{type: "command", command, timeout}` handlers, the timeout in seconds; the file at
 * `file` under the home folder (user) or the project.
 */
export function commandHooks(events: SettingsInstall['events'], file: string): SettingsInstall {
  return {
    kind: 'settings',
    nesting: 'groups',
    events,
    handler: (command) => ({ type: 'command', command, timeout: 5 }),
    commandField: 'command',
    timeoutField: 'timeout',
    timeout: 5,
    timeoutUnitMs: 1000,
    comments: false,
    user: (env) => join(env['HOME'] || homedir(), file),
    project: (cwd) => resolve(cwd, file),
  };
}

export const claudeCodeHook: AgentHook = {
  read: (value) => readClaudeStyle({ agent: 'claude-code', kinds: CLAUDE_KINDS, answer: claudeAnswerText, subagents: true }, value),
  render: claudeAnswer,
  canCarryContext: (kind) => kind === 'pre' || kind === 'post',
  probe: (id, cwd) => claudeProbe(id, cwd),
  projectDirVariable: 'CLAUDE_PROJECT_DIR',
  transcript: { adapter: async () => (await import('../../formats/claude-code.js')).claudeCodeAdapter, layout: 'jsonl' },
  /**
   * ~/.claude/settings.json or .claude/settings.json; `matcher` is a regex on the tool name and "*"
   * matches all; Stop takes no matcher; `timeout` in seconds. PostToolUseFailure is where failing
   * calls land, and identical failing batches are the loop this guard exists for.
   */
  install: commandHooks(
    [
      { event: 'PreToolUse', matcher: '*' },
      { event: 'PostToolUse', matcher: '*' },
      { event: 'PostToolUseFailure', matcher: '*' },
      { event: 'Stop', matcher: null },
    ],
    '.claude/settings.json',
  ),
};
