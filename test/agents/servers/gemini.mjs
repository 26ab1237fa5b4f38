// Gemini API (POST /v1beta/models/<model>:generateContent and :streamGenerateContent?alt=sse), as
// Gemini CLI speaks it. A request without tools (the CLI's own checks: next speaker, routing,
// summaries) is a side request: it gets a JSON or text answer and is not a model turn.
import { startServer, sse, json } from './http.mjs';
import { view, textOf } from './script.mjs';

function items(body) {
  const out = [];
  for (const c of body?.contents ?? []) {
    if (c.role === 'model') {
      out.push({ kind: 'model' });
      continue;
    }
    for (const p of c.parts ?? []) {
      if (p.functionResponse) out.push({ kind: 'result', text: textOf(p.functionResponse.response), name: p.functionResponse.name });
      else if (typeof p.text === 'string') out.push({ kind: 'user', text: p.text });
    }
  }
  return out;
}

function sideAnswer(body) {
  const cfg = body?.generationConfig ?? body?.config ?? {};
  const schema = cfg.responseJsonSchema ?? cfg.responseSchema;
  if (!schema) return 'ok';
  // Gemini CLI's structured checks: answer in the shape the schema asks for, saying "move on".
  const props = schema.properties ?? {};
  const value = {};
  for (const [k, p] of Object.entries(props)) {
    if (k === 'next_speaker') value[k] = 'user';
    else if (p.enum) value[k] = p.enum[0];
    else if (p.type === 'number' || p.type === 'NUMBER' || p.type === 'integer') value[k] = 0;
    else if (p.type === 'boolean' || p.type === 'BOOLEAN') value[k] = false;
    else value[k] = 'scripted';
  }
  return JSON.stringify(value);
}

export function startGemini(script) {
  let turnsPlayed = 0;
  return startServer((req, res) => {
    const m = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/.exec(req.path);
    if (req.method !== 'POST' || !m) return json(res, 404, { error: { code: 404, message: 'scripted server', status: 'NOT_FOUND' } });
    const body = req.body ?? {};
    if (m[2] === 'countTokens') return json(res, 200, { totalTokens: 100 });
    const tools = body.tools ?? body.config?.tools;
    const isModel = Array.isArray(tools) && tools.some((t) => Array.isArray(t.functionDeclarations) && t.functionDeclarations.length > 0);
    req.kind = isModel ? 'model' : 'side';
    const turn = isModel ? script(view(items(body)), req) : { text: sideAnswer(body) };
    if (isModel) turnsPlayed++;
    const parts = [];
    if (turn.thinking) parts.push({ text: turn.thinking, thought: true });
    if (turn.text) parts.push({ text: turn.text });
    for (const c of turn.calls ?? []) parts.push({ functionCall: { name: c.name, args: c.input } });
    const response = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 100 + turnsPlayed, candidatesTokenCount: 10, thoughtsTokenCount: turn.thinking ? 5 : 0, totalTokenCount: 110 + turnsPlayed + (turn.thinking ? 5 : 0) },
      modelVersion: m[1],
    };
    if (m[2] === 'generateContent') return json(res, 200, response);
    sse(res, [{ data: response }]);
  });
}
