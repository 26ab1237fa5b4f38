// Droid's hook contract (seen on 0.225.2; docs.factory.ai "Hooks reference"): Claude Code's
// settings shape in ~/.factory/settings.json (project: .factory/settings.json), handlers
// `{type:"command", command, timeout}` with the timeout in seconds, the payload's field names, and
// `hookSpecificOutput.permissionDecision: "deny"` refusing the call with
// `permissionDecisionReason`, which the model reads as the call's error. What differs:
// - no call id on stdin (`tool_use_id` is absent): calls are matched to the transcript by signature;
// - PostToolUse fires only for a call that succeeded: a failing call's answer is on stdin nowhere,
//   so the guard follows the transcript (`transcript_path`), where Droid writes each answer with
//   `is_error` before the next call's PreToolUse;
// - PreToolUse reads no `additionalContext`; PostToolUse's is added as a system message.

import { homedir } from 'node:os';
import { join } from 'node:path';
import { type AgentHook, type EventKind, readClaudeStyle, type Rec, type Verdict } from '../../hook/contract.js';
import { claudeAnswer, claudeAnswerText, claudeProbe, commandHooks } from '../claude-code/hook.js';

const KINDS: Readonly<Record<string, EventKind>> = { PreToolUse: 'pre', PostToolUse: 'post', Stop: 'stop' };

/**
 * Claude Code's answers, but a stop is a refusal alone: Droid ends the whole run on `continue:
 * false` before it reads the decision, and the model would never read why.
 */
function answer(eventName: string, kind: EventKind, v: Verdict): object | null {
  if (kind === 'pre' && v.stop !== null) return claudeAnswer(eventName, kind, { deny: v.deny ?? v.stop, stop: null, context: null });
  if (kind === 'post' && v.stop !== null) return claudeAnswer(eventName, kind, { ...v, stop: null });
  return claudeAnswer(eventName, kind, v);
}

/** Which records the adapter must see again when reading resumes mid-file: the session_start (its id, cwd, parent). */
function prelude(lines: string[], value: Rec, text: string): string[] {
  return value.type === 'session_start' && lines.length === 0 ? [text] : lines;
}

export const droidHook: AgentHook = {
  read: (value) => readClaudeStyle({ agent: 'droid', kinds: KINDS, answer: claudeAnswerText }, value),
  render: answer,
  canCarryContext: (kind) => kind === 'post',
  probe: (id, cwd) => claudeProbe(id, cwd, 'Execute'),
  projectDirVariable: 'FACTORY_PROJECT_DIR',
  transcript: { adapter: async () => (await import('../../formats/droid.js')).droidAdapter, layout: 'jsonl', prelude },
  install: {
    /** "Use * to match all tools"; Stop takes no matcher. */
    ...commandHooks(
      [
        { event: 'PreToolUse', matcher: '*' },
        { event: 'PostToolUse', matcher: '*' },
        { event: 'Stop', matcher: null },
      ],
      '.factory/settings.json',
    ),
    // Droid's home is $FACTORY_HOME_OVERRIDE when set (its bundle: `FACTORY_HOME_OVERRIDE ?? HOME`), as for its store.
    user: (env) => join(env['FACTORY_HOME_OVERRIDE'] || env['HOME'] || homedir(), '.factory', 'settings.json'),
  },
};
