// Cline's file hooks (seen on 3.0.65, @cline/core): an executable named after the event in
// ~/.cline/hooks/ (or a workspace's .clinerules/hooks/) gets one JSON object on stdin,
// `{taskId, hookName:"tool_call", tool_call{id,name,input}, …}` before a call and
// `{hookName:"tool_result", tool_result{id,name,input,output,error}, …}` after it, and answers
// with one JSON object: `cancel: true` ends the whole run, `overrideInput` replaces the call's
// input, `context` is added for the model. A file hook cannot skip one call, so a refusal of a
// shell call replaces its commands with one that prints the reason and fails: the model reads the
// reason as the call's failed result and the run goes on. Other tools have no such replacement:
// the reason goes as context and the call runs (docs/hook.md says so).

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type AgentHook, digestAnswer, type EventKind, type HookEvent, PayloadError, type Rec, stableJson, str, type Verdict } from '../../hook/contract.js';
import { shQuote } from '../../hook/shell.js';
import { isRecord } from '../../is-record.js';

const KINDS: Record<string, EventKind> = { tool_call: 'pre', tool_result: 'post' };

/** Cline's shell tool, whose input is `{commands: string[]}`. */
const SHELL_TOOL = 'run_commands';

/**
 * The session's messages, ~/.cline/data/sessions/<root>/<root>.messages.json (the root session id
 * of `sessionContext`): Cline rewrites it whole with a response (its text, then its calls) before
 * the calls' PreToolUse hooks run (seen on 3.0.65), so the guard follows it for the text stdin does
 * not carry. Null when there is none (a `--data-dir` elsewhere: the guard follows stdin alone), or
 * when the id could name another folder.
 */
function messagesLog(value: Rec, env: NodeJS.ProcessEnv): string | null {
  const root = isRecord(value.sessionContext) ? str(value.sessionContext.rootSessionId) : null;
  if (root === null || !/^[\w-]+$/.test(root)) return null;
  const path = join(env['HOME'] || homedir(), '.cline', 'data', 'sessions', root, `${root}.messages.json`);
  return existsSync(path) ? path : null;
}

function read(value: Rec, env: NodeJS.ProcessEnv): HookEvent {
  const name = str(value.hookName);
  if (name === null) throw new PayloadError('payload without hookName');
  const sessionId = str(value.taskId) ?? (isRecord(value.sessionContext) ? str(value.sessionContext.rootSessionId) : null);
  if (sessionId === null) throw new PayloadError(`${name} payload without taskId`);
  const kind = Object.hasOwn(KINDS, name) ? KINDS[name]! : 'other';
  const event: HookEvent = { agent: 'cline', name, kind, sessionId, transcriptPath: messagesLog(value, env), subagent: null, turnKey: null, call: null, answer: null, finalText: null, probe: str(value.loopledger_probe) };
  if (kind === 'other') return event;
  const body = kind === 'pre' ? value.tool_call : value.tool_result;
  if (!isRecord(body) || str(body.name) === null) throw new PayloadError(`${name} payload without the tool's name`);
  event.call = { id: str(body.id) ?? '', name: str(body.name)!, input: body.input ?? null };
  if (kind === 'post') {
    const error = body.error;
    const isError = typeof error === 'string' && error !== '';
    event.answer = digestAnswer(isError ? { content: error, isError } : { content: typeof body.output === 'string' ? body.output : stableJson(body.output), isError });
  }
  return event;
}

/** The commands that stand in for a refused shell call: the reason on stderr, and a failure. */
function refusal(reason: string): { commands: string[] } {
  return { commands: [`printf '%s\\n' ${shQuote(reason)} >&2; exit 1`] };
}

/**
 * `cancel` is never sent: it ends Cline's whole run, where a stop of the guard ends a turn (the
 * stop is in the ledger; the refusal the model reads is the call's replaced answer).
 */
function answer(toolName: string | null, kind: EventKind, v: Verdict): object | null {
  if (kind !== 'pre' && kind !== 'post') return null;
  if (kind === 'pre' && v.deny !== null) {
    return toolName === SHELL_TOOL ? { overrideInput: refusal(v.deny) } : { context: v.deny };
  }
  return v.context !== null ? { context: v.context } : null;
}

const MARK = '# loopledger: the live guard, written by `loopledger hook install cline`; `loopledger hook uninstall cline` removes this file.';
const FILE = new RegExp(`^#!/bin/sh\\n${MARK.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&')}\\nexec (.+)\\n$`);

export const clineHook: AgentHook = {
  read,
  // The refusal depends on the tool.
  render: (_eventName, kind, v, call) => answer(call?.name ?? null, kind, v),
  canCarryContext: (kind) => kind === 'pre' || kind === 'post',
  // A JSON document rewritten whole: read whole on each call, up to the hook's document bound.
  transcript: { adapter: async () => (await import('../../formats/cline.js')).clineAdapter, layout: 'undecided' },
  probe: (id, cwd) => ({ taskId: `loopledger-probe-${id}`, hookName: 'tool_call', workspaceRoots: [cwd], tool_call: { id: `probe_${id}`, name: SHELL_TOOL, input: { commands: ['true'] } }, loopledger_probe: id }),
  install: {
    kind: 'files',
    files: [
      { name: 'PreToolUse', event: 'tool_call' },
      { name: 'PostToolUse', event: 'tool_result' },
    ],
    text: (command) => `#!/bin/sh\n${MARK}\nexec ${command}\n`,
    commandIn: (text) => FILE.exec(text)?.[1] ?? null,
    executable: true,
    // Cline's own limit on a hook (XV in @cline/core) is 120 s; the guard answers well within 5.
    timeout: 5,
    timeoutUnitMs: 1000,
    userDir: (env) => join(env['HOME'] || homedir(), '.cline/hooks'),
    projectDir: (cwd) => resolve(cwd, '.clinerules/hooks'),
  },
};
