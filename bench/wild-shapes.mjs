// The shapes of a folder of real transcripts (issue 59, item 1), per agent, as numbers only, so the
// real-shaped bench corpus (bench/real-store.mjs) can be generated to match and checked against them
// (bench/measure-corpus.mjs). Measured on the wild corpus (/work/wild-data, bench/wild/README.md);
// its printed figures are committed as bench/wild-shapes.json, the generator's targets.
//   per MB    KB of assistant text, thinking (Codex: reasoning summaries; encrypted reasoning apart),
//             tool arguments, tool results, Claude Code's structured `toolUseResult`; rounds
//   loops     runs of ≥ 5 consecutive rounds with the same tool calls (name and arguments): per 100
//             MB, median / p90 / max rounds; and the labelled loop windows of bench/wild/manifest.jsonl
//             (rounds per window), where the folder is the wild corpus
//   sub-agent share of bytes (Claude Code: sidechain lines and subagents/ files), compactions per
//   100 MB, tool result sizes (bytes: p50 / p90 / p99 / max), median and largest file
//   node bench/wild-shapes.mjs DIR [--manifest bench/wild/manifest.jsonl]

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

const LOOP_MIN = 5;
const len = (v) => (typeof v === 'string' ? Buffer.byteLength(v) : Buffer.byteLength(JSON.stringify(v ?? null)));
const walk = (path) =>
  statSync(path).isDirectory()
    ? readdirSync(path, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(path, e.name)) : e.name.endsWith('.jsonl') ? [join(path, e.name)] : []))
    : [path];
const pctl = (sorted, p) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]);

function blank() {
  return { files: 0, bytes: 0, fileSizes: [], text: 0, thinking: 0, encryptedReasoning: 0, toolArguments: 0, toolResults: 0, toolUseResult: 0, rounds: 0, subAgentBytes: 0, compactions: 0, resultSizes: [], loops: [] };
}

/** Consecutive equal non-empty signatures: the lengths of runs of at least LOOP_MIN. */
function identicalRuns(signatures) {
  const runs = [];
  let n = 0;
  for (let i = 0; i < signatures.length; i++) {
    n = i > 0 && signatures[i] !== '' && signatures[i] === signatures[i - 1] ? n + 1 : 1;
    const ends = i === signatures.length - 1 || signatures[i + 1] !== signatures[i];
    if (ends && n >= LOOP_MIN && signatures[i] !== '') runs.push(n);
  }
  return runs;
}

function claude(lines, s, path) {
  const subFile = path.includes('/subagents/') || basename(path).startsWith('agent-');
  const rounds = new Map();
  // Newer Claude Code marks a compaction with a boundary line and a summary; older with the summary only.
  let boundaries = 0;
  let summaries = 0;
  for (const { line, r } of lines) {
    if (subFile || r.isSidechain === true) s.subAgentBytes += line.length + 1;
    if (r.subtype === 'compact_boundary') boundaries++;
    if (r.isCompactSummary === true) summaries++;
    if (r.toolUseResult !== undefined) s.toolUseResult += len(r.toolUseResult);
    const content = r.message?.content;
    if (!Array.isArray(content)) continue;
    const key = r.type === 'assistant' ? (r.message.id ?? r.uuid) : null;
    if (key !== null && !rounds.has(key)) rounds.set(key, []);
    for (const b of content) {
      if (r.type === 'assistant' && b.type === 'text') s.text += len(b.text);
      else if (b.type === 'thinking') s.thinking += len(b.thinking);
      else if (b.type === 'tool_use') {
        s.toolArguments += len(b.input);
        rounds.get(key)?.push(`${b.name}:${JSON.stringify(b.input)}`);
      } else if (b.type === 'tool_result') {
        const n = len(b.content);
        s.toolResults += n;
        s.resultSizes.push(n);
      }
    }
  }
  s.compactions += Math.max(boundaries, summaries);
  return [...rounds.values()].map((calls) => calls.join('|'));
}

function codex(lines, s) {
  const signatures = [];
  let open = false;
  for (const { r } of lines) {
    if (r.type === 'compacted' || r.payload?.type === 'context_compacted') s.compactions++;
    if (r.type !== 'response_item') continue;
    const p = r.payload ?? {};
    const assistantSide = p.type === 'reasoning' || p.type === 'function_call' || p.type === 'custom_tool_call' || p.type === 'local_shell_call' || (p.type === 'message' && p.role === 'assistant');
    if (assistantSide && !open) signatures.push('');
    open = assistantSide;
    if (p.type === 'message' && p.role === 'assistant') for (const c of p.content ?? []) s.text += len(c.text ?? '');
    else if (p.type === 'reasoning') {
      for (const c of p.summary ?? []) s.thinking += len(c.text ?? '');
      for (const c of p.content ?? []) s.thinking += len(c.text ?? '');
      s.encryptedReasoning += len(p.encrypted_content ?? '');
    } else if (p.type === 'function_call' || p.type === 'custom_tool_call' || p.type === 'local_shell_call') {
      const args = p.arguments ?? p.input ?? p.action;
      s.toolArguments += len(args);
      const sep = signatures.at(-1) === '' ? '' : '|';
      signatures[signatures.length - 1] += `${sep}${p.name ?? p.type}:${typeof args === 'string' ? args : JSON.stringify(args)}`;
    } else if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output' || p.type === 'local_shell_call_output') {
      const n = len(p.output);
      s.toolResults += n;
      s.resultSizes.push(n);
    }
  }
  return signatures;
}

