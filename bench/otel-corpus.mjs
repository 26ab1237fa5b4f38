#!/usr/bin/env node
// Issue 32, item 4: "a 1 GB OTLP file is read at least as fast, per byte, as a transcript of the
// same size, in bounded memory". Writes, seeded, the same sessions three times, each file about
// SIZE bytes, into bench/corpus/otel/ (git-ignored):
//   claude-code  Claude Code 2.1.328's own telemetry as the Collector's file exporter writes it: log
//                records and spans with every attribute the real capture has (fixtures/otel/
//                claude-code-2.1.328), batched a dozen records to a request, logs and traces apart;
//                no tool output (Claude Code does not export it)
//   genai        GenAI semantic conventions (OpenLLMetry-like): an invoke_agent span per run, a chat
//                span per response with gen_ai.input.messages (the whole history so far) and
//                gen_ai.output.messages, an execute_tool span per call with its arguments and result
//   transcript   the same sessions as a Claude Code transcript (tool output included)
// In both OTLP files the requests of four runs at a time are interleaved, as a collector receiving
// from agents working side by side writes them, and a trace's spans arrive in the order they end.
// Then times `loopledger analyze FILE --format json` on each, alternated run by run, and prints
// MB/s, the ratio per byte to the transcript of the same run, and peak RSS.
//   node bench/otel-corpus.mjs [megabytes=1024] [--no-run] [--runs 2] [--keep]
// Files already there are reused; they are deleted after the run unless --keep or --no-run.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'corpus', 'otel');

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
const uuid = (r) => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;
const str = (key, v) => ({ key, value: { stringValue: String(v) } });
const int = (key, v) => ({ key, value: { intValue: v } });
const flag = (key, v) => ({ key, value: { boolValue: v } });
const ns = (ms) => `${ms}000000`;
const iso = (ms) => new Date(ms).toISOString();

/** One session: prompt, rounds of one Bash call each (one in five sessions loops on a failing test), a final answer. */
function session(r, n) {
  const rounds = [];
  const loop = r() < 0.2;
  for (let i = 0; i < 20 + Math.floor(r() * 20); i++) {
    const command = loop && i > 3 ? 'npm test -- invoice' : `grep -rn ${words(r, 1)} src/${words(r, 1)}`;
    rounds.push({ text: words(r, 20 + Math.floor(r() * 40)), command, output: words(r, 150 + Math.floor(r() * 300)), failed: loop && i > 3, id: `toolu_${hex(r, 20)}`, ms: 400 + Math.floor(r() * 2000) });
  }
  return { id: uuid(r), n, prompt: words(r, 25), rounds, answer: words(r, 60), start: 1767261600000 + n * 600_000 };
}

