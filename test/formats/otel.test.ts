// Format `otel` through the real reader (ingestFile: detection, containers, sessions, producers):
// the agents' own recordings (fixtures/otel/<agent>-<version>/, test/agents/record-otel.mjs) and
// the hand-written ones modelled on shared/notes/otel.md. Expected figures are read off the
// fixtures by hand, or computed here from the raw records, never from the reader.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import { RecordingSink } from '../helpers/record.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/otel');
const CLAUDE = path.join(FIXTURES, 'claude-code-2.1.328/otlp.jsonl');
const CODEX = path.join(FIXTURES, 'codex-0.169.0/otlp.jsonl');
const GEMINI = path.join(FIXTURES, 'gemini-0.61.0/telemetry.json');
const GENAI = path.join(FIXTURES, 'genai/chat-spans.jsonl');
const EVENTS = path.join(FIXTURES, 'genai/events-protobuf.jsonl');
const OPENINFERENCE = path.join(FIXTURES, 'openinference/python-spans.json');
const JAEGER = path.join(FIXTURES, 'jaeger/weather-agent.json');

async function read(input: string, stdin?: Readable) {
  const sink = new RecordingSink();
  const summary = await ingestFile(input, sink, stdin ? { stdin } : {});
  return { summary, sessions: sink.sessions };
}

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