/** Rounds of one transcript file, its figures added to its agent's. */
function measureFile(path, byAgent) {
  const text = readFileSync(path, 'utf8');
  const lines = [];
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    try {
      lines.push({ line, r: JSON.parse(line) });
    } catch {
      // A torn last line, as live stores have: not a shape.
    }
  }
  const first = lines.find(({ r }) => r.type !== undefined)?.r;
  const agent = first === undefined ? null : ['session_meta', 'response_item', 'event_msg', 'turn_context'].includes(first.type) ? 'codex' : lines.some(({ r }) => r.sessionId !== undefined && r.message !== undefined) ? 'claude-code' : null;
  if (agent === null) return null;
  byAgent[agent] ??= blank();
  const s = byAgent[agent];
  const bytes = Buffer.byteLength(text);
  s.files++;
  s.bytes += bytes;
  s.fileSizes.push(bytes);
  const signatures = agent === 'codex' ? codex(lines, s) : claude(lines, s, path);
  s.rounds += signatures.length;
  s.loops.push(...identicalRuns(signatures));
  return agent;
}

/** Rounds per labelled window, by agent, for the files of DIR that the manifest names (by blob). */
function labelledWindows(manifestPath, present) {
  const out = {};
  if (!existsSync(manifestPath)) return out;
  for (const line of readFileSync(manifestPath, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line);
    if (!present.has(row.blob)) continue;
    for (const w of row.windows ?? []) (out[row.agent] ??= []).push(w.to_round - w.from_round + 1);
  }
  return out;
}

export function shapesOf(dir, manifestPath) {
  const byAgent = {};
  const present = new Set();
  for (const path of walk(dir)) if (measureFile(path, byAgent) !== null) present.add(basename(path, '.jsonl'));
  const windows = manifestPath === undefined ? {} : labelledWindows(manifestPath, present);
  const result = {};
  for (const [agent, s] of Object.entries(byAgent).sort()) {
    const mb = s.bytes / 1048576;
    const perMb = (v) => +(v / 1024 / mb).toFixed(1);
    const sizes = s.resultSizes.sort((a, b) => a - b);
    const loops = s.loops.sort((a, b) => a - b);
    const files = s.fileSizes.sort((a, b) => a - b);
    const w = (windows[agent] ?? []).sort((a, b) => a - b);
    result[agent] = {
      files: s.files,
      MB: +mb.toFixed(1),
      'KB per MB': {
        text: perMb(s.text),
        thinking: perMb(s.thinking),
        ...(agent === 'codex' ? { encryptedReasoning: perMb(s.encryptedReasoning) } : { toolUseResult: perMb(s.toolUseResult) }),
        toolArguments: perMb(s.toolArguments),
        toolResults: perMb(s.toolResults),
      },
      'rounds per MB': +(s.rounds / mb).toFixed(1),
      [`loops (≥ ${LOOP_MIN} identical rounds)`]: { 'per 100 MB': +((100 * loops.length) / mb).toFixed(1), 'median rounds': pctl(loops, 0.5), 'p90 rounds': pctl(loops, 0.9), 'max rounds': loops.at(-1) ?? 0 },
      ...(w.length > 0 ? { 'labelled loop windows': { count: w.length, 'median rounds': pctl(w, 0.5), 'max rounds': w.at(-1) } } : {}),
      'sub-agent share %': +((100 * s.subAgentBytes) / s.bytes).toFixed(1),
      'compactions per 100 MB': +((100 * s.compactions) / mb).toFixed(1),
      'tool result bytes p50/p90/p99/max': [0.5, 0.9, 0.99].map((p) => pctl(sizes, p)).concat(sizes.at(-1) ?? 0),
      'median file KB': Math.round(pctl(files, 0.5) / 1024),
      'largest file MB': +((files.at(-1) ?? 0) / 1048576).toFixed(2),
    };
  }
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--manifest');
  const manifest = i >= 0 ? args[i + 1] : new URL('./wild/manifest.jsonl', import.meta.url).pathname;
  console.log(JSON.stringify(shapesOf(args[0], manifest), null, 1));
}