/** Claude Code 2.1.328: requests of ~12 records, logs and spans apart, spans in the order they end. */
function claudeCodeRequests(x, r) {
  const trace = hex(r, 32);
  const interaction = hex(r, 16);
  const user = hex(r, 64);
  const prompt = uuid(r);
  const common = [str('user.id', user), str('session.id', x.id), str('anthropic.provider', 'firstParty'), flag('anthropic.custom_base_url', false), str('terminal.type', 'xterm-256color')];
  const spanCommon = [...common, str('gen_ai.provider.name', 'anthropic')];
  let sequence = 0;
  const logs = [];
  const log = (t, name, span, attrs) =>
    logs.push({ timeUnixNano: ns(t), observedTimeUnixNano: ns(t), body: { stringValue: `claude_code.${name}` }, attributes: [...common, str('event.name', name), str('event.timestamp', iso(t)), int('event.sequence', sequence++), str('prompt.id', prompt), ...attrs], droppedAttributesCount: 0, flags: 1, traceId: trace, spanId: span });
  const spans = [];
  const span = (id, parent, name, start, end, attrs, extra = {}) =>
    spans.push({ traceId: trace, spanId: id, ...(parent ? { parentSpanId: parent } : {}), name: `claude_code.${name}`, kind: 1, startTimeUnixNano: ns(start), endTimeUnixNano: `${end}${String(Math.floor(r() * 1e6)).padStart(6, '0')}`, attributes: [...spanCommon, str('span.type', name), str('gen_ai.conversation.id', x.id), ...attrs], droppedAttributesCount: 0, events: [], droppedEventsCount: 0, status: { code: 0 }, links: [], droppedLinksCount: 0, flags: 257, ...extra });
  log(x.start, 'user_prompt', interaction, [str('prompt_length', x.prompt.length), str('prompt', x.prompt), str('prompt_text', x.prompt), str('message.uuid', uuid(r))]);
  let t = x.start + 300;
  for (const rd of [...x.rounds, { text: x.answer }]) {
    const llm = hex(r, 16);
    const duration = 600 + Math.floor(r() * 3000);
    const tokens = [int('input_tokens', 2000 + Math.floor(r() * 30000)), int('output_tokens', 40 + Math.floor(r() * 400)), int('cache_read_tokens', 0), int('cache_creation_tokens', 0)];
    const stop = rd.command ? 'tool_use' : 'end_turn';
    span(llm, interaction, 'llm_request', t, t + duration, [str('model', 'claude-sonnet-4-5'), str('gen_ai.system', 'anthropic'), str('gen_ai.request.model', 'claude-sonnet-4-5'), str('llm_request.context', 'interaction'), str('speed', 'normal'), str('query_source_safe', 'sdk'), int('duration_ms', duration), ...tokens, flag('success', true), int('attempt', 1), int('ttft_ms', 300), int('first_content_ms', 310), str('effort', 'medium'), str('stop_reason', stop), { key: 'gen_ai.response.finish_reasons', value: { arrayValue: { values: [{ stringValue: stop }] } } }], { events: [{ attributes: [int('attempt', 1)], name: 'gen_ai.request.attempt', timeUnixNano: ns(t + 5), droppedAttributesCount: 0 }] });
    t += duration;
    log(t, 'api_request', llm, [str('model', 'claude-sonnet-4-5'), ...tokens, int('cache_creation_5m_tokens', 0), int('cache_creation_1h_tokens', 0), { key: 'cost_usd', value: { doubleValue: 0.0123 } }, int('cost_usd_micros', 12300), int('duration_ms', duration), int('ttft_ms', 300), str('speed', 'normal'), str('query_source', 'sdk'), str('effort', 'medium')]);
    log(t + 1, 'assistant_response', llm, [int('response_length', rd.text.length), str('response', rd.text), str('message.uuid', uuid(r)), str('model', 'claude-sonnet-4-5'), str('query_source', 'sdk')]);
    if (rd.command) {
      const tool = hex(r, 16);
      const blocked = hex(r, 16);
      const params = JSON.stringify({ bash_command: rd.command.split(' ')[0], full_command: rd.command, description: 'run it' });
      const input = JSON.stringify({ command: rd.command, description: 'run it' });
      log(t + 2, 'tool_decision', blocked, [str('decision', 'accept'), str('source', 'config'), str('tool_name', 'Bash'), str('tool_use_id', rd.id), str('tool_source', 'builtin'), str('tool_parameters', params), str('permission_mode', 'default')]);
      span(blocked, tool, 'tool.blocked_on_user', t + 1, t + 2, [int('duration_ms', 1), str('decision', 'accept'), str('source', 'config')]);
      const failed = rd.failed ? [str('error_type', 'ShellError'), str('error', 'Shell command failed')] : [];
      span(hex(r, 16), tool, 'tool.execution', t + 2, t + 2 + rd.ms, [str('tool_use_id', rd.id), str('gen_ai.tool.call.id', rd.id), int('duration_ms', rd.ms), flag('success', !rd.failed), ...(rd.failed ? [str('error.type', 'tool_error'), str('error', 'Shell command failed'), str('error_class', 'ShellError')] : [])], rd.failed ? { status: { code: 2, message: 'Shell command failed' } } : {});
      log(t + 2 + rd.ms, 'tool_result', tool, [str('tool_name', 'Bash'), str('tool_use_id', rd.id), str('success', !rd.failed), str('duration_ms', rd.ms), ...failed, str('tool_parameters', params), str('tool_input', input), str('tool_input_size_bytes', input.length)]);
      span(tool, llm, 'tool', t + 1, t + 3 + rd.ms, [str('tool_name', 'Bash'), str('tool_name_safe', 'Bash'), str('gen_ai.operation.name', 'execute_tool'), str('gen_ai.tool.name', 'Bash'), str('full_command', rd.command), str('bash_command_class', 'search'), str('bash_argv0', rd.command.split(' ')[0]), str('tool_use_id', rd.id), str('gen_ai.tool.call.id', rd.id), int('duration_ms', rd.ms + 1)]);
      t += rd.ms + 10;
    }
  }
  span(interaction, null, 'interaction', x.start, t, [str('gen_ai.operation.name', 'invoke_agent'), str('user_prompt', x.prompt), int('user_prompt_length', x.prompt.length), int('interaction.sequence', 1), str('parent.source', 'none'), int('queued_sends', 0), int('interaction.duration_ms', t - x.start)]);
  const resource = { attributes: [str('host.arch', 'amd64'), str('os.type', 'linux'), str('os.version', '6.8.0-51-generic'), str('service.name', 'claude-code'), str('service.version', '2.1.328')], droppedAttributesCount: 0 };
  const out = [];
  for (let i = 0; i < Math.max(logs.length, spans.length); i += 12) {
    const l = logs.slice(i, i + 12);
    const sp = spans.slice(i, i + 12);
    if (l.length) out.push(JSON.stringify({ resourceLogs: [{ resource, scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events', version: '2.1.328' }, logRecords: l }] }] }));
    if (sp.length) out.push(JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 'com.anthropic.claude_code.tracing', version: '1.0.0' }, spans: sp }] }] }));
  }
  return out;
}

