import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { PROBE_RECORDS, TRUNCATED_REASON, ingestFile } from '../../src/formats/ingest.js';
import { PROBE_HELD_CHARS } from '../../src/formats/ingest/options.js';
import type { SkippedLine } from '../../src/read/skipped.js';
import type { Round, TranscriptSink } from '../../src/model/transcript.js';
import { RecordingSink } from '../helpers/record.js';
import { fakeAdapter } from '../read/fake-adapter.js';
import { scratchDir } from '../read/tmp.js';

const scratch = scratchDir();
afterAll(() => scratch.cleanup());

let n = 0;
async function ingestText(content: string | Uint8Array, opts: { name?: string; maxLineLength?: number } = {}) {
  const path = scratch.file(opts.name ?? `case-${++n}.jsonl`, content);
  const adapter = fakeAdapter();
  const sink = new RecordingSink();
  const onSkip: SkippedLine[] = [];
  const summary = await ingestFile(path, sink, {
    adapters: [adapter],
    onSkip: (s) => onSkip.push(s),
    maxLineLength: opts.maxLineLength,
  });
  const texts = sink.sessions.flatMap((s) => s.rounds.map((r) => r.text));
  return { path, summary, adapter, sink, texts, onSkip };
}

const HEAD = '{"fake":true}\n';

