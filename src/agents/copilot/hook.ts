// Copilot CLI's hook contract (seen on 1.0.102; `copilot help config` documents `hooks`): in
// ~/.copilot/settings.json, or a repository's .github/hooks/*.json (`version: 1`, read with
// --trust-folder), `hooks.preToolUse` and `hooks.postToolUse` each list handlers
// `{type:"command", bash, timeoutSec}`. Stdin is `{sessionId, timestamp, cwd, toolName, toolArgs}`
// (toolArgs an object, no call id, no event name), postToolUse adds `toolResult{resultType,
// textResultForLlm}`; stdout `{"permissionDecision":"deny","permissionDecisionReason"}` refuses
// the call and the model reads the reason ("Denied by preToolUse hook: …"). A top-level
// `additionalContext` reaches the model from both events (seen live on 1.0.102, test/agents/
// hook-more-chant.test.ts): preToolUse's as a user message "Additional context from preToolUse
// hook:", postToolUse's appended to the call's result ("Additional guidance from postToolUse hooks:").

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type AgentHook, digestAnswer, type EventKind, type HookEvent, PayloadError, type Rec, responseText, str, type Verdict } from '../../hook/contract.js';
import { isRecord } from '../../is-record.js';

/**
 * `<shellId: 2 completed with exit code 1>`: Copilot's bookkeeping after a command's output,
 * numbered per shell, so the same failing command would never answer the same twice: its exit
 * code is the failure signal (resultType is "success" for a command that exits 1), and the text
 * is what the command printed, as the copilot reader reads the store.
 */
const SHELL_TRAILER = /\n?<shellId: \d+ completed with exit code (-?\d+)>\s*$/;

function answerText(result: unknown): { content: string; isError: boolean } {
  if (!isRecord(result) || typeof result.textResultForLlm !== 'string') return responseText(result ?? null);
  const text = result.textResultForLlm;
  const exit = SHELL_TRAILER.exec(text)?.[1];
  const isError = (exit !== undefined && exit !== '0') || (typeof result.resultType === 'string' && result.resultType !== 'success');
  return { content: text.replace(SHELL_TRAILER, ''), isError };
}

/**
 * The session's events.jsonl, `$COPILOT_HOME` (else ~/.copilot) `/session-state/<sessionId>/`:
 * Copilot writes a response there (its text, then its calls) before the calls' preToolUse hooks
 * run (seen on 1.0.102), so the guard follows it for the text stdin does not carry. Null when
 * there is none (the guard then follows stdin alone), or when the id could name another folder.
 */
function eventsLog(sessionId: string, env: NodeJS.ProcessEnv): string | null {
  if (!/^[\w-]+$/.test(sessionId)) return null;
  const home = env['COPILOT_HOME'] || join(env['HOME'] || homedir(), '.copilot');
  const path = join(home, 'session-state', sessionId, 'events.jsonl');
  return existsSync(path) ? path : null;
}

function read(value: Rec, env: NodeJS.ProcessEnv): HookEvent {
  const sessionId = str(value.sessionId);
  if (sessionId === null) throw new PayloadError('payload without sessionId');
  const toolName = str(value.toolName);
  const post = value.toolResult !== undefined;
  const name = toolName === null ? 'other' : post ? 'postToolUse' : 'preToolUse';
  const event: HookEvent = {
    agent: 'copilot',
    name,
    kind: toolName === null ? 'other' : post ? 'post' : 'pre',
    sessionId,
    transcriptPath: eventsLog(sessionId, env),
    subagent: null,
    turnKey: null,
    // No call id is sent: the session matches the answer to its call by signature, as for Gemini CLI.
    call: toolName === null ? null : { id: '', name: toolName, input: value.toolArgs ?? null },
    answer: null,
    finalText: null,
    probe: str(value.loopledger_probe),
  };
  if (post) event.answer = digestAnswer(answerText(value.toolResult));
  return event;
}

function answer(kind: EventKind, v: Verdict): object | null {
  if (kind === 'pre' && v.deny !== null) return { permissionDecision: 'deny', permissionDecisionReason: v.deny };
  if ((kind === 'pre' || kind === 'post') && v.context !== null) return { additionalContext: v.context };
  return null;
}

export const copilotHook: AgentHook = {
  read,
  render: (_eventName, kind, v) => answer(kind, v),
  canCarryContext: (kind) => kind === 'pre' || kind === 'post',
  transcript: { adapter: async () => (await import('../../formats/copilot.js')).copilotAdapter, layout: 'jsonl' },
  probe: (id, cwd) => ({ sessionId: `loopledger-probe-${id}`, timestamp: Date.now(), cwd, toolName: 'bash', toolArgs: { command: 'true' }, loopledger_probe: id }),
  install: {
    kind: 'settings',
    nesting: 'handlers',
    events: [
      { event: 'preToolUse', matcher: null },
      { event: 'postToolUse', matcher: null },
    ],
    handler: (command) => ({ type: 'command', bash: command, timeoutSec: 5 }),
    commandField: 'bash',
    timeoutField: 'timeoutSec',
    timeout: 5,
    timeoutUnitMs: 1000,
    comments: false,
    preamble: { version: 1 },
    user: (env) => join(env['HOME'] || homedir(), '.copilot/settings.json'),
    project: (cwd) => resolve(cwd, '.github/hooks/loopledger.json'),
  },
};
