// Whatever bytes arrive, however they are split into lines and chunks, ingestFile answers with a
// summary: it never throws, and every skipped line it names is a line of the input.

import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import type { TranscriptSink } from '../../src/model/transcript.js';
import { fakeAdapter } from '../read/fake-adapter.js';
import { splitAt } from '../read/tmp.js';

/** Accepts any event order: the property is about the reader, not about the adapters' bookkeeping. */
const quietSink: TranscriptSink = { session() {}, turn() {}, round() {}, end() {} };

/** Text that looks like transcripts, broken in the ways real files break. */
const jsonishLine = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '{"fake":true}',
    '{"say":"hello"}',
    '{"boom":true}',
    '{"type":"user","message":{"role":"user","content":"hi"}}',
    '{"type":"response_item","payload":{"type":"message"}}',
    '{"role":"assistant","content":"x","tool_calls":[{"id":"1","function":{"name":"f","arguments":"{"}}]}',
    'null',
    '[',
    '{',
    '}',
    '',
    '   ',
  ),
  fc.string({ maxLength: 20 }),
);

const document = fc
  .array(jsonishLine, { maxLength: 12 })
  .chain((lines) =>
    fc.array(fc.constantFrom('\n', '\r\n', '\r', ''), { minLength: lines.length, maxLength: lines.length }).map((seps) =>
      Buffer.from(lines.map((l, i) => l + seps[i]).join('')),
    ),
  );

const anyBytes = fc.oneof(document, fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)));

describe('ingestFile property', () => {
  it('never throws on random bytes or JSON, split anywhere, with a test adapter', async () => {
    await fc.assert(
      fc.asyncProperty(anyBytes, fc.array(fc.nat(), { maxLength: 6 }), async (bytes, cuts) => {
        const summary = await ingestFile('-', quietSink, { adapters: [fakeAdapter()], stdin: Readable.from(splitAt(bytes, cuts)) });
        expect(summary.lines).toBeGreaterThanOrEqual(0);
        for (const s of summary.skipped) {
          if (s.line !== null) expect(s.line).toBeLessThanOrEqual(summary.lines);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never throws with the real adapters either, and chunking does not change the answer', async () => {
    await fc.assert(
      fc.asyncProperty(document, fc.array(fc.nat(), { maxLength: 6 }), async (bytes, cuts) => {
        const whole = await ingestFile('-', quietSink, { stdin: Readable.from([bytes]) });
        const pieces = await ingestFile('-', quietSink, { stdin: Readable.from(splitAt(bytes, cuts)) });
        expect(pieces).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });
});
