// OpenClaw's guard is a plugin (seen on 2026.9.6; its docs/plugins/hooks.md, hooks/reference.md,
// hooks/tool-policy.md): a folder with an `openclaw.plugin.json` manifest and an `index.mjs` entry
// (its discovery takes `index.mjs` without a package.json) whose `register(api)` adds typed hooks.
// `before_tool_call` returning `{block: true, blockReason}` refuses the call: the model reads the
// reason as the call's result (marked isError in the store) and the run goes on. Seen live:
// - a plugin in ~/.openclaw/extensions/ is discovered but `openclaw agent --local` loads it only
//   with `plugins.entries.<id>.enabled: true`; `agent_end` reaches a non-bundled plugin only with
//   `plugins.entries.<id>.hooks.allowConversationAccess: true`;
// - `after_tool_call` is not awaited (the next model call starts while it runs), so the plugin
//   sends its events one after another itself;
// - no hook can change what the model reads after a call (`after_tool_call` only observes;
//   `tool_result_persist` rewrites the stored result, never the one the model is sent), so a
//   steer's reminder cannot reach the model here: only refusals do;
// - a `before_tool_call` handler that throws or outlasts 15 s blocks the call: the plugin answers
//   "allow" itself when the guard fails or is slow;
// - `before_message_write` shows each assistant message (its text and tool calls) before its calls'
//   hooks: the plugin sends a call's response text with it, for the output detectors.
// `plugins.load.paths` names the folder: a path there takes precedence over any other plugin of the
// same id (a workspace's `.openclaw/extensions/loopledger`), so the entry enables only the folder
// install wrote.

import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { AgentHook, ConfigEntries, EventKind, FilesInstall } from '../../hook/contract.js';
import { answerOf } from '../../formats/shared/messages.js';
import { isRecord } from '../../is-record.js';
import { ASK_SOURCE, pluginAnswer, pluginReader } from '../opencode/hook.js';

/** agent_end: the prompt is answered (once per `openclaw agent` message), so the next call starts a new turn. */
const KINDS: Readonly<Record<string, EventKind>> = { before_tool_call: 'pre', after_tool_call: 'post', agent_end: 'stop' };

/** The plugin's id, its folder's name and its config entry's key. */
const PLUGIN_ID = 'loopledger';

/** As OpenClaw's store reader reads a toolResult: `isError` (a refused or thrown call), or `exec`'s non-zero `details.exitCode`. */
function openclawAnswer(response: unknown): { content: string; isError: boolean } {
  const r = isRecord(response) ? response : {};
  const exit = typeof r.exitCode === 'number' ? r.exitCode : null;
  return answerOf(r.content ?? '', r.isError === true || (exit !== null && exit !== 0));
}

const MARK = '// loopledger: the live guard, written by `loopledger hook install openclaw`; `loopledger hook uninstall openclaw` removes this file.';

/** The entry module around the guard's command. */
function moduleText(command: string): string {
  return `${MARK}
import { spawn } from 'node:child_process';

const COMMAND = ${JSON.stringify(command)};

${ASK_SOURCE}// null when \`promise\` has not settled within \`ms\`.
function within(promise, ms) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// OpenClaw does not wait for after_tool_call: each event waits for the one before it (2 s at
// most), so the guard reads a call's answer before the next call. Its answer is waited for 6 s at
// most: a before_tool_call handler past 15 s blocks the call.
const ORDER = Symbol.for('loopledger.openclaw.order');
function inOrder(event) {
  const before = globalThis[ORDER] ?? Promise.resolve();
  const answer = within(before, 2000).then(() => within(ask(event), 6000));
  globalThis[ORDER] = answer;
  return answer;
}

// The text of the response each call belongs to, from the assistant message written before its hooks.
const texts = new Map();
function remember(message) {
  if (message?.role !== 'assistant' || !Array.isArray(message.content)) return;
  const text = message.content.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('\\n') || null;
  for (const block of message.content) {
    if (block?.type !== 'toolCall' || typeof block.id !== 'string') continue;
    texts.set(block.id, text);
    if (texts.size > 200) texts.delete(texts.keys().next().value);
  }
}

const session = (ctx) => ctx?.sessionId ?? ctx?.sessionKey ?? 'openclaw';

export default {
  id: ${JSON.stringify(PLUGIN_ID)},
  name: 'loopledger guard',
  register(api) {
    api.on('before_message_write', (event) => {
      try {
        remember(event?.message);
      } catch {}
    });
    api.on('before_tool_call', async (event, ctx) => {
      try {
        const id = event.toolCallId ?? ctx?.toolCallId ?? null;
        const answer = await inOrder({ hook_event_name: 'before_tool_call', session_id: session(ctx), tool_name: event.toolName, tool_use_id: id, tool_input: event.params ?? null, assistant_text: texts.get(id) ?? null });
        if (answer && typeof answer.deny === 'string') return { block: true, blockReason: answer.deny };
      } catch {}
    });
    api.on('after_tool_call', async (event, ctx) => {
      try {
        const content = event.result?.content ?? event.error ?? null;
        await inOrder({ hook_event_name: 'after_tool_call', session_id: session(ctx), tool_name: event.toolName, tool_use_id: event.toolCallId ?? ctx?.toolCallId ?? null, tool_input: event.params ?? null, tool_response: { content, isError: event.error != null, exitCode: event.result?.details?.exitCode ?? null } });
      } catch {}
    });
    api.on('agent_end', async (_event, ctx) => {
      try {
        await inOrder({ hook_event_name: 'agent_end', session_id: session(ctx) });
      } catch {}
    });
  },
};
`;
}

