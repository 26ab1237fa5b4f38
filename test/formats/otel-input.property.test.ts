// Format `otel` against what exporters really do to a recording: requests in any order, the same
// batch sent twice, spans split across requests differently, ids as base64 (protobuf JSON) or hex.
// The rounds read must not change (only the line each came from may).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import type { Round } from '../../src/model/transcript.js';
import { RecordingSink } from '../helpers/record.js';

const GENAI = path.resolve(import.meta.dirname, '../../fixtures/otel/genai/chat-spans.jsonl');
const dir = mkdtempSync(path.join(tmpdir(), 'll-otel-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rounds(text: string): Promise<Omit<Round, 'line'>[]> {
  const file = path.join(dir, 'spans.jsonl');
  writeFileSync(file, text);
  const sink = new RecordingSink();
  const summary = await ingestFile(file, sink);
  expect(summary.skipped).toEqual([]);
  expect(sink.sessions).toHaveLength(1);
  return sink.sessions[0]!.rounds.map(({ line: _line, ...r }) => r);
}

/** Every span of the fixture, once each (the finished copy of the start copy), from the test's own reading. */
function spansOf(text: string): { resource: unknown; scope: unknown; span: any }[] {
  const out = new Map<string, { resource: unknown; scope: unknown; span: any }>();
  for (const line of text.split('\n').filter(Boolean)) {
    for (const rs of JSON.parse(line).resourceSpans) {
      for (const ss of rs.scopeSpans) {
        for (const span of ss.spans) if (span.endTimeUnixNano !== undefined || !out.has(span.spanId)) out.set(span.spanId, { resource: rs.resource, scope: ss.scope, span });
      }
    }
  }
  return [...out.values()];
}

const request = (parts: { resource: unknown; scope: unknown; span: unknown }[]) =>
  JSON.stringify({ resourceSpans: parts.map((p) => ({ resource: p.resource, scopeSpans: [{ scope: p.scope, spans: [p.span] }] })) });

const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

describe('otel: arrival order, batching and duplicates do not change the rounds', () => {
  const text = readFileSync(GENAI, 'utf8');
  const spans = spansOf(text);

  it('any order, any batching, any span sent twice: the same rounds as the fixture', async () => {
    const expected = await rounds(text);
    expect(expected).toHaveLength(4);
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(spans, { minLength: spans.length, maxLength: spans.length }),
        fc.array(fc.integer({ min: 0, max: spans.length - 1 }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 4 }),
        async (order, twice, batch) => {
          const sent = [...order, ...twice.map((i) => order[i]!)];
          const lines: string[] = [];
          for (let i = 0; i < sent.length; i += batch) lines.push(request(sent.slice(i, i + batch)));
          expect(await rounds(lines.join('\n') + '\n')).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('ids written in base64 (protobuf JSON) read as the same lowercase hex', async () => {
    const expected = await rounds(text);
    const encoded = spans.map((p) => ({ ...p, span: { ...p.span, traceId: b64(p.span.traceId), spanId: b64(p.span.spanId), parentSpanId: p.span.parentSpanId ? b64(p.span.parentSpanId) : undefined } }));
    expect(await rounds(request(encoded) + '\n')).toEqual(expected);
  });
});
