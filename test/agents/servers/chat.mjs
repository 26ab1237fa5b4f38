// OpenAI chat completions (POST /v1/chat/completions, SSE), as OpenCode, Kilo, Qwen Code, Copilot
// CLI (bring-your-own-key), Cline, pi, Droid (bring-your-own-key) and OpenClaw speak it. The script names a call by role (`shell`, `finish`):
// the server picks the offered tool that plays it and fills its arguments from the tool's schema.
// A request without tools (a session title) is a side request, not a model turn.
import { startServer, json } from './http.mjs';
import { view, freshId, textOf } from './script.mjs';

/** The tool names that run a shell command, and the one that ends a run (Cline's -y mode). */
const SHELL_TOOLS = ['bash', 'run_shell_command', 'run_commands', 'shell', 'execute_command', 'Execute', 'exec'];
const FINISH_TOOLS = ['submit_and_exit'];

function items(body) {
  const out = [];
  for (const m of Array.isArray(body?.messages) ? body.messages : []) {
    if (m.role === 'assistant') out.push({ kind: 'model' });
    else if (m.role === 'tool') out.push({ kind: 'result', text: textOf(m.content), id: m.tool_call_id });
    else if (m.role === 'user') out.push({ kind: 'user', text: textOf(m.content) });
  }
  return out;
}

function toolNamed(tools, names) {
  for (const name of names) {
    const t = tools.find((x) => (x.function?.name ?? x.name) === name);
    if (t) return t.function ?? t;
  }
  return null;
}

/** The arguments for `tool` carrying `command`: the command where a string is asked, a list of it where an array is. */
function argumentsFor(tool, role, input) {
  const props = tool.parameters?.properties ?? {};
  const required = tool.parameters?.required ?? Object.keys(props);
  const args = {};
  for (const key of required) {
    const type = props[key]?.type;
    if (role === 'shell' && /command/i.test(key)) args[key] = type === 'array' ? [input.command] : input.command;
    else if (Array.isArray(props[key]?.enum)) args[key] = props[key].enum[0];
    else if (type === 'boolean') args[key] = true;
    else if (type === 'array') args[key] = [];
    else if (type === 'number' || type === 'integer') args[key] = 1;
    else args[key] = input[key] ?? input.summary ?? input.command ?? 'scripted';
  }
  return args;
}

export function startChat(script) {
  let turnsPlayed = 0;
  return startServer((req, res) => {
    if (req.method !== 'POST' || !req.path.endsWith('/chat/completions')) {
      if (req.path.endsWith('/models')) return json(res, 200, { object: 'list', data: [{ id: 'mock-model', object: 'model' }] });
      return json(res, 404, { error: { message: 'scripted server', type: 'not_found' } });
    }
    const body = req.body ?? {};
    const tools = Array.isArray(body.tools) ? body.tools : [];
    const isModel = tools.length > 0;
    req.kind = isModel ? 'model' : 'side';
    const turn = isModel ? script(view(items(body)), req) : { text: 'Scripted session' };
    if (isModel) turnsPlayed++;
    const calls = [];
    for (const c of turn.calls ?? []) {
      const tool = toolNamed(tools, c.role === 'finish' ? FINISH_TOOLS : SHELL_TOOLS);
      if (tool) calls.push({ id: freshId('call_'), name: tool.name, arguments: JSON.stringify(argumentsFor(tool, c.role, c.input)) });
    }
    const id = freshId('chatcmpl-');
    const model = body.model ?? 'mock-model';
    const chunk = (delta, finish = null) => ({ id, object: 'chat.completion.chunk', created: 1765000000, model, choices: [{ index: 0, delta, finish_reason: finish }] });
    const events = [chunk({ role: 'assistant', content: '' })];
    if (turn.text) events.push(chunk({ content: turn.text }));
    calls.forEach((c, index) => events.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }] })));
    events.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
    const usage = { prompt_tokens: 1000 + 10 * turnsPlayed, completion_tokens: 20, total_tokens: 1020 + 10 * turnsPlayed, prompt_tokens_details: { cached_tokens: 0 } };
    events.push({ id, object: 'chat.completion.chunk', created: 1765000000, model, choices: [], usage });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
    res.end('data: [DONE]\n\n');
  });
}