describe('ingestFile: lines', () => {
  it('reads a file with a UTF-8 BOM', async () => {
    const { summary, texts } = await ingestText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${HEAD}{"say":"a"}\n`)]));
    expect(summary).toMatchObject({ format: 'canonical', sessions: 1, lines: 2, skipped: [] });
    expect(summary.error).toBeUndefined();
    expect(texts).toEqual(['a']);
  });

  it('reads CRLF line ends', async () => {
    const { summary, adapter } = await ingestText(`${HEAD}{"say":"a"}\r\n{"say":"b"}\r\n`.replace(/^(.*)\n/, '$1\r\n'));
    expect(summary.skipped).toEqual([]);
    expect(adapter.pushed.map((p) => p.line)).toEqual([1, 2, 3]);
  });

  it('passes over blank lines without reporting them, keeping line numbers', async () => {
    const { summary, adapter } = await ingestText(`\n${HEAD}\n   \n{"say":"a"}\n\n`);
    expect(summary.skipped).toEqual([]);
    expect(summary.lines).toBe(6);
    expect(adapter.pushed.map((p) => p.line)).toEqual([2, 5]);
  });

  it('skips a line holding null with its own reason', async () => {
    const { summary, texts } = await ingestText(`${HEAD}null\n{"say":"a"}\n42\n`);
    expect(summary.skipped).toEqual([
      { line: 2, reason: 'not a record: the line holds null' },
      { line: 4, reason: 'not a record: the line holds a number' },
    ]);
    expect(texts).toEqual(['a']);
  });

  it('skips a malformed middle line, names its line number, and reads the rest', async () => {
    const { summary, texts, onSkip } = await ingestText(`${HEAD}{"say":"a"}\n{"say": oops}\n{"say":"b"}\n`);
    expect(summary.skipped).toHaveLength(1);
    expect(summary.skipped[0]!.line).toBe(3);
    expect(summary.skipped[0]!.reason).toMatch(/^malformed JSON: /);
    expect(onSkip).toEqual(summary.skipped);
    expect(texts).toEqual(['a', 'b']);
  });

  it('reports an unfinished last line that does not parse as truncated', async () => {
    const { summary, texts } = await ingestText(`${HEAD}{"say":"a"}\n{"say":"b", "mo`);
    expect(summary.skipped).toEqual([{ line: 3, reason: TRUNCATED_REASON }]);
    expect(texts).toEqual(['a']);
  });

  it('accepts an unfinished last line that parses (a file without a final newline)', async () => {
    const { summary, texts } = await ingestText(`${HEAD}{"say":"a"}`);
    expect(summary.skipped).toEqual([]);
    expect(texts).toEqual(['a']);
  });

  it('reads a generated 50 MB line', async () => {
    const size = 50 * 1024 * 1024;
    const { summary, texts } = await ingestText(`${HEAD}{"say":"${'z'.repeat(size)}"}\n{"say":"after"}\n`);
    expect(summary.skipped).toEqual([]);
    expect(texts.map((t) => t.length)).toEqual([size, 5]);
  });

  it('skips a line over the length limit unread and reads the rest', async () => {
    const { summary, texts } = await ingestText(`${HEAD}{"say":"${'z'.repeat(200)}"}\n{"say":"after"}\n`, { maxLineLength: 100 });
    expect(summary.skipped).toEqual([{ line: 2, reason: 'line too long (over 100 characters): skipped unread' }]);
    expect(texts).toEqual(['after']);
  });

  it('carries arguments nested 100,000 deep without recursing on them', async () => {
    const depth = 100_000;
    const nested = '{"a":['.repeat(depth) + '1' + ']}'.repeat(depth);
    // V8 parses this depth without a stack overflow (its JSON parser keeps its own stack).
    expect(() => JSON.parse(nested)).not.toThrow();
    const { summary, adapter, texts } = await ingestText(`${HEAD}{"say":"deep","args":${nested}}\n{"say":"next"}\n`);
    expect(summary.skipped).toEqual([]);
    expect(texts).toEqual(['deep', 'next']);
    let v: unknown = (adapter.pushed[1]!.value as { args: unknown }).args;
    let d = 0;
    while (typeof v === 'object' && v !== null) {
      v = (v as { a: unknown[] }).a[0];
      d += 1;
    }
    expect(d).toBe(depth);
  });
});

describe('ingestFile: files that cannot be read', () => {
  it('refuses binary garbage with a clear error and no sessions', async () => {
    const garbage = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
    const { summary } = await ingestText(garbage);
    expect(summary).toMatchObject({ format: null, sessions: 0, skipped: [] });
    expect(summary.error).toMatch(/^binary file/);
  });

  it('refuses a non-UTF-8 file with a clear error', async () => {
    const { summary } = await ingestText(Buffer.from(`${HEAD}{"say":"caf\xe9"}\n`, 'latin1'));
    expect(summary).toMatchObject({ format: null, sessions: 0 });
    expect(summary.error).toMatch(/^not UTF-8 text/);
  });

  it('reports an empty file', async () => {
    const { summary } = await ingestText('');
    expect(summary).toMatchObject({ format: null, sessions: 0, lines: 0, skipped: [], error: 'empty file' });
    const blank = await ingestText('\n \n');
    expect(blank.summary).toMatchObject({ format: null, sessions: 0, lines: 2, error: 'empty file (only blank lines)' });
  });

  it('reports a missing file in the summary instead of throwing', async () => {
    const summary = await ingestFile(`${scratch.dir}/missing.jsonl`, new RecordingSink(), { adapters: [fakeAdapter()] });
    expect(summary).toMatchObject({ format: null, sessions: 0, error: 'no such file' });
  });

  it('keeps what it read when the input fails mid-way, and ends the sessions it announced', async () => {
    const stdin = new Readable({ read() {} });
    // Past the first 64 KB, which are held back until they are known to be text.
    stdin.push(`${HEAD}{"say":"a"}\n{"say":"${'b'.repeat(70 * 1024)}"}\n`);
    setTimeout(() => stdin.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' })), 10);
    const sink = new RecordingSink();
    const summary = await ingestFile('-', sink, { adapters: [fakeAdapter()], stdin });
    expect(summary).toMatchObject({ format: 'canonical', sessions: 1, lines: 3, error: 'cannot read: EIO: i/o error, read' });
    expect(sink.sessions[0]!.rounds.map((r) => r.text.length)).toEqual([1, 70 * 1024]);
    expect(sink.sessions[0]!.ended).toBe(true);
  });

  it('reads past an invalid byte that comes after the sniffed start, as U+FFFD', async () => {
    const filler = Array.from({ length: 2000 }, (_, i) => `{"say":"filler ${i} ${'.'.repeat(30)}"}`).join('\n');
    const content = Buffer.concat([Buffer.from(`${HEAD}${filler}\n{"say":"caf`), Buffer.from([0xe9]), Buffer.from('"}\n')]);
    expect(content.length).toBeGreaterThan(64 * 1024);
    const { summary, texts } = await ingestText(content);
    expect(summary.error).toBeUndefined();
    expect(summary.skipped).toEqual([]);
    expect(texts.at(-1)).toBe('caf\ufffd');
  });

  it('names an unknown format instead of guessing', async () => {
    const { summary, adapter } = await ingestText('{"kind":"other"}\n{"x":1}\n');
    expect(summary.format).toBeNull();
    expect(summary.error).toBe(
      'not a recognized transcript format: JSON lines, the first record has keys "kind" (known: canonical; --input-format forces one)',
    );
    expect(adapter.pushed).toEqual([]);
  });

  it('says a text file is not JSON at all', async () => {
    const { summary } = await ingestText('hello\nworld\n');
    expect(summary.format).toBeNull();
    expect(summary.error).toMatch(/^not JSON: neither JSON lines nor one JSON document/);
  });

  it('neutralizes escape sequences that a bad line puts in its reason', async () => {
    const { summary } = await ingestText(`${HEAD}\u001b[31mred\u009b2J\n`);
    expect(summary.skipped[0]!.reason).not.toMatch(/[\u001b\u009b]/);
    expect(summary.skipped[0]!.reason).toContain('\\x1b');
  });
});

describe('ingestFile: modes and detection', () => {
  it('reads a pretty-printed JSON document whole and pushes it once', async () => {
    const { summary, adapter, texts } = await ingestText(JSON.stringify({ fake: true, say: 'doc' }, null, 2), { name: 'doc.json' });
    expect(summary).toMatchObject({ format: 'canonical', sessions: 1, skipped: [] });
    expect(adapter.pushed).toEqual([{ value: { fake: true, say: 'doc' }, line: null }]);
    expect(adapter.probes[0]).toMatchObject({ mode: 'document', fileName: 'doc.json' });
    expect(texts).toEqual(['doc']);
  });

  it('reports a broken JSON document as malformed', async () => {
    const { summary } = await ingestText('{\n  "fake": true,\n  "say": "doc"\n', { name: 'broken.json' });
    expect(summary.format).toBeNull();
    expect(summary.error).toMatch(/^not JSON: /);
  });

  it('reads JSON lines whose first line is malformed as JSON lines', async () => {
    const { summary, texts } = await ingestText(`{"fake": tru\n${HEAD}{"say":"a"}\n`);
    expect(summary.skipped.map((s) => s.line)).toEqual([1]);
    expect(summary.format).toBe('canonical');
    expect(texts).toEqual(['a']);
  });

  it('lets a one-line file compete as a minified JSON document', async () => {
    const path = scratch.file('minified.json', JSON.stringify({ fake: true, say: 'min' }));
    const adapter = fakeAdapter('chatgpt', { documentScore: 2 });
    const summary = await ingestFile(path, new RecordingSink(), { adapters: [adapter] });
    expect(summary.format).toBe('chatgpt');
    expect(adapter.pushed).toEqual([{ value: { fake: true, say: 'min' }, line: null }]);
  });

  it('shows detection at most the first 50 records, then streams the rest', async () => {
    const body = Array.from({ length: 200 }, (_, i) => `{"say":"r${i}"}`).join('\n');
    const { summary, adapter, texts } = await ingestText(`${HEAD}${body}\n`);
    expect(PROBE_RECORDS).toBe(50);
    const probe = adapter.probes[0]!;
    expect(probe.mode === 'jsonl' && probe.records.length).toBe(50);
    expect(summary.lines).toBe(201);
    expect(texts).toHaveLength(200);
    expect(adapter.pushed.map((p) => p.line)).toEqual(Array.from({ length: 201 }, (_, i) => i + 1));
  });

  it('ends the probe once the records held reach PROBE_HELD_CHARS of text, then streams the rest (issue 53, item 11)', async () => {
    const big = 'x'.repeat(PROBE_HELD_CHARS);
    const body = Array.from({ length: 6 }, (_, i) => JSON.stringify({ say: `r${i}`, pad: big })).join('\n');
    const { summary, adapter, texts } = await ingestText(`${HEAD}${body}\n`);
    const probe = adapter.probes[0]!;
    // The header and the first large record: parsed records are not held by the dozen.
    expect(probe.mode === 'jsonl' && probe.records.length).toBe(2);
    expect(summary.format).toBe('canonical');
    expect(texts).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    expect(adapter.pushed.map((p) => p.line)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('still lets a one-line file past PROBE_HELD_CHARS compete as a minified JSON document', async () => {
    // `mapping` is a transcript's key: a large document without any is refused before detection (read/document-prefix).
    const path = scratch.file('minified-large.json', JSON.stringify({ fake: true, say: 'min', mapping: {}, pad: 'x'.repeat(PROBE_HELD_CHARS) }));
    const adapter = fakeAdapter('chatgpt', { documentScore: 2 });
    const summary = await ingestFile(path, new RecordingSink(), { adapters: [adapter] });
    expect(summary.format).toBe('chatgpt');
    expect(adapter.pushed.map((p) => p.line)).toEqual([null]);
  });

  it('stops reading a file no adapter recognizes after the probe', async () => {
    const body = Array.from({ length: 500 }, (_, i) => `{"n":${i}}`).join('\n');
    const { summary } = await ingestText(`${body}\n`);
    expect(summary.error).toMatch(/^not a recognized transcript format/);
    expect(summary.lines).toBeLessThan(500);
  });

  it('uses a forced format without detection', async () => {
    const path = scratch.file('forced.jsonl', '{"say":"a"}\n');
    const adapter = fakeAdapter('openai');
    const summary = await ingestFile(path, new RecordingSink(), { adapters: [adapter], inputFormat: 'openai' });
    expect(summary).toMatchObject({ format: 'openai', sessions: 1, skipped: [] });
    const other = await ingestFile(path, new RecordingSink(), { adapters: [adapter], inputFormat: 'gemini' });
    expect(other).toMatchObject({ format: null, error: 'unknown format gemini' });
  });

  it('turns an adapter exception into a skipped line, in line order with the others', async () => {
    const { summary, texts } = await ingestText(`${HEAD}{"boom":true}\n{"say": x}\n{"say":"a"}\n`);
    expect(summary.skipped).toEqual([
      { line: 2, reason: 'could not read this canonical record: adapter bug' },
      { line: 3, reason: expect.stringMatching(/^malformed JSON/) },
    ]);
    expect(texts).toEqual(['a']);
  });

  it('passes the sink’s own exceptions through: they are bugs, not bad input', async () => {
    const path = scratch.file('sinkfail.jsonl', `${HEAD}{"say":"a"}\n`);
    const bug = new Error('sink bug');
    const sink: TranscriptSink = {
      session: () => {},
      turn: () => {},
      round: (_id: string, _r: Round) => {
        throw bug;
      },
      end: () => {},
    };
    await expect(ingestFile(path, sink, { adapters: [fakeAdapter()] })).rejects.toBe(bug);
  });

  it('reads stdin for `-`', async () => {
    const stdin = Readable.from([Buffer.from(HEAD), Buffer.from('{"say":"piped"}\n')]);
    const adapter = fakeAdapter();
    const sink = new RecordingSink();
    const summary = await ingestFile('-', sink, { adapters: [adapter], stdin });
    expect(summary).toMatchObject({ path: '-', format: 'canonical', sessions: 1, lines: 2 });
    expect(adapter.probes[0]).toMatchObject({ fileName: '-' });
    expect(sink.sessions[0]!.rounds[0]!.text).toBe('piped');
  });

  it('leaves the input file untouched', async () => {
    const path = scratch.file('untouched.jsonl', `${HEAD}{"say":"a"}\n{bad\n{"say":"b"`);
    const before = statSync(path);
    const hash = () => createHash('sha256').update(readFileSync(path)).digest('hex');
    const h = hash();
    await new Promise((r) => setTimeout(r, 20));
    await ingestFile(path, new RecordingSink(), { adapters: [fakeAdapter()] });
    const after = statSync(path);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.size).toBe(before.size);
    expect(hash()).toBe(h);
  });

  it('ends every session it announced', async () => {
    const { sink } = await ingestText(`${HEAD}{"say":"a"}\n{"say":"b"}\n`);
    expect(sink.sessions.map((s) => s.ended)).toEqual([true]);
  });
});