function tmpFile(name: string, text: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'll-otel-'));
  scratchDirs.push(dir);
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The OTLP records of a Collector-style file, as plain objects (the test's own reading). */
function otlpRecords(file: string): { spans: any[]; logs: any[] } {
  const spans: any[] = [];
  const logs: any[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const req = JSON.parse(line);
    for (const rs of req.resourceSpans ?? []) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
    for (const rl of req.resourceLogs ?? []) for (const sl of rl.scopeLogs) logs.push(...sl.logRecords);
  }
  return { spans, logs };
}

const attr = (record: any, key: string) => {
  const v = record.attributes.find((a: any) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

const shape = (s: { turns: number[]; rounds: { calls: unknown[] }[] }) => ({ turns: s.turns.length, rounds: s.rounds.length, calls: s.rounds.reduce((n, r) => n + r.calls.length, 0) });

describe('the agents’ own telemetry, recorded (fixtures/otel/<agent>-<version>)', () => {
  it('Claude Code 2.1.328: one session, six responses, five Bash calls answered as failures; each round links to its llm_request span', async () => {
    const { summary, sessions } = await read(CLAUDE);
    expect(summary).toMatchObject({ format: 'otel', sessions: 1, skipped: [] });
    const [s] = sessions;
    expect(s!.info).toMatchObject({ format: 'otel', producer: 'claude-code', unrecorded: ['reasoning', 'tool output text (only the error message of a failed call)'] });
    expect(shape(s!)).toEqual({ turns: 1, rounds: 6, calls: 5 });
    const calls = s!.rounds.flatMap((r) => r.calls);
    expect(calls.map((c) => c.name)).toEqual(['Bash', 'Bash', 'Bash', 'Bash', 'Bash']);
    expect(calls[0]!.arguments).toEqual({ command: 'cat missing.txt', description: 'run it' });
    for (const r of s!.rounds.slice(0, 5)) expect(r.answers).toEqual([{ content: 'Shell command failed', isError: true }]);
    expect(s!.rounds[0]!.text).toBe('Reading missing.txt first.');
    expect(s!.rounds[5]!.text).toBe('missing.txt does not exist, so there is nothing to fix.');
    expect(s!.rounds.map((r) => r.usage?.inputTokens)).toEqual([101, 102, 103, 104, 105, 106]);
    // The llm_request spans in time order are the rounds, one to one.
    const llm = otlpRecords(CLAUDE).spans.filter((sp) => sp.name === 'claude_code.llm_request').sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
    expect(s!.rounds.map((r) => r.trace)).toEqual(llm.map((sp) => ({ traceId: sp.traceId, spanId: sp.spanId })));
  });

  it('Codex 0.169.0: rounds from codex.api_request, usage from response.completed, no text; the trace ids are the request records’ own', async () => {
    const { summary, sessions } = await read(CODEX);
    expect(summary).toMatchObject({ format: 'otel', sessions: 1, skipped: [] });
    const [s] = sessions;
    expect(s!.info).toMatchObject({ producer: 'codex', unrecorded: ['assistant text', 'reasoning'] });
    expect(shape(s!)).toEqual({ turns: 1, rounds: 6, calls: 5 });
    expect(s!.rounds.every((r) => r.text === '')).toBe(true);
    const first = s!.rounds[0]!;
    expect(first.calls).toEqual([{ id: expect.stringMatching(/^call_/), name: 'exec_command', arguments: { cmd: 'cat missing.txt' } }]);
    // "Process exited with code 1" in Codex's header: a failure, as its rollout reader says.
    expect(first.answers?.[0]?.isError).toBe(true);
    expect(first.answers?.[0]?.content).not.toMatch(/Chunk ID|Wall time/);
    expect(s!.rounds.map((r) => r.usage?.inputTokens)).toEqual([101, 102, 103, 104, 105, 106]);
    const requests = otlpRecords(CODEX).logs.filter((l) => attr(l, 'event.name') === 'codex.api_request');
    expect(s!.rounds.map((r) => r.trace)).toEqual(requests.map((l) => ({ traceId: l.traceId, spanId: l.spanId })));
  });

  it('Gemini CLI 0.61.0: its outfile of pretty-printed SDK objects one after another; calls from response_text, failures from tool_call records', async () => {
    const { summary, sessions } = await read(GEMINI);
    expect(summary).toMatchObject({ format: 'otel', sessions: 1, skipped: [] });
    expect(summary.ignored).toEqual({ metrics: 1 });
    const [s] = sessions;
    expect(s!.info).toMatchObject({ producer: 'gemini-cli' });
    expect(shape(s!)).toEqual({ turns: 1, rounds: 5, calls: 4 });
    for (const r of s!.rounds.slice(0, 4)) {
      expect(r.calls).toEqual([{ id: expect.stringMatching(/^run_shell_command__/), name: 'run_shell_command', arguments: { command: 'cat missing.txt', description: 'run it' } }]);
      expect(r.answers).toEqual([{ content: '', isError: true }]);
      expect(r.trace).toEqual({ traceId: expect.stringMatching(/^[0-9a-f]{32}$/), spanId: expect.stringMatching(/^[0-9a-f]{16}$/) });
    }
    // Lines are those of each object's opening brace.
    expect(s!.rounds[0]!.line).toBeGreaterThan(1);
  });
});

describe('the conventions, hand-written', () => {
  it('GenAI spans: out of order, a start copy, one batch exported twice, the agent span’s summed usage: four rounds, usage once', async () => {
    const { summary, sessions } = await read(GENAI);
    expect(summary).toMatchObject({ format: 'otel', sessions: 1, skipped: [] });
    const [s] = sessions;
    expect(s!.info).toMatchObject({ id: 'genai-billing-retry', producer: 'genai' });
    expect(shape(s!)).toEqual({ turns: 1, rounds: 4, calls: 3 });
    // 520 + 560 + 600 + 640: the start copy (0) replaced, the duplicate batch read once, invoke_agent's 2900 not added.
    expect(s!.rounds.reduce((n, r) => n + (r.usage?.inputTokens ?? 0), 0)).toBe(2320);
    // An object, then a JSON string: the same arguments.
    expect(s!.rounds.slice(0, 3).map((r) => r.calls[0]!.arguments)).toEqual([{ path: 'tests/test_invoice.py' }, { path: 'tests/test_invoice.py' }, { path: 'tests/test_invoice.py' }]);
    expect(s!.rounds[0]!.answers).toEqual([{ content: '1 failed: test_invoice_totals (expected 120.00, got 12.00)', isError: true }]);
    expect(s!.rounds[3]!.thinking).toEqual([{ text: 'Same failure three times; the fixture, not the code, is off by ten.', opaque: false }]);
    expect(s!.rounds.map((r) => r.trace?.spanId)).toEqual(['c1c1c1c1c1c1c1c1', 'c2c2c2c2c2c2c2c2', 'c3c3c3c3c3c3c3c3', 'c4c4c4c4c4c4c4c4']);
    expect(s!.rounds[0]!.model).toBe('gpt-4.1-2025-04-14');
  });

  it('GenAI 1.36 log events in a protobuf dump: base64 ids to hex, enum names, counts as strings, kvlist arguments', async () => {
    const { sessions } = await read(EVENTS);
    const [s] = sessions;
    expect(s!.info).toMatchObject({ id: 'genai-release-notes', producer: 'genai' });
    expect(shape(s!)).toEqual({ turns: 1, rounds: 3, calls: 2 });
    expect(s!.rounds[0]!.calls).toEqual([{ id: 'tu_1', name: 'read_file', arguments: { path: 'CHANGELOG.md' } }]);
    expect(s!.rounds[0]!.answers).toEqual([{ content: '## 2.4\n- faster sync\n- new export', isError: false }]);
    expect(s!.rounds[2]!.text).toBe('Release notes for 2.4 are in RELEASE.md.');
    expect(s!.rounds[0]!.trace).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'e1e1e1e1e1e1e1e1' });
    expect(s!.rounds.map((r) => r.usage?.inputTokens)).toEqual([410, 470, 530]);
  });

  it('OpenInference as Python span dumps one after another: flattened output messages, TOOL spans answering by id, 0x ids', async () => {
    const { summary, sessions } = await read(OPENINFERENCE);
    expect(summary).toMatchObject({ format: 'otel', sessions: 1, skipped: [] });
    const [s] = sessions;
    expect(s!.info).toMatchObject({ id: 'oi-config-loop', producer: 'openinference' });
    expect(shape(s!)).toEqual({ turns: 1, rounds: 4, calls: 3 });
    expect(s!.rounds[0]!.calls).toEqual([{ id: 'call_1', name: 'read_file', arguments: { path: 'config.yaml' } }]);
    expect(s!.rounds[0]!.answers).toEqual([{ content: 'Error: config.yaml: no such file', isError: true }]);
    expect(s!.rounds[3]!.text).toBe('config.yaml is missing from the deploy folder.');
    expect(s!.rounds[0]!.trace).toEqual({ traceId: '7bba9f33312b3dbb8b2c2c62bb7abe2d', spanId: '2000000000000001' });
  });

  it('Jaeger export: typed tags, µs times, a 16-digit trace id widened, LangChain’s input_str arguments unwrapped', async () => {
    const { sessions } = await read(JAEGER);
    const [s] = sessions;
    expect(s!.info).toMatchObject({ id: 'jaeger-weather', producer: 'genai' });
    expect(shape(s!)).toEqual({ turns: 1, rounds: 2, calls: 1 });
    expect(s!.rounds[0]!.calls).toEqual([{ id: 'call_w1', name: 'get_forecast', arguments: { city: 'Lisbon', day: 'tomorrow' } }]);
    expect(s!.rounds[0]!.answers?.[0]?.content).toBe('{"high": 24, "low": 16, "sky": "sunny"}');
    expect(s!.rounds[0]!.trace).toEqual({ traceId: '0000000000000000f1e2d3c4b5a69788', spanId: '00000000000000a2' });
    // The workflow span's 470 (its children's sum) is not added: 220 + 250.
    expect(s!.rounds.reduce((n, r) => n + (r.usage?.inputTokens ?? 0), 0)).toBe(470);
    expect(s!.rounds[0]!.timestamp).toBe('2026-01-01T12:00:00.100Z');
  });
});

describe('one run split across files', () => {
  const { logs, spans } = { logs: [] as string[], spans: [] as string[] };
  for (const line of readFileSync(CLAUDE, 'utf8').split('\n').filter(Boolean)) (JSON.parse(line).resourceLogs ? logs : spans).push(line);

  it('logs alone: the same rounds and calls; each round then carries its own record’s ids', async () => {
    const { sessions } = await read(tmpFile('logs.jsonl', logs.join('\n') + '\n'));
    expect(shape(sessions[0]!)).toEqual({ turns: 1, rounds: 6, calls: 5 });
  });

  it('traces alone: rounds from the llm_request spans, calls from the tool spans (the command only)', async () => {
    const { sessions } = await read(tmpFile('traces.jsonl', spans.join('\n') + '\n'));
    const [s] = sessions;
    expect(shape(s!)).toEqual({ turns: 1, rounds: 6, calls: 5 });
    expect(s!.rounds[0]!.calls[0]!.arguments).toEqual({ command: 'cat missing.txt' });
    expect(s!.rounds[0]!.answers?.[0]).toEqual({ content: 'Shell command failed', isError: true });
  });

  it('both given as one stream (cat logs traces | loopledger -): one session, the logs’ calls, the spans’ ids', async () => {
    const whole = await read(CLAUDE);
    const joined = await read('-', Readable.from([`${logs.join('\n')}\n${spans.join('\n')}\n`]));
    expect(joined.sessions).toHaveLength(1);
    // The same rounds; only the line numbers are the stream's.
    const unlined = (rounds: { line: number | null }[]) => rounds.map((r) => ({ ...r, line: null }));
    expect(unlined(joined.sessions[0]!.rounds)).toEqual(unlined(whole.sessions[0]!.rounds));
    expect(joined.sessions[0]!.rounds.every((r) => r.trace !== undefined)).toBe(true);
  });
});
