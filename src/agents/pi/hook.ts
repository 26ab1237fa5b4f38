// pi's guard is an extension (seen on 0.73.1; its docs/extensions.md): a module in
// ~/.pi/agent/extensions/ ($PI_CODING_AGENT_DIR/extensions; project: .pi/extensions/) whose
// default export receives pi's API. `pi.on("tool_call")` runs before a tool and refuses it by
// returning `{block: true, reason}`: the call's result is an error with the reason as its text,
// which the model reads, and the run goes on. `pi.on("tool_result")` may change the answer the
// model reads. As OpenCode's plugin, the module spawns `loopledger hook pi` with each event on
// stdin and acts on its answer; any failure of the guard lets the call run.

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentHook, EventKind } from '../../hook/contract.js';
import { answerOf } from '../../formats/shared/messages.js';
import { isRecord } from '../../is-record.js';
import { ASK_SOURCE, pluginAnswer, pluginInstall, pluginReader } from '../opencode/hook.js';

/** agent_end: the user's prompt is answered (pi fires it once per prompt), so the next call starts a new turn. */
const KINDS: Readonly<Record<string, EventKind>> = { tool_call: 'pre', tool_result: 'post', agent_end: 'stop' };

/** pi's own failure mark (`isError`: a non-zero exit among them) and its content blocks, as the pi reader reads a toolResult. */
function piAnswer(response: unknown): { content: string; isError: boolean } {
  const r = isRecord(response) ? response : {};
  return answerOf(r.content ?? '', r.isError === true);
}

const MARK = '// loopledger: the live guard, written by `loopledger hook install pi`; `loopledger hook uninstall pi` removes this file.';

/** The extension module around the guard's command. */
function extensionText(command: string): string {
  return `${MARK}
import { spawn } from 'node:child_process';

const COMMAND = ${JSON.stringify(command)};

${ASK_SOURCE}export default function loopledgerGuard(pi) {
  const session = (ctx) => ctx?.sessionManager?.getSessionId?.() ?? 'pi';
  pi.on('tool_call', async (event, ctx) => {
    const answer = await ask({ hook_event_name: 'tool_call', session_id: session(ctx), tool_name: event.toolName, tool_use_id: event.toolCallId, tool_input: event.input ?? null });
    if (answer && typeof answer.deny === 'string') return { block: true, reason: answer.deny };
  });
  pi.on('tool_result', async (event, ctx) => {
    const answer = await ask({ hook_event_name: 'tool_result', session_id: session(ctx), tool_name: event.toolName, tool_use_id: event.toolCallId, tool_input: event.input ?? null, tool_response: { content: event.content ?? null, isError: event.isError === true } });
    if (answer && typeof answer.context === 'string' && Array.isArray(event.content)) return { content: [...event.content, { type: 'text', text: answer.context }] };
  });
  pi.on('agent_end', async (_event, ctx) => {
    await ask({ hook_event_name: 'agent_end', session_id: session(ctx) });
  });
}
`;
}

/** `$PI_CODING_AGENT_DIR`, else ~/.pi/agent (pi's getAgentDir). */
const agentDir = (env: NodeJS.ProcessEnv): string => env['PI_CODING_AGENT_DIR'] || join(env['HOME'] || homedir(), '.pi', 'agent');

export const piHook: AgentHook = {
  read: pluginReader('pi', KINDS, piAnswer),
  render: pluginAnswer,
  // Only the answer after a call can carry context (its content, which the model reads).
  canCarryContext: (kind) => kind === 'post',
  probe: (id) => ({ hook_event_name: 'tool_call', session_id: `loopledger-probe-${id}`, tool_name: 'bash', tool_use_id: `probe_${id}`, tool_input: { command: 'true' }, loopledger_probe: id }),
  install: pluginInstall(extensionText, 'tool_call, tool_result, agent_end', (env) => join(agentDir(env), 'extensions'), (cwd) => resolve(cwd, '.pi/extensions')),
};
