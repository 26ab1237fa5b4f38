// Many files in two threads (src/run/file-stream.ts, the lanes of `--jobs 2`): one lane runs the
// detectors over every file in order while a reading thread of its own reads ahead. It must give
// the one-thread ledger and diagnostics byte for byte, in order, lose no file when the lane's worker
// dies or the reading thread gives up on a record, and say progress once per file. Runs from dist/
// (the workers only exist there).

import { copyFileSync, createReadStream } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnostics, ensureBuilt, FIXTURES, fixtures, ROOT, scratch, within, writeHugeRecordTranscript, type Scratch } from './helpers.js';
import { oneHeavyCaseAtATime } from '../helpers/one-heavy.js';
import type * as Audit from '../../src/run/audit.js';
import type * as FileStream from '../../src/run/file-stream.js';
import type * as ReaderThreadModule from '../../src/run/reader-thread.js';
import type * as Json from '../../src/report/json.js';
import type * as Options from '../../src/run/options.js';

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(join(ROOT, 'dist', rel)).href)) as T;
const DYING_LANE = new URL('./workers/dying-lane.mjs', import.meta.url);

let audit: typeof Audit;
let stream: typeof FileStream;
let readerThread: typeof ReaderThreadModule;
let json: typeof Json;
let tmp: Scratch;

beforeAll(async () => {
  ensureBuilt();
  audit = await load('run/audit.js');
  stream = await load('run/file-stream.js');
  readerThread = await load('run/reader-thread.js');
  json = await load('report/json.js');
  tmp = scratch('loopledger-stream-');
});

afterAll(() => tmp?.cleanup());

const collect = () => diagnostics(true);

/** Standard input for a run, when it reads `-`: a fresh stream of this file each time. */
let stdinFrom: string | null = null;
const withStdin = (): Options.AuditOptions => (stdinFrom === null ? {} : { stdin: createReadStream(stdinFrom) });

async function oneThread(files: readonly string[]) {
  const here = collect();
  const results: Options.FileLedger[] = [];
  const stdin = withStdin();
  for (const f of files) results.push(await audit.auditFile(f, { ...here.options, ...stdin, jobs: 1 }));
  // Progress as the stream says it: once per file, in the order files finish (input order here).
  const said = here.said.filter((s) => !s.startsWith('progress'));
  return { json: JSON.stringify(results), said };
}

async function streamed(files: readonly string[], workerUrl?: URL) {
  const lane = collect();
  const results = await within(120_000, stream.auditInStream(files, { ...lane.options, ...withStdin() }, audit.auditFile, workerUrl), 'the stream');
  const progress = lane.said.filter((s) => s.startsWith('progress'));
  return { json: JSON.stringify(results), said: lane.said.filter((s) => !s.startsWith('progress')), progress };
}

function copy(fixture: string, name: string): string {
  const to = join(tmp.dir, name);
  copyFileSync(join(ROOT, fixture), to);
  return to;
}

