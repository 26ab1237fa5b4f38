// Gemini CLI's hook contract, "Hooks reference" (google-gemini/gemini-cli docs/hooks/reference.md,
// published at https://geminicli.com/docs/hooks/reference).

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type AgentHook, type EventKind, readClaudeStyle, type Rec, stableJson, type Verdict } from '../../hook/contract.js';
import { normaliseGeminiOutput } from '../../formats/shared/gemini-output.js';
import { isRecord } from '../../is-record.js';

/**
 * BeforeTool carries `tool_name`, `tool_input`, `mcp_context`; AfterTool adds `tool_response`
 * {llmContent, returnDisplay, error}; AfterAgent carries `prompt`, `prompt_response`,
 * `stop_hook_active`. No call id is sent.
 */
const KINDS: Record<string, EventKind> = {
  BeforeTool: 'pre',
  AfterTool: 'post',
  AfterAgent: 'stop',
};

/** 0.61.0: `llmContent` is the functionResponse's output, normalised as the reader does. */
function answerText(_name: string, value: Rec): { content: string; isError: boolean } {
  const body = value.tool_response ?? null;
  if (typeof body === 'string') return { content: body, isError: false };
  if (!isRecord(body)) return { content: stableJson(body), isError: false };
  const isError = body.error !== undefined && body.error !== null && body.error !== '';
  // llmContent is what the model reads; returnDisplay is for the terminal.
  if (!isError && typeof body.llmContent === 'string') return { content: normaliseGeminiOutput(body.llmContent), isError };
  return { content: stableJson({ llmContent: normaliseGeminiOutput(body.llmContent), error: body.error ?? null }), isError };
}

/**
 * Exit 0 with JSON is "preferred for all logic"; `continue: false` "stops the entire agent loop
 * immediately" with `stopReason` for the user. BeforeTool: `decision: "deny"` + `reason`, sent "to
 * the agent as a tool error". AfterTool: `hookSpecificOutput.additionalContext` is "appended to the
 * tool result for the agent".
 */
function answer(_eventName: string, kind: EventKind, v: Verdict): object | null {
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

/** Which records the adapter must see again when reading resumes mid-file: the JSONL's header. */
function prelude(lines: string[], value: Rec, text: string): string[] {
  const header = typeof value.sessionId === 'string' && typeof value.projectHash === 'string' && !('type' in value);
  return header && lines.length === 0 ? [text] : lines;
}

export const geminiHook: AgentHook = {
  read: (value) => readClaudeStyle({ agent: 'gemini', kinds: KINDS, answer: answerText }, value),
  render: answer,
  // BeforeTool documents no additionalContext.
  canCarryContext: (kind) => kind === 'post',
  probe: (id, cwd) => ({
    session_id: `loopledger-probe-${id}`,
    transcript_path: null,
    cwd,
    loopledger_probe: id,
    hook_event_name: 'BeforeTool',
    timestamp: new Date().toISOString(),
    tool_name: 'run_shell_command',
    tool_input: { command: 'true' },
  }),
  projectDirVariable: 'GEMINI_PROJECT_DIR',
  transcript: { adapter: async () => (await import('../../formats/gemini.js')).geminiAdapter, layout: 'undecided', prelude },
  /** ~/.gemini/settings.json or .gemini/settings.json; "*" matches every tool; `timeout` in milliseconds ("Configuration schema"). */
  install: {
    kind: 'settings',
    nesting: 'groups',
    events: [
      { event: 'BeforeTool', matcher: '*' },
      { event: 'AfterTool', matcher: '*' },
      { event: 'AfterAgent', matcher: null },
    ],
    handler: (command) => ({ type: 'command', command, timeout: 5000, name: 'loopledger' }),
    commandField: 'command',
    timeoutField: 'timeout',
    timeout: 5000,
    timeoutUnitMs: 1,
    comments: true,
    user: (env) => join(env['HOME'] || homedir(), '.gemini/settings.json'),
    project: (cwd) => resolve(cwd, '.gemini/settings.json'),
  },
};
