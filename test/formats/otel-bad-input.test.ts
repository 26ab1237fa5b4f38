// Format `otel` on bad input: cut files, parts of the wrong type, records that are no telemetry,
// a session past the held-record bound. Each is a one-line reason with the file's line, and what
// was whole is still read.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import { RecordingSink } from '../helpers/record.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/otel');
const CLAUDE = path.join(FIXTURES, 'claude-code-2.1.328/otlp.jsonl');
const GEMINI = path.join(FIXTURES, 'gemini-0.61.0/telemetry.json');
const dir = mkdtempSync(path.join(tmpdir(), 'll-otel-bad-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function read(name: string, text: string) {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  const sink = new RecordingSink();
  const summary = await ingestFile(file, sink);
  return { summary, sessions: sink.sessions };
}

const span = (id: string, start: number, extra: object = {}) => ({
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: id,
  name: 'chat m',
  startTimeUnixNano: String(BigInt(1767261600000 + start) * 1000000n),
  endTimeUnixNano: String(BigInt(1767261600000 + start + 10) * 1000000n),
  attributes: [
    { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
    { key: 'gen_ai.conversation.id', value: { stringValue: 'bad-input' } },
    { key: 'gen_ai.output.messages', value: { stringValue: JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `answer ${id}` }] }]) } },
  ],
  ...extra,
});
const line = (spans: unknown) => JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: 's' }, spans }] }] });

describe('otel: bad input', () => {
  it('a file cut inside its last line: that line is reported truncated, the first one still read', async () => {
    const [traces, logs] = readFileSync(CLAUDE, 'utf8').split('\n');
    const { summary, sessions } = await read('cut.jsonl', `${traces}\n${logs!.slice(0, 2000)}`);
    expect(summary.format).toBe('otel');
    expect(summary.skipped).toEqual([{ line: 2, reason: 'truncated: unfinished last line (a session still being written?)' }]);
    // The spans alone still give the six responses and five calls.
    expect(sessions[0]!.rounds).toHaveLength(6);
  });

  it('parts of the wrong type are named by path and line; the rest of the record is read', async () => {
    const text = [
      line([span('00000000000000a1', 0)]),
      JSON.stringify({ resourceSpans: { not: 'a list' } }),
      JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: 'text' }] }),
      line([7, span('00000000000000a2', 100)]),
    ].join('\n');
    const { summary, sessions } = await read('types.jsonl', `${text}\n`);
    expect(summary.skipped).toEqual([
      { line: 2, reason: 'otel: resourceSpans: not a list, left out' },
      { line: 3, reason: 'otel: resourceSpans[0].scopeSpans: not a list, left out' },
      { line: 4, reason: 'otel: resourceSpans[0].scopeSpans[0].spans[0]: not an object, left out' },
    ]);
    expect(sessions[0]!.rounds.map((r) => r.text)).toEqual(['answer 00000000000000a1', 'answer 00000000000000a2']);
  });

  it('a record that is no telemetry among OTLP lines is reported, not guessed at', async () => {
    const text = [line([span('00000000000000a1', 0)]), JSON.stringify({ hello: 'world' }), line([span('00000000000000a2', 100)])].join('\n');
    const { summary, sessions } = await read('mixed.jsonl', `${text}\n`);
    expect(summary.skipped).toEqual([{ line: 2, reason: 'not an OpenTelemetry record: an object with keys "hello"' }]);
    expect(sessions[0]!.rounds).toHaveLength(2);
  });

  it('an SDK dump cut inside an object: reported at the line the object opens; every whole object read', async () => {
    const whole = readFileSync(GEMINI, 'utf8');
    const lines = whole.split('\n');
    // Cut in the middle of the last object (the metrics one): every record before it is whole.
    const opens = lines.flatMap((l, i) => (l === '{' ? [i + 1] : []));
    const last = opens[opens.length - 1]!;
    const { summary, sessions } = await read('cut-dump.json', lines.slice(0, last + 3).join('\n'));
    expect(summary.skipped).toEqual([{ line: last, reason: 'truncated: the last object stops before its end (a file still being written?)' }]);
    expect(sessions[0]!.rounds).toHaveLength(5);
  });

  it('an SDK dump object that never closes before the next opens: reported at its line, the next one read', async () => {
    const obj = (n: number) => JSON.stringify({ _spanContext: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: `00000000000000b${n}` }, name: 'chat m', startTime: [1767261600 + n, 0], endTime: [1767261600 + n, 5], attributes: { 'gen_ai.operation.name': 'chat', 'session.id': 'dump', 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `t${n}` }] }]) } }, null, 2).split('\n');
    const broken = obj(1).slice(0, -1); // no closing brace
    const text = [...obj(0), ...broken, ...obj(2)].join('\n') + '\n';
    const { summary, sessions } = await read('dump.json', text);
    expect(summary.skipped).toEqual([{ line: obj(0).length + 1, reason: 'an object that never closes (its closing brace is missing)' }]);
    expect(sessions[0]!.rounds.map((r) => r.text)).toEqual(['t0', 't2']);
  });

  it('a session past the held-record bound is read in parts, said once; no round is lost', async () => {
    // 300 responses of 100 KB each, 30 MB in all: past the 8 MB bound before the file ends.
    const big = 'x'.repeat(100_000);
    const text = Array.from({ length: 300 }, (_, i) => line([span(`${(i + 1).toString(16).padStart(16, '0')}`, i * 100, { attributes: [...span('0', 0).attributes.slice(0, 2), { key: 'gen_ai.output.messages', value: { stringValue: JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `${i} ${big}` }] }]) } }] })])).join('\n');
    const { summary, sessions } = await read('big.jsonl', `${text}\n`);
    expect(summary.skipped).toEqual([{ line: null, reason: expect.stringMatching(/^session bad-input was read in parts \(the file's open sessions held more than 8 MB of records\)/) }]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.rounds.map((r) => Number(r.text.split(' ')[0]))).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });
});