/** GenAI semantic conventions 1.37+: spans only, sent in the order they end (the agent's span last). */
function genaiRequests(x, r) {
  const trace = hex(r, 32);
  const agent = hex(r, 16);
  const common = [str('gen_ai.conversation.id', x.id), str('gen_ai.provider.name', 'openai')];
  const spans = [];
  const span = (name, start, end, attrs, status = { code: 0 }) =>
    spans.push({ traceId: trace, spanId: hex(r, 16), parentSpanId: agent, name, kind: name.startsWith('chat') ? 3 : 1, startTimeUnixNano: ns(start), endTimeUnixNano: ns(end), attributes: [...common, ...attrs], status });
  const history = [{ role: 'system', parts: [{ type: 'text', content: 'You are a coding agent. Use the shell tool to inspect and fix the repository.' }] }, { role: 'user', parts: [{ type: 'text', content: x.prompt }] }];
  let t = x.start + 50;
  let input = 0;
  let output = 0;
  for (const rd of [...x.rounds, { text: x.answer }]) {
    const parts = [{ type: 'text', content: rd.text }];
    const call = rd.command ? `call_${rd.id.slice(6)}` : null;
    if (call) parts.push({ type: 'tool_call', id: call, name: 'shell', arguments: { command: rd.command } });
    const reply = { role: 'assistant', parts, finish_reason: call ? 'tool_call' : 'stop' };
    const duration = 600 + Math.floor(r() * 3000);
    const tokensIn = 2000 + history.length * 300;
    input += tokensIn;
    output += 80;
    span('chat gpt-4.1', t, t + duration, [str('gen_ai.operation.name', 'chat'), str('gen_ai.request.model', 'gpt-4.1'), str('gen_ai.response.model', 'gpt-4.1-2025-04-14'), str('gen_ai.response.id', `chatcmpl-${hex(r, 24)}`), { key: 'gen_ai.response.finish_reasons', value: { arrayValue: { values: [{ stringValue: reply.finish_reason }] } } }, int('gen_ai.usage.input_tokens', String(tokensIn)), int('gen_ai.usage.output_tokens', '80'), str('gen_ai.input.messages', JSON.stringify(history)), str('gen_ai.output.messages', JSON.stringify([reply]))]);
    history.push(reply);
    t += duration;
    if (call) {
      span('execute_tool shell', t + 5, t + 5 + rd.ms, [str('gen_ai.operation.name', 'execute_tool'), str('gen_ai.tool.name', 'shell'), str('gen_ai.tool.type', 'function'), str('gen_ai.tool.call.id', call), str('gen_ai.tool.call.arguments', JSON.stringify({ command: rd.command })), str('gen_ai.tool.call.result', rd.output), ...(rd.failed ? [str('error.type', 'ToolError')] : [])], rd.failed ? { code: 2, message: 'exit code 1' } : { code: 0 });
      history.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: call, result: rd.output }] });
      t += rd.ms + 10;
    }
  }
  spans.push({ traceId: trace, spanId: agent, name: 'invoke_agent coder', kind: 1, startTimeUnixNano: ns(x.start), endTimeUnixNano: ns(t), attributes: [...common, str('gen_ai.operation.name', 'invoke_agent'), str('gen_ai.agent.name', 'coder'), int('gen_ai.usage.input_tokens', String(input)), int('gen_ai.usage.output_tokens', String(output))], status: { code: 0 } });
  const resource = { attributes: [str('service.name', 'coder'), str('telemetry.sdk.language', 'python'), str('telemetry.sdk.name', 'opentelemetry'), str('telemetry.sdk.version', '1.38.0')] };
  const out = [];
  for (let i = 0; i < spans.length; i += 12) out.push(JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 'opentelemetry.instrumentation.openai_v2', version: '2.1b0' }, spans: spans.slice(i, i + 12) }] }] }));
  return out;
}

