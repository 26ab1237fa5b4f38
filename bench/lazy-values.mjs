// Whether reading a large value lazily pays (issue 59, item 3): a value nothing reads (Claude Code's
// `toolUseResult`, Codex's `encrypted_content`) cut out of each line before JSON.parse, against
// parsing the whole line. Alternated passes over every line of a store, held in memory first.
//   node --max-old-space-size=4000 bench/lazy-values.mjs bench/corpus/real-claude-<stamp> toolUseResult
//   node --max-old-space-size=4000 bench/lazy-values.mjs bench/corpus/real-codex-<stamp> encrypted_content
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
function* walk(d) { for (const n of readdirSync(d)) { const p = join(d, n); if (statSync(p).isDirectory()) yield* walk(p); else if (p.endsWith('.jsonl')) yield p; } }
const dir = process.argv[2];
const key = process.argv[3];
if (dir === undefined || key === undefined) {
  console.error('usage: node bench/lazy-values.mjs STORE_DIR KEY');
  process.exit(2);
}
const lines = [];
for (const f of walk(dir)) for (const l of readFileSync(f, 'utf8').split('\n')) if (l) lines.push(l);
let bytes = 0; for (const l of lines) bytes += l.length;
// Cut `"key":<value>` out of a line: a string-aware bracket match from the value's start.
function cut(line, key) {
  const at = line.indexOf(`"${key}":`);
  if (at < 0) return line;
  let i = at + key.length + 3;
  const c = line.charCodeAt(i);
  let end;
  if (c === 34) { // string
    let j = i + 1;
    for (;;) { const q = line.indexOf('"', j); let b = q - 1, n = 0; while (line.charCodeAt(b) === 92) { n++; b--; } if (n % 2 === 0) { end = q + 1; break; } j = q + 1; }
  } else if (c === 123 || c === 91) {
    let depth = 0, j = i;
    for (;;) {
      const ch = line.charCodeAt(j);
      if (ch === 34) { let k = j + 1; for (;;) { const q = line.indexOf('"', k); let b = q - 1, n = 0; while (line.charCodeAt(b) === 92) { n++; b--; } if (n % 2 === 0) { j = q; break; } k = q + 1; } }
      else if (ch === 123 || ch === 91) depth++;
      else if (ch === 125 || ch === 93) { depth--; if (depth === 0) { end = j + 1; break; } }
      j++;
    }
  } else return line;
  // drop a following comma or a preceding one
  if (line.charCodeAt(end) === 44) return line.slice(0, at) + line.slice(end + 1);
  return line.slice(0, at - (line.charCodeAt(at - 1) === 44 ? 1 : 0)) + line.slice(end);
}
let cutBytes = 0; for (const l of lines) cutBytes += cut(l, key).length;
console.log(`${lines.length} lines, ${(bytes / 1e6).toFixed(0)} M chars; without ${key}: ${(cutBytes / 1e6).toFixed(0)} M`);
for (let r = 0; r < 3; r++) {
  let t = performance.now(); let s = 0; for (const l of lines) s += JSON.parse(l) ? 1 : 0; const a = performance.now() - t;
  t = performance.now(); for (const l of lines) s += JSON.parse(cut(l, key)) ? 1 : 0; const b = performance.now() - t;
  console.log(`parse whole ${a.toFixed(0)} ms; cut+parse ${b.toFixed(0)} ms; ratio ${(b / a).toFixed(2)}`);
}
