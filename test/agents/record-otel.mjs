#!/usr/bin/env node
// Records what each agent's OpenTelemetry exporter sends during one run of the looping script in
// otel-run.mjs, at its pinned version, into fixtures/otel/<agent>-<version>/: Claude Code's and
// Codex's OTLP/JSON requests one per line (as the Collector's file exporter writes them), Gemini
// CLI's telemetry outfile as it wrote it. Usage: node test/agents/record-otel.mjs [agent ...]
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS, ensureAgent } from './install.mjs';
import { ROOT } from './harness.mjs';
import { runWithTelemetry } from './otel-run.mjs';

// The agents' own texts (system prompt, tool descriptions, the whole request history) are theirs,
// not ours to commit: those attributes are left out, and any other string past LONG is replaced by
// a marker of its length. Gemini CLI's dump also carries its SDK's internals (span processors,
// exporters with their file descriptors): left out too.
const LEFT_OUT = new Set(['gen_ai.system_instructions', 'gen_ai.tool.definitions', 'gen_ai.tool.description', 'gen_ai.agent.description', 'request_text', 'gen_ai.input.messages', '_spanProcessor', '_spanLimits', '_logRecordLimits']);
const LONG = 2000;
function redact(value) {
  if (typeof value === 'string') return value.length > LONG ? `[${value.length} characters of the agent's own text, left out]` : value;
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    // OTLP attributes are {key, value} pairs: the pair goes when its key is one of the left-out ones.
    if (Array.isArray(value.attributes)) value = { ...value, attributes: value.attributes.filter((a) => !LEFT_OUT.has(a?.key)) };
    return Object.fromEntries(Object.entries(value).filter(([k]) => !LEFT_OUT.has(k)).map(([k, v]) => [k, redact(v)]));
  }
  return value;
}

/** Gemini CLI's outfile: pretty-printed objects one after another; each is redacted and kept pretty-printed. */
function redactConcatenated(text) {
  const out = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) out.push(JSON.stringify(redact(JSON.parse(text.slice(start, i + 1))), null, 2));
    }
  }
  return `${out.join('\n')}\n`;
}

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(AGENTS);
for (const agent of wanted) {
  const got = ensureAgent(agent);
  if (got.skip) {
    console.error(`${agent}: skipped: ${got.skip}`);
    continue;
  }
  const { run, otlp, outfile } = await runWithTelemetry(agent);
  const out = join(ROOT, 'fixtures', 'otel', `${agent}-${AGENTS[agent].version}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // Named .json (Gemini CLI writes whatever path telemetry.outfile gives): discovery reads .json files.
  if (agent === 'gemini') writeFileSync(join(out, 'telemetry.json'), redactConcatenated(outfile));
  else {
    // Codex's spans are its runtime's (tokio tasks, RPC: a megabyte, no conversation); its log
    // records carry their trace and span ids, so only the logs requests are kept.
    const keep = (req) => agent !== 'codex' || 'resourceLogs' in req;
    const lines = otlp.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter(keep);
    writeFileSync(join(out, 'otlp.jsonl'), lines.map((req) => JSON.stringify(redact(req))).join('\n') + '\n');
  }
  console.log(`${agent}: exit ${run.result.code}, ${otlp.length + outfile.length} bytes of telemetry -> ${out}`);
  rmSync(run.dir.root, { recursive: true, force: true });
}