function transcriptLines(x, r) {
  const base = { sessionId: x.id, cwd: '/work/app', version: '2.1.328', gitBranch: 'main', userType: 'external', isSidechain: false };
  let parent = null;
  let t = x.start;
  const line = (o) => {
    const id = uuid(r);
    const text = JSON.stringify({ parentUuid: parent, ...base, ...o, uuid: id, timestamp: new Date((t += 700)).toISOString() });
    parent = id;
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

/** Sessions written until `target` bytes; with `side` > 1 the lines of that many sessions at a time interleaved (seeded). */
async function write(file, target, linesOf, seed, side) {
  const r = rng(seed);
  // Written under another name and renamed once whole: an interrupted run leaves no file to be reused.
  const partial = `${file}.partial`;
  const out = createWriteStream(partial);
  let bytes = 0;
  let n = 0;
  const open = [];
  while (bytes < target || open.length > 0) {
    while (bytes < target && open.length < side) open.push(linesOf(session(r, n++), r));
    const k = Math.floor(r() * open.length);
    const chunk = `${side > 1 ? open[k].shift() : open[k].splice(0).join('\n')}\n`;
    if (open[k].length === 0) open.splice(k, 1);
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(partial, file);
  return bytes;
}

/** The three files of about `megabytes` each (the same sessions: one seed); a file already there is kept. */
export async function generateOtelCorpus(megabytes, dir = OUT) {
  mkdirSync(dir, { recursive: true });
  const target = megabytes * 2 ** 20;
  const files = { transcript: join(dir, `transcript-${megabytes}mb.jsonl`), 'claude-code': join(dir, `claude-code-otlp-${megabytes}mb.jsonl`), genai: join(dir, `genai-otlp-${megabytes}mb.jsonl`) };
  const writers = { transcript: [transcriptLines, 1], 'claude-code': [claudeCodeRequests, 4], genai: [genaiRequests, 4] };
  for (const [name, [linesOf, side]] of Object.entries(writers)) if (!existsSync(files[name])) await write(files[name], target, linesOf, 32, side);
  return files;
}

function time(file) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, join(ROOT, 'bin', 'loopledger.js'), 'analyze', file, '--format', 'json', '--output-file', '/dev/null'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const [seconds, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { seconds, rssMB: kb / 1024, status: r.status };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const megabytes = Number(args.find((a) => /^\d+$/.test(a)) ?? 1024);
  const runsAt = args.indexOf('--runs');
  const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 2;
  const files = await generateOtelCorpus(megabytes);
  if (!args.includes('--no-run')) {
    const rows = Object.fromEntries(Object.keys(files).map((k) => [k, { mbs: [], perByte: [], rss: [] }]));
    for (let i = 0; i < runs; i++) {
      // One run: each file once, back to back, so its ratios share the same load.
      const seconds = {};
      for (const [name, file] of Object.entries(files)) {
        const t = time(file);
        if (t.status !== 0) throw new Error(`${file}: exit ${t.status}`);
        seconds[name] = t.seconds / (statSync(file).size / 2 ** 20);
        rows[name].mbs.push(1 / seconds[name]);
        rows[name].rss.push(t.rssMB);
      }
      for (const name of Object.keys(files)) rows[name].perByte.push(seconds.transcript / seconds[name]);
    }
    console.log(`${runs} runs, alternated; load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log('file (MB)                      MB/s per run     speed per byte / transcript   peak RSS MB');
    for (const [name, row] of Object.entries(rows)) {
      const mb = (statSync(files[name]).size / 2 ** 20).toFixed(0);
      console.log(`${`${name} (${mb})`.padEnd(30)} ${row.mbs.map((x) => x.toFixed(1)).join(' / ').padEnd(16)} ${row.perByte.map((x) => x.toFixed(2)).join(' / ').padEnd(29)} ${row.rss.map((x) => x.toFixed(0)).join(' / ')}`);
    }
    if (!args.includes('--keep')) for (const file of Object.values(files)) rmSync(file);
  }
}
