// Anthropic Messages API (POST /v1/messages, SSE when `stream`), as Claude Code speaks it.
// A request without tools (titles, summaries) gets a one-word answer and is not a model turn.
import { startServer, sse, json } from './http.mjs';
import { view, freshId, textOf } from './script.mjs';

function items(body) {
  const out = [];
  for (const m of body?.messages ?? []) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content ?? []);
    if (m.role === 'assistant') out.push({ kind: 'model' });
    else
      for (const b of blocks) {
        if (b.type === 'tool_result') out.push({ kind: 'result', text: textOf(b.content), id: b.tool_use_id, isError: b.is_error === true });
        else if (b.type === 'text') out.push({ kind: 'user', text: b.text });
      }
  }
  return out;
}

function blocksOf(turn) {
  const blocks = [];
  if (turn.thinking) blocks.push({ type: 'thinking', thinking: turn.thinking, signature: 'c2lnbmF0dXJl' });
  if (turn.text) blocks.push({ type: 'text', text: turn.text });
  for (const c of turn.calls ?? []) blocks.push({ type: 'tool_use', id: freshId('toolu_'), name: c.name, input: c.input });
  return blocks;
}

export function startAnthropic(script) {
  let turnsPlayed = 0;
  return startServer((req, res) => {
    if (req.method !== 'POST' || !req.path.endsWith('/v1/messages')) {
      if (req.path.endsWith('/count_tokens')) return json(res, 200, { input_tokens: 100 });
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'scripted server' } });
    }
    const body = req.body ?? {};
    const isModel = Array.isArray(body.tools) && body.tools.length > 0;
    req.kind = isModel ? 'model' : 'side';
    const turn = isModel ? script(view(items(body)), req) : { text: 'ok' };
    if (isModel) turnsPlayed++;
    const blocks = blocksOf(turn);
    const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: 100 + turnsPlayed, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    const id = freshId('msg_');
    const message = { id, type: 'message', role: 'assistant', model: body.model ?? 'claude-scripted', content: blocks, stop_reason: stop, stop_sequence: null, usage };
    if (!body.stream) return json(res, 200, message);
    const events = [{ event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } } }];
    blocks.forEach((b, index) => {
      const start =
        b.type === 'text' ? { type: 'text', text: '' } : b.type === 'thinking' ? { type: 'thinking', thinking: '', signature: '' } : { type: 'tool_use', id: b.id, name: b.name, input: {} };
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } });
      const delta =
        b.type === 'text'
          ? { type: 'text_delta', text: b.text }
          : b.type === 'thinking'
            ? { type: 'thinking_delta', thinking: b.thinking }
            : { type: 'input_json_delta', partial_json: JSON.stringify(b.input) };
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } });
      if (b.type === 'thinking') events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } } });
      events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    });
    events.push({ event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } } });
    events.push({ event: 'message_stop', data: { type: 'message_stop' } });
    sse(res, events);
  });
}