describe('many files in one lane reading in a thread of its own', () => {
  it('gives every fixture the one-thread ledger and diagnostics, in order, progress once per file', async () => {
    const files = fixtures().map((f) => join(ROOT, f.path));
    const one = await oneThread(files);
    const two = await streamed(files);
    expect(two.json).toBe(one.json);
    expect(two.said).toEqual(one.said);
    expect(two.progress).toEqual(files.map((_, i) => `progress ${i + 1}/${files.length}`));
  }, 180_000);

  it('audit with --jobs 2: the one-thread report of the fixtures folder (folders, non-transcripts, skips)', async () => {
    const report = async (jobs: number) => {
      const here = collect();
      const r = await audit.audit([FIXTURES], { ...here.options, jobs });
      return { json: [...json.jsonReportChunks(r, false)].join(''), said: here.said.filter((s) => !s.startsWith('progress')) };
    };
    const one = await report(1);
    const two = await report(2);
    expect(two.json).toBe(one.json);
    expect(two.said).toEqual(one.said);
  }, 180_000);

  it('stdin is read here, the rest in the lane; with no lane worker, every file is read here', async () => {
    const some = fixtures().slice(0, 3).map((f) => join(ROOT, f.path));
    stdinFrom = some[1]!;
    try {
      const files = [some[0]!, '-', some[2]!];
      const one = await oneThread(files);
      const two = await streamed(files, new URL('./workers/no-such-worker.mjs', import.meta.url));
      const lane = await streamed(files);
      expect(JSON.parse(one.json)[1].input.path).toBe('-');
      expect(two.json).toBe(one.json);
      expect(two.said).toEqual(one.said);
      expect(lane.json).toBe(one.json);
      expect(lane.said).toEqual(one.said);
      expect(lane.progress).toEqual(['progress 1/3', 'progress 2/3', 'progress 3/3']);
    } finally {
      stdinFrom = null;
    }
  }, 120_000);

  it('a lane worker that dies: the file it died on and every file after it are analyzed here', async () => {
    const some = fixtures().slice(0, 6).map((f) => f.path);
    const files = [
      join(ROOT, some[0]!),
      copy(some[1]!, 'a-die-exit.jsonl'),
      join(ROOT, some[2]!),
      join(ROOT, some[3]!),
    ];
    const one = await oneThread(files);
    const two = await streamed(files, DYING_LANE);
    expect(two.json).toBe(one.json);
    expect(two.said).toEqual(one.said);
    const thrown = [join(ROOT, some[4]!), copy(some[5]!, 'b-die-throw.jsonl'), join(ROOT, some[0]!)];
    const oneThrown = await oneThread(thrown);
    const twoThrown = await streamed(thrown, DYING_LANE);
    expect(twoThrown.json).toBe(oneThrown.json);
    expect(twoThrown.said).toEqual(oneThrown.said);
  }, 180_000);

  it('a file the lane failed on is analyzed here, in turn; an error there ends the run with it', async () => {
    const some = fixtures().slice(0, 3).map((f) => f.path);
    const files = [join(ROOT, some[0]!), copy(some[1]!, 'c-lane-fails.jsonl'), join(ROOT, some[2]!)];
    const one = await oneThread(files);
    const two = await streamed(files, DYING_LANE);
    expect(two.json).toBe(one.json);
    expect(two.said).toEqual(one.said);
    const failing = (file: string, options: Options.AuditOptions) =>
      file.includes('lane-fails') ? Promise.reject(new Error('the sink broke')) : audit.auditFile(file, options);
    await expect(within(60_000, stream.auditInStream(files, {}, failing, DYING_LANE), 'the stream')).rejects.toThrow('the sink broke');
  }, 120_000);

  it('a record past the reading thread\'s capped heap: that file is analyzed in the lane, the next ones read by a new thread', async () => {
    // A 48 MB tool result, past the reading thread's capped heap, between two ordinary files. Its
    // ~0.6 GB puts this file in vitest's heavy project, run alone (vitest.config.ts).
    await oneHeavyCaseAtATime(async () => {
      const huge = writeHugeRecordTranscript(join(tmp.dir, 'huge-record.jsonl'));
      const some = fixtures().slice(0, 2).map((f) => join(ROOT, f.path));
      const files = [some[0]!, huge, some[1]!];
      const one = await oneThread(files);
      const two = await streamed(files);
      expect(JSON.parse(one.json)[1].sessions[0].entries.length).toBeGreaterThan(0);
      expect(two.json).toBe(one.json);
      expect(two.said).toEqual(one.said);
    });
  }, 300_000);

  it('reads ahead only as far as the batches in flight allow, across many small files too', async () => {
    // Each small file is one batch posted once its reader is done (nothing left to pause): without
    // a wait between files, the reading thread ran through the whole store while this thread was
    // at its first file, and the 2,000-file store peaked at 188 MB instead of 130.
    const small = fixtures()
      .filter((f) => f.path.includes('claude-code'))
      .slice(0, 2)
      .map((f) => join(ROOT, f.path));
    const files = Array.from({ length: 40 }, (_, i) => small[i % small.length]!);
    const reader = readerThread.ReaderThread.start(files, 'auto')!;
    const sink = { session() {}, turn() {}, round() {}, end() {} };
    try {
      expect(await reader.ingest(0, sink)).not.toBeNull();
      await new Promise((r) => setTimeout(r, 1000));
      // At most MAX_UNACKED_BATCHES batches, each with its file's `done`.
      expect(reader.held).toBeLessThanOrEqual(2 * readerThread.MAX_UNACKED_BATCHES + 2);
      for (let i = 1; i < files.length; i++) expect(await within(30_000, reader.ingest(i, sink), `file ${i}`)).not.toBeNull();
    } finally {
      reader.close();
    }
  }, 120_000);
});
