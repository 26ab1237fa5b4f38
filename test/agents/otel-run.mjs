// One real agent run with its OpenTelemetry exporter on: Claude Code and Codex post OTLP/HTTP JSON
// to a receiver on 127.0.0.1 (test/agents/servers/otlp.mjs), Gemini CLI writes its telemetry
// outfile. The model repeats one failing shell call, so both the transcript and the traces hold a loop.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAgent, SHELL } from './harness.mjs';
import { startOtlp } from './servers/otlp.mjs';

/** How many times the scripted model repeats the failing call before giving up. */
export const REPEATS = 5;

export function loopScript(agent) {
  const call = SHELL[agent]('cat missing.txt');
  return (v) => {
    if (v.modelTurns === 0) return { text: 'Reading missing.txt first.', calls: [call] };
    if (v.modelTurns < REPEATS) return { calls: [call] };
    return { text: 'missing.txt does not exist, so there is nothing to fix.' };
  };
}

function telemetry(agent, receiver, outfile) {
  if (agent === 'claude-code') {
    return {
      env: {
        DISABLE_TELEMETRY: undefined,
        CLAUDE_CODE_ENABLE_TELEMETRY: '1',
        CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1',
        OTEL_LOGS_EXPORTER: 'otlp',
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_LOG_USER_PROMPTS: '1',
        OTEL_LOG_TOOL_DETAILS: '1',
        OTEL_LOG_TOOL_CONTENT: '1',
        OTEL_BLRP_SCHEDULE_DELAY: '200',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
      configLines: [],
    };
  }
  if (agent === 'codex') {
    const exporter = (path) => `{ otlp-http = { endpoint = "${receiver.url}/v1/${path}", protocol = "json" } }`;
    return {
      env: {},
      // The trace exporter too: without it the log records carry no trace context (empty ids).
      configLines: ['[otel]', 'log_user_prompt = true', `exporter = ${exporter('logs')}`, `trace_exporter = ${exporter('traces')}`, ''],
    };
  }
  return {
    env: { GEMINI_TELEMETRY_ENABLED: 'true', GEMINI_TELEMETRY_TARGET: 'local', GEMINI_TELEMETRY_OUTFILE: outfile, GEMINI_TELEMETRY_LOG_PROMPTS: 'true' },
    configLines: [],
  };
}

/**
 * Runs `agent` once with telemetry on. Returns the run (its transcripts), `otlp`: the export
 * requests received as Collector file-exporter lines (metrics left out), and `outfile`: Gemini
 * CLI's telemetry file text.
 */
export async function runWithTelemetry(agent, options = {}) {
  const receiver = await startOtlp();
  try {
    const outfile = join(options.dir?.root ?? '/tmp', `telemetry-${process.pid}-${Date.now()}.log`);
    const t = telemetry(agent, receiver, outfile);
    const run = await runAgent(agent, { script: loopScript(agent), mode: null, prompt: 'Read missing.txt and fix it.', env: t.env, configLines: t.configLines, ...options });
    // Exporters flush on exit, but a last batch may still be in flight.
    await new Promise((r) => setTimeout(r, 500));
    const lines = receiver.received.filter((r) => r.body && r.signal !== 'metrics').map((r) => JSON.stringify(r.body));
    return {
      run,
      otlp: lines.length > 0 ? `${lines.join('\n')}\n` : '',
      received: receiver.received.map((r) => `${r.signal} ${r.contentType}`),
      outfile: existsSync(outfile) ? readFileSync(outfile, 'utf8') : '',
    };
  } finally {
    await receiver.close();
  }
}
