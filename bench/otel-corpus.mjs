#!/usr/bin/env node
// Issue 32, item 4: "a 1 GB OTLP file is read at least as fast, per byte, as a transcript of the
// same size, in bounded memory". Writes, seeded, the same sessions twice: as Claude Code telemetry
// (OTLP/JSON requests one per line, as the Collector's file exporter writes them: log records and
// spans, batched and interleaved like a real exporter) and as a Claude Code transcript, each of
// about SIZE bytes, into bench/corpus/otel/ (git-ignored); then times `loopledger analyze` on both
// and prints MB/s and peak RSS. Usage: node bench/otel-corpus.mjs [megabytes=1024] [--no-run]
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'corpus', 'otel');
const megabytes = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 1024);
const target = megabytes * 2 ** 20;

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const WORDS = 'the test failed because the fixture is stale so I will read the module and run the suite again with more output config parser cache index schema retry timeout'.split(' ');
const words = (r, n) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
const hex = (r, n) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');
const s = (key, v) => ({ key, value: { stringValue: String(v) } });

/** One session: prompt, rounds of one Bash call each (some looping), a final answer. */
function session(r, n) {
  const id = `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;
  const rounds = [];
  const loop = r() < 0.2;
  for (let i = 0; i < 20 + Math.floor(r() * 20); i++) {
    const command = loop && i > 3 ? 'npm test -- invoice' : `grep -rn ${words(r, 1)} src/${words(r, 1)}`;
    rounds.push({ text: words(r, 20 + Math.floor(r() * 40)), command, output: words(r, 150 + Math.floor(r() * 300)), failed: loop && i > 3, id: `toolu_${hex(r, 20)}` });
  }
  return { id, n, prompt: words(r, 25), rounds, answer: words(r, 60), start: 1767261600000 + n * 600_000 };
}

function otlpLines(x, r) {
  const trace = hex(r, 32);
  const root = hex(r, 16);
  const common = [s('session.id', x.id), s('gen_ai.conversation.id', x.id)];
  const ns = (ms) => `${ms}000000`;
  const log = (t, name, attrs) => ({ timeUnixNano: ns(t), observedTimeUnixNano: ns(t), body: { stringValue: `claude_code.${name}` }, attributes: [...common, s('event.name', name), ...attrs], traceId: trace, spanId: root });
  const logs = [log(x.start, 'user_prompt', [s('prompt', x.prompt)])];
  const spans = [{ traceId: trace, spanId: root, name: 'claude_code.interaction', kind: 1, startTimeUnixNano: ns(x.start), endTimeUnixNano: ns(x.start + 500_000), attributes: [...common, s('user_prompt', x.prompt)], status: { code: 0 } }];
  let t = x.start + 100;
  for (const rd of [...x.rounds, { text: x.answer }]) {
    const llm = hex(r, 16);
    spans.push({ traceId: trace, spanId: llm, parentSpanId: root, name: 'claude_code.llm_request', kind: 1, startTimeUnixNano: ns(t), endTimeUnixNano: ns(t + 900), attributes: [...common, s('model', 'claude-sonnet-4-5'), s('input_tokens', 2000), s('output_tokens', 80)], status: { code: 0 } });
    if (rd.command) logs.push(log(t + 500, 'tool_decision', [s('tool_name', 'Bash'), s('tool_use_id', rd.id), s('decision', 'accept')]));
    logs.push(log(t + 900, 'api_request', [s('model', 'claude-sonnet-4-5'), s('input_tokens', 2000), s('output_tokens', 80), s('cache_read_tokens', 0), s('cache_creation_tokens', 0), s('duration_ms', 900)]));
    logs.push(log(t + 901, 'assistant_response', [s('response', rd.text)]));
    if (rd.command) {
      const input = JSON.stringify({ command: rd.command, description: 'run it' });
      logs.push(log(t + 1500, 'tool_result', [s('tool_name', 'Bash'), s('tool_use_id', rd.id), s('success', !rd.failed), s('duration_ms', 500), ...(rd.failed ? [s('error', 'Exit code 1')] : []), s('tool_input', input), s('tool_output', rd.output)]));
      spans.push({ traceId: trace, spanId: hex(r, 16), parentSpanId: root, name: 'claude_code.tool', kind: 1, startTimeUnixNano: ns(t + 1000), endTimeUnixNano: ns(t + 1500), attributes: [...common, s('tool_name', 'Bash'), s('tool_use_id', rd.id), s('full_command', rd.command)], status: { code: 0 } });
    }
    t += 2000;
  }
  const resource = { attributes: [s('service.name', 'claude-code'), s('service.version', '2.1.328')] };
  const out = [];
  // Batches of a dozen records, logs and traces in separate requests, as the SDK's batch processors send them.
  for (let i = 0; i < Math.max(logs.length, spans.length); i += 12) {
    const l = logs.slice(i, i + 12);
    const sp = spans.slice(i, i + 12);
    if (l.length) out.push(JSON.stringify({ resourceLogs: [{ resource, scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events', version: '2.1.328' }, logRecords: l }] }] }));
    if (sp.length) out.push(JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 'com.anthropic.claude_code.tracing', version: '1.0.0' }, spans: sp }] }] }));
  }
  return out;
}

function transcriptLines(x, r) {
  const base = { sessionId: x.id, cwd: '/work/app', version: '2.1.328', gitBranch: 'main', userType: 'external', isSidechain: false };
  let parent = null;
  let t = x.start;
  const line = (o) => {
    const uuid = `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;
    const text = JSON.stringify({ parentUuid: parent, ...base, ...o, uuid, timestamp: new Date((t += 700)).toISOString() });
    parent = uuid;
    return text;
  };
  const out = [line({ type: 'user', message: { role: 'user', content: x.prompt } })];
  const usage = { input_tokens: 2000, output_tokens: 80, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  for (const rd of [...x.rounds, { text: x.answer }]) {
    const content = [{ type: 'text', text: rd.text }];
    if (rd.command) content.push({ type: 'tool_use', id: rd.id, name: 'Bash', input: { command: rd.command, description: 'run it' } });
    out.push(line({ type: 'assistant', requestId: `req_${hex(r, 24)}`, message: { id: `msg_${hex(r, 24)}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason: rd.command ? 'tool_use' : 'end_turn', usage } }));
    if (rd.command) out.push(line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: rd.id, content: rd.output, is_error: rd.failed }] } }));
  }
  return out;
}

async function write(file, linesOf, seed) {
  const r = rng(seed);
  const out = createWriteStream(file);
  let bytes = 0;
  for (let n = 0; bytes < target; n++) {
    const chunk = `${linesOf(session(r, n), r).join('\n')}\n`;
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}

function time(file) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, join(ROOT, 'bin', 'loopledger.js'), 'analyze', file, '--format', 'json', '--output-file', '/dev/null'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const [seconds, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { seconds, rssMB: kb / 1024, status: r.status };
}

mkdirSync(OUT, { recursive: true });
const otlp = join(OUT, `claude-code-otlp-${megabytes}mb.jsonl`);
const transcript = join(OUT, `claude-code-transcript-${megabytes}mb.jsonl`);
await write(otlp, otlpLines, 32);
await write(transcript, transcriptLines, 32);
if (!process.argv.includes('--no-run')) {
  for (const file of [transcript, otlp, transcript, otlp]) {
    const t = time(file);
    const mb = statSync(file).size / 2 ** 20;
    console.log(`${file.split('/').pop()}: ${mb.toFixed(0)} MB in ${t.seconds.toFixed(1)} s = ${(mb / t.seconds).toFixed(1)} MB/s, peak RSS ${t.rssMB.toFixed(0)} MB (exit ${t.status})`);
  }
}
