// OpenCode's guard is a plugin (seen on 1.18.33, and on Kilo 7.7.7, which loads the same API): a
// module in ~/.config/opencode/plugin/ (project: .opencode/plugin/) whose `tool.execute.before`
// throws to refuse a call (the call ends `status: "error"` with the thrown text, which the model
// reads, and the run goes on) and whose `tool.execute.after` may change the answer the model
// reads. A plugin runs inside the agent, so the one written here spawns `loopledger hook <agent>`
// with the event on stdin, as the other agents' hooks do, and acts on its answer
// (`{deny}`, `{context}`). Any failure of the guard lets the call run.

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type AgentHook, digestAnswer, type EventKind, type FilesInstall, type HookEvent, PayloadError, type Rec, stableJson, str, type Verdict } from '../../hook/contract.js';
import { isRecord } from '../../is-record.js';

const KINDS: Record<string, EventKind> = { 'tool.execute.before': 'pre', 'tool.execute.after': 'post', 'session.idle': 'stop' };

/** The bash tool's exit code is its failure signal (`metadata.exit`), as in the store. */
function opencodeAnswer(response: unknown): { content: string; isError: boolean } {
  const r = isRecord(response) ? response : {};
  const exit = r.exit;
  return { content: typeof r.output === 'string' ? r.output : stableJson(r.output), isError: typeof exit === 'number' && exit !== 0 };
}

/**
 * The events a plugin sends (`hook_event_name`, `session_id`, `tool_name`, `tool_use_id`,
 * `tool_input`, `tool_response`), `kinds` naming its events and `answer` reading its response.
 */
export function pluginReader(agent: string, kinds: Readonly<Record<string, EventKind>>, answer: (response: unknown) => { content: string; isError: boolean }): (value: Rec) => HookEvent {
  return (value) => {
    const name = str(value.hook_event_name);
    if (name === null) throw new PayloadError('payload without hook_event_name');
    const sessionId = str(value.session_id);
    if (sessionId === null) throw new PayloadError(`${name} payload without session_id`);
    const kind = Object.hasOwn(kinds, name) ? kinds[name]! : 'other';
    const event: HookEvent = { agent, name, kind, sessionId, transcriptPath: null, subagent: null, turnKey: null, call: null, answer: null, finalText: null, probe: str(value.loopledger_probe) };
    if (kind === 'pre' || kind === 'post') {
      const toolName = str(value.tool_name);
      if (toolName === null) throw new PayloadError(`${name} payload without tool_name`);
      event.call = { id: str(value.tool_use_id) ?? '', name: toolName, input: value.tool_input ?? null };
    }
    // The plugin sends the text of the response the call belongs to: what the model said is the
    // output detector's input, and stdin is all the guard reads here.
    if (kind === 'pre') event.text = str(value.assistant_text);
    if (kind === 'post') event.answer = digestAnswer(answer(value.tool_response));
    return event;
  };
}

/** `{deny}` before a call, `{context}` after it: what the plugin acts on. */
export function pluginAnswer(_eventName: string, kind: EventKind, v: Verdict): object | null {
  // A stop refuses the call at hand too: a plugin cannot end the run, the model reads why.
  if (kind === 'pre' && (v.deny !== null || v.stop !== null)) return { deny: v.deny ?? v.stop };
  if (kind === 'post' && v.context !== null) return { context: v.context };
  return null;
}

const MARK = (agent: string) => `// loopledger: the live guard, written by \`loopledger hook install ${agent}\`; \`loopledger hook uninstall ${agent}\` removes this file.`;

/**
 * The plugin's own source for one round trip to the guard (kept to what Node and Bun both run):
 * the event on stdin, the answer parsed from stdout, null when the guard fails, times out (5 s)
 * or says nothing, so any failure lets the call run. pi's extension uses it too.
 */
export const ASK_SOURCE = `// One event to the guard; its answer, or null when it fails, times out or says nothing.
function ask(event) {
  return new Promise((resolve) => {
    let out = '';
    let child;
    try {
      child = spawn('/bin/sh', ['-c', COMMAND], { stdio: ['pipe', 'pipe', 'ignore'] });
    } catch {
      return resolve(null);
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.stdout.on('data', (c) => (out += c));
    child.on('error', () => resolve(null));
    child.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out));
      } catch {
        resolve(null);
      }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(event));
  });
}

`;

/**
 * The plugin's source that gathers the text of each response from its parts' events (OpenCode's
 * and Kilo's event stream), so the guard's output detector reads what the model said.
 */