const DESCRIPTION = "loopledger's live guard, written by `loopledger hook install openclaw` (`loopledger hook uninstall openclaw` removes it); it runs: ";

/** The manifest: its description names the guard's command, so only a manifest written around one is ours. */
function manifestText(command: string): string {
  const manifest = { id: PLUGIN_ID, name: 'loopledger guard', description: `${DESCRIPTION}${command}`, activation: { onStartup: true }, configSchema: { type: 'object', additionalProperties: false } };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

const MODULE = 'index.mjs';
const MANIFEST = 'openclaw.plugin.json';
const text = (command: string, name: string): string => (name === MANIFEST ? manifestText(command) : moduleText(command));

/** The module's `const COMMAND = "…";` line. */
const COMMAND_LINE = /^const COMMAND = ("(?:[^"\\\n]|\\.)*");$/m;

/** The command a file written here names: the module's COMMAND, the manifest's description. */
function commandOf(written: string): { command: string; name: string } | null {
  const m = COMMAND_LINE.exec(written);
  if (m !== null) return { command: JSON.parse(m[1]!) as string, name: MODULE };
  try {
    const description = (JSON.parse(written) as { description?: unknown }).description;
    if (typeof description === 'string' && description.startsWith(DESCRIPTION)) return { command: description.slice(DESCRIPTION.length), name: MANIFEST };
  } catch {
    return null;
  }
  return null;
}

/** A path as OpenClaw reads one from its environment: a leading `~` is the home folder. */
function userPath(value: string, env: NodeJS.ProcessEnv): string {
  return resolve(value.replace(/^~(?=$|[\\/])/, () => home(env)));
}

/** OpenClaw's home: $OPENCLAW_HOME, else $HOME. */
const home = (env: NodeJS.ProcessEnv): string => env['OPENCLAW_HOME'] || env['HOME'] || homedir();

/** OpenClaw's config folder (its resolveConfigDir): $OPENCLAW_STATE_DIR, else the folder of $OPENCLAW_CONFIG_PATH, else ~/.openclaw. */
function configDir(env: NodeJS.ProcessEnv): string {
  if (env['OPENCLAW_STATE_DIR']?.trim()) return userPath(env['OPENCLAW_STATE_DIR'].trim(), env);
  if (env['OPENCLAW_CONFIG_PATH']?.trim()) return dirname(userPath(env['OPENCLAW_CONFIG_PATH'].trim(), env));
  return join(home(env), '.openclaw');
}

/** Its config file (resolveConfigPath): $OPENCLAW_CONFIG_PATH, else openclaw.json in the state folder. */
function configFile(env: NodeJS.ProcessEnv): string {
  if (env['OPENCLAW_CONFIG_PATH']?.trim()) return userPath(env['OPENCLAW_CONFIG_PATH'].trim(), env);
  const state = env['OPENCLAW_STATE_DIR']?.trim();
  return join(state ? userPath(state, env) : join(home(env), '.openclaw'), 'openclaw.json');
}

/** What stops OpenClaw loading any plugin of this id, whatever its entry says (its plugin activation policy). */
function blocked(config: unknown): string | null {
  const plugins = isRecord(config) && isRecord(config.plugins) ? config.plugins : {};
  if (plugins.enabled === false) return '`plugins.enabled` is false: OpenClaw loads no plugin';
  if (Array.isArray(plugins.deny) && plugins.deny.includes(PLUGIN_ID)) return `\`plugins.deny\` lists ${PLUGIN_ID}: OpenClaw will not load the guard`;
  if (Array.isArray(plugins.allow) && plugins.allow.length > 0 && !plugins.allow.includes(PLUGIN_ID)) return `\`plugins.allow\` does not list ${PLUGIN_ID}: add it there for OpenClaw to load the guard`;
  return null;
}

const config: ConfigEntries = {
  file: configFile,
  entries: (dir) => [
    { keys: ['plugins', 'entries', PLUGIN_ID], value: { enabled: true, hooks: { allowConversationAccess: true } } },
    { keys: ['plugins', 'load', 'paths'], value: dir, item: true },
  ],
  blocked,
};

const install: FilesInstall = {
  kind: 'files',
  files: [
    { name: MANIFEST, event: 'plugin manifest' },
    { name: MODULE, event: 'before_tool_call, after_tool_call, agent_end' },
  ],
  text,
  // Only a file exactly as written here is ours (its command read back from it).
  commandIn: (written) => {
    const found = commandOf(written);
    return found !== null && written === text(found.command, found.name) ? found.command : null;
  },
  executable: false,
  // The plugin waits 5 s for the guard (its ask), as OpenCode's does.
  timeout: 5,
  timeoutUnitMs: 1000,
  userDir: (env) => join(configDir(env), 'extensions', PLUGIN_ID),
  projectDir: (cwd) => resolve(cwd, '.openclaw', 'extensions', PLUGIN_ID),
  ownDir: true,
  config,
};

export const openclawHook: AgentHook = {
  read: pluginReader('openclaw', KINDS, openclawAnswer),
  render: pluginAnswer,
  // No event can carry context to the model (see above): a steer waits, and only a refusal is read.
  canCarryContext: () => false,
  probe: (id) => ({ hook_event_name: 'before_tool_call', session_id: `loopledger-probe-${id}`, tool_name: 'exec', tool_use_id: `probe_${id}`, tool_input: { command: 'true' }, loopledger_probe: id }),
  install,
};
