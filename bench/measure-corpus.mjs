// Measures a Claude Code store the way issue 30 measured a real one, so a generated store can be
// checked against those figures: bytes per line, per MB the assistant text, thinking, tool
// arguments, tool result content and structured `toolUseResult` (as JSON text), lines by type,
// median and largest file.
//   node bench/measure-corpus.mjs DIR

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const files = (path) =>
  statSync(path).isDirectory()
    ? readdirSync(path, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(path, e.name)) : e.name.endsWith('.jsonl') ? [join(path, e.name)] : []))
    : [path];

const list = files(process.argv[2]);
const sizes = [];
let bytes = 0;
let lines = 0;
const mix = { text: 0, thinking: 0, toolArguments: 0, toolResults: 0, toolUseResult: 0 };
const types = {};
const len = (v) => (typeof v === 'string' ? Buffer.byteLength(v) : Buffer.byteLength(JSON.stringify(v ?? null)));
for (const file of list) {
  const text = readFileSync(file, 'utf8');
  sizes.push(Buffer.byteLength(text));
  bytes += Buffer.byteLength(text);
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    lines++;
    const r = JSON.parse(line);
    types[r.type] = (types[r.type] ?? 0) + 1;
    if (r.toolUseResult !== undefined) mix.toolUseResult += len(r.toolUseResult);
    const content = r.message?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content) {
      if (r.type === 'assistant' && b.type === 'text') mix.text += len(b.text);
      else if (b.type === 'thinking') mix.thinking += len(b.thinking);
      else if (b.type === 'tool_use') mix.toolArguments += len(b.input);
      else if (b.type === 'tool_result') mix.toolResults += len(b.content);
    }
  }
}
sizes.sort((a, b) => a - b);
const mb = bytes / 1048576;
const out = {
  files: list.length,
  MB: +mb.toFixed(1),
  'bytes/line': Math.round(bytes / lines),
  'KB per MB': Object.fromEntries(Object.entries(mix).map(([k, v]) => [k, Math.round(v / 1024 / mb)])),
  'lines by type %': Object.fromEntries(Object.entries(types).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, +((100 * v) / lines).toFixed(1)])),
  'median file KB': Math.round(sizes[Math.floor(sizes.length / 2)] / 1024),
  'largest file MB': +(sizes.at(-1) / 1048576).toFixed(2),
};
out['KB per MB'].metadata = Math.round(1024 - Object.values(out['KB per MB']).reduce((a, b) => a + b, 0));
console.log(JSON.stringify(out, null, 1));
