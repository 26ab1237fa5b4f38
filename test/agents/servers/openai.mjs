// OpenAI Responses API (POST /v1/responses, SSE), as Codex speaks it. A request without tools
// (a title, a summary) is a side request and is not a model turn.
import { startServer, sse, json } from './http.mjs';
import { view, freshId, textOf } from './script.mjs';

const MODEL_ITEMS = new Set(['function_call', 'reasoning', 'custom_tool_call', 'local_shell_call']);

function items(body) {
  const out = [];
  for (const it of Array.isArray(body?.input) ? body.input : []) {
    if (MODEL_ITEMS.has(it.type) || (it.type === 'message' && it.role === 'assistant')) out.push({ kind: 'model' });
    else if (it.type === 'function_call_output' || it.type === 'custom_tool_call_output') out.push({ kind: 'result', text: textOf(it.output), id: it.call_id });
    else if (it.type === 'message' && it.role === 'user') out.push({ kind: 'user', text: textOf(it.content) });
  }
  return out;
}

export function startOpenAI(script) {
  let turnsPlayed = 0;
  return startServer((req, res) => {
    if (req.method !== 'POST' || !req.path.endsWith('/responses')) {
      if (req.path.endsWith('/models')) return json(res, 200, { object: 'list', data: [], models: [] });
      return json(res, 404, { error: { message: 'scripted server', type: 'not_found' } });
    }
    const body = req.body ?? {};
    const isModel = Array.isArray(body.tools) && body.tools.length > 0;
    req.kind = isModel ? 'model' : 'side';
    const turn = isModel ? script(view(items(body)), req) : { text: 'ok' };
    if (isModel) turnsPlayed++;
    const output = [];
    if (turn.thinking) output.push({ type: 'reasoning', id: freshId('rs_'), summary: [{ type: 'summary_text', text: turn.thinking }] });
    if (turn.text) output.push({ type: 'message', id: freshId('msg_'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] });
    for (const c of turn.calls ?? []) {
      output.push({ type: 'function_call', id: freshId('fc_'), call_id: freshId('call_'), name: c.name, arguments: JSON.stringify(c.input), status: 'completed' });
    }
    const id = freshId('resp_');
    const usage = {
      input_tokens: 100 + turnsPlayed,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: turn.thinking ? 5 : 0 },
      total_tokens: 110 + turnsPlayed,
    };
    const response = { id, object: 'response', status: 'completed', model: body.model ?? 'gpt-scripted', output, usage };
    const events = [{ event: 'response.created', data: { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } } }];
    output.forEach((item, i) => {
      events.push({ event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: i, item } });
      if (item.type === 'message') events.push({ event: 'response.output_text.delta', data: { type: 'response.output_text.delta', item_id: item.id, output_index: i, content_index: 0, delta: item.content[0].text } });
      events.push({ event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: i, item } });
    });
    events.push({ event: 'response.completed', data: { type: 'response.completed', response } });
    sse(res, events);
  });
}
