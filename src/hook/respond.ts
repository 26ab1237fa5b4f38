// What the hook prints, in each agent's own contract. Nothing at all (exit 0, empty stdout) means
// "carry on"; every shape below is sent only under enforce.

import type { Agent, EventKind } from './payload.js';

export interface Verdict {
  /** Refuse the pending call (pre only). */
  deny: string | null;
  /** End the turn: the text is for the user (stopReason), never shown to the model. */
  stop: string | null;
  /** Context the model reads next (the steer's recovery reminder). */
  context: string | null;
}

/**
 * The stdout JSON for `verdict` on `eventName`, or null when there is nothing to say (or the
 * contract has no way to say it here; main.ts then keeps a reminder for the next event that can).
 */
export function render(agent: Agent, eventName: string, kind: EventKind, verdict: Verdict): string | null {
  if (verdict.deny === null && verdict.stop === null && verdict.context === null) return null;
  const out = agent === 'claude-code' ? claude(eventName, kind, verdict) : agent === 'gemini' ? gemini(eventName, kind, verdict) : codex(eventName, kind, verdict);
  return out === null ? null : JSON.stringify(out);
}

/** Whether `kind` events of `agent` can carry context to the model (else it waits for one that can). */
export function canCarryContext(agent: Agent, kind: EventKind): boolean {
  if (kind === 'post') return true;
  // Gemini's BeforeTool documents no additionalContext; Claude Code's and Codex's PreToolUse do.
  return kind === 'pre' && agent !== 'gemini';
}

/**
 * Claude Code, "Hooks reference" (https://code.claude.com/docs/en/hooks; mirrored in
 * aiclaudelib/ccode-plugin knowledge/hooks-reference-core.md and hooks-reference-events.md):
 * - JSON is read on exit 0 only; `continue: false` "stops Claude entirely" and takes precedence
 *   over decisions; `stopReason` is shown to the user, not to Claude.
 * - PreToolUse: `hookSpecificOutput.permissionDecision: "deny"` with `permissionDecisionReason`
 *   (shown to Claude for a deny) and `additionalContext`; the top-level decision is deprecated there.
 * - PostToolUse / PostToolUseFailure: `hookSpecificOutput.additionalContext` for Claude.
 * - Stop: only `decision: "block"`, which would keep Claude going: never sent.
 */
function claude(eventName: string, kind: EventKind, v: Verdict): object | null {
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

/**
 * Gemini CLI, "Hooks reference" (google-gemini/gemini-cli docs/hooks/reference.md;
 * https://geminicli.com/docs/hooks/reference): exit 0 with JSON is "preferred for all logic";
 * `continue: false` "stops the entire agent loop immediately" with `stopReason` for the user.
 * BeforeTool: `decision: "deny"` + `reason`, sent "to the agent as a tool error". AfterTool:
 * `hookSpecificOutput.additionalContext` is "appended to the tool result for the agent".
 */
function gemini(_eventName: string, kind: EventKind, v: Verdict): object | null {
  if (kind === 'pre') {
    const out: Record<string, unknown> = {};
    if (v.deny !== null) Object.assign(out, { decision: 'deny', reason: v.deny });
    if (v.stop !== null) Object.assign(out, { continue: false, stopReason: v.stop });
    return Object.keys(out).length > 0 ? out : null;
  }
  if (kind === 'post') {
    if (v.stop !== null) return { continue: false, stopReason: v.stop };
    if (v.context !== null) return { hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: v.context } };
  }
  return null;
}

/**
 * Codex, https://developers.openai.com/codex/hooks and openai/codex
 * codex-rs/hooks/schema/generated/{pre,post}-tool-use.command.output.schema.json: the Claude Code
 * shape. PreToolUse: `permissionDecision: "deny"` needs a non-empty `permissionDecisionReason`;
 * `continue`, `stopReason` and `suppressOutput` are rejected there (codex-rs/hooks/src/engine/
 * output_parser.rs: "PreToolUse hook returned unsupported continue:false"), and a rejected
 * output lets the call proceed, so a stop at PreToolUse is a deny alone and the turn is ended
 * by the next PostToolUse. PostToolUse accepts `continue: false` + `stopReason` and
 * `hookSpecificOutput.additionalContext`.
 */
function codex(_eventName: string, kind: EventKind, v: Verdict): object | null {
  if (kind === 'pre') {
    if (v.deny !== null) {
      return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: v.deny } };
    }
    if (v.context !== null) return { hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: v.context } };
    return null;
  }
  if (kind === 'post') {
    if (v.stop !== null) return { continue: false, stopReason: v.stop };
    if (v.context !== null) return { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: v.context } };
  }
  return null;
}