const RESPONSE_TEXT_SOURCE = `// The text of each response, gathered from its parts' events: a call's hook comes before its
// response's text part is final, but after the text's deltas and the call's own part.
const partKinds = new Map();
const texts = new Map();
const messageOfCall = new Map();

function remember(map, key, value) {
  map.delete(key);
  map.set(key, value);
  if (map.size > 200) map.delete(map.keys().next().value);
}

function onEvent(event) {
  const p = event?.properties;
  if (event?.type === 'message.part.updated' && p?.part) {
    const part = p.part;
    remember(partKinds, part.id, part.type);
    if (part.type === 'text' && typeof part.text === 'string') remember(texts, part.id, { messageID: part.messageID, text: part.text });
    if (part.type === 'tool' && part.callID) remember(messageOfCall, part.callID, part.messageID);
  } else if (event?.type === 'message.part.delta' && p?.field === 'text' && partKinds.get(p.partID) === 'text') {
    remember(texts, p.partID, { messageID: p.messageID, text: (texts.get(p.partID)?.text ?? '') + p.delta });
  }
}

function responseText(callID) {
  const messageID = messageOfCall.get(callID);
  if (!messageID) return null;
  return [...texts.values()].filter((t) => t.messageID === messageID).map((t) => t.text).join('\\n') || null;
}

// Kilo 7.7.7 delivers a response's part events just after its call's hook starts (OpenCode
// 1.18.33 just before): the call's own part is waited for, a little, before its text is read.
async function responseTextSoon(callID) {
  for (let waited = 0; !messageOfCall.has(callID) && waited < 300; waited += 10) await new Promise((r) => setTimeout(r, 10));
  return responseText(callID);
}

`;

/** The plugin module around the guard's command (kept to what Node and Bun both run). */
function pluginText(agent: string, command: string): string {
  return `${MARK(agent)}
import { spawn } from 'node:child_process';

const COMMAND = ${JSON.stringify(command)};

${ASK_SOURCE}${RESPONSE_TEXT_SOURCE}export const LoopledgerGuard = async () => ({
  event: async ({ event }) => {
    try {
      onEvent(event);
    } catch {}
  },
  'tool.execute.before': async (input, output) => {
    const answer = await ask({ hook_event_name: 'tool.execute.before', session_id: input.sessionID, tool_name: input.tool, tool_use_id: input.callID, tool_input: output?.args ?? input.args ?? null, assistant_text: await responseTextSoon(input.callID) });
    if (answer && typeof answer.deny === 'string') throw new Error(answer.deny);
  },
  'tool.execute.after': async (input, output) => {
    const answer = await ask({ hook_event_name: 'tool.execute.after', session_id: input.sessionID, tool_name: input.tool, tool_use_id: input.callID, tool_input: input.args ?? null, tool_response: { output: output?.output ?? null, exit: output?.metadata?.exit ?? null } });
    if (answer && typeof answer.context === 'string' && output && typeof output.output === 'string') output.output += '\\n\\n' + answer.context;
  },
});
`;
}

/** The module's `const COMMAND = "…";` line, where a written file names the guard's command. */
const COMMAND_LINE = /^const COMMAND = ("(?:[^"\\\n]|\\.)*");$/m;

/** One module, `loopledger.js`, written by `text` around the guard's command, serving `events`. */
export function pluginInstall(text: (command: string) => string, events: string, userDir: (env: NodeJS.ProcessEnv) => string, projectDir: (cwd: string) => string): FilesInstall {
  return {
    kind: 'files',
    files: [{ name: 'loopledger.js', event: events }],
    text,
    // Only a file exactly as written here is ours (its command read back from it).
    commandIn: (written) => {
      const m = COMMAND_LINE.exec(written);
      if (m === null) return null;
      const command = JSON.parse(m[1]!) as string;
      return written === text(command) ? command : null;
    },
    executable: false,
    timeout: 5,
    timeoutUnitMs: 1000,
    userDir,
    projectDir,
  };
}

export function pluginHook(agent: string, userDir: (env: NodeJS.ProcessEnv) => string, projectDir: (cwd: string) => string): AgentHook {
  return {
    read: pluginReader(agent, KINDS, opencodeAnswer),
    render: pluginAnswer,
    // Only the answer after a call can carry context (its text, which the model reads).
    canCarryContext: (kind) => kind === 'post',
    probe: (id) => ({ hook_event_name: 'tool.execute.before', session_id: `loopledger-probe-${id}`, tool_name: 'bash', tool_use_id: `probe_${id}`, tool_input: { command: 'true' }, loopledger_probe: id }),
    install: pluginInstall((command) => pluginText(agent, command), 'tool.execute.before, tool.execute.after', userDir, projectDir),
  };
}

/** `$XDG_CONFIG_HOME/<name>`, else ~/.config/<name>. */
export const configDir = (env: NodeJS.ProcessEnv, name: string): string => join(env['XDG_CONFIG_HOME'] || join(env['HOME'] || homedir(), '.config'), name);

export const opencodeHook = pluginHook('opencode', (env) => join(configDir(env, 'opencode'), 'plugin'), (cwd) => resolve(cwd, '.opencode/plugin'));
