// Every adapter, forced onto every fixture's records (its own format and all the others), damaged
// at random, through ingestFile. SPEC "Bad input": "Never crash, never hang" — and what does come
// out must be a transcript the ledger can trust: SPEC "Transcript model": rounds are numbered
// through the session, a batch's answers match its calls, and sub-agent threads are sessions of
// their own. A sink that checks the event order catches an adapter that breaks it.

import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import { FORMAT_NAMES, type Round, type SessionInfo, type TranscriptSink } from '../../src/model/transcript.js';
import { chunkBySizes, fixtures, runs, within } from './helpers.js';
import { mutate, mutation, parseTranscript, serializeTranscript } from './shapes.js';

const FIXTURES = fixtures();

/** Throws (and so fails the run: ingestFile rethrows sink errors) on any out-of-order event. */
class StrictSink implements TranscriptSink {
  private readonly open = new Map<string, { rounds: number; turn: number }>();
  private readonly ended = new Set<string>();
  sessions = 0;
  rounds = 0;

  session(info: SessionInfo): void {
    if (this.open.has(info.id) || this.ended.has(info.id)) throw new Error(`session ${info.id} announced twice`);
    // An empty id is allowed: the canonical format takes the id a converter wrote, even "".
    if (typeof info.id !== 'string') throw new Error('a session without an id');
    this.open.set(info.id, { rounds: 0, turn: 0 });
    this.sessions += 1;
  }
  turn(id: string, turn: number): void {
    const s = this.get(id);
    if (!Number.isInteger(turn) || turn < 1 || turn < s.turn) throw new Error(`turn ${turn} after turn ${s.turn} in ${id}`);
    s.turn = turn;
  }
  round(id: string, round: Round): void {
    const s = this.get(id);
    s.rounds += 1;
    this.rounds += 1;
    if (round.index !== s.rounds) throw new Error(`round ${round.index} delivered as number ${s.rounds} of ${id}`);
    if (!Number.isInteger(round.turn) || round.turn < 1) throw new Error(`round in turn ${round.turn}`);
    if (round.answers !== null && round.answers.length !== round.calls.length) throw new Error('answers do not match calls');
    if (typeof round.text !== 'string') throw new Error('round text is not a string');
    for (const c of round.calls) if (typeof c.name !== 'string') throw new Error('a call without a name');
  }
  end(id: string): void {
    this.get(id);
    this.open.delete(id);
    this.ended.add(id);
  }
  done(): void {
    if (this.open.size > 0) throw new Error(`sessions never ended: ${[...this.open.keys()].join(', ')}`);
  }
  private get(id: string) {
    const s = this.open.get(id);
    if (!s) throw new Error(`event for ${this.ended.has(id) ? 'ended' : 'unannounced'} session ${id}`);
    return s;
  }
}

describe.each(FIXTURES)('$path, damaged, through every adapter', (fx) => {
  const original = parseTranscript(fx.bytes.toString('utf8'), fx.jsonl);

  it('never throws, never hangs, and delivers a well-ordered transcript', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(mutation, { maxLength: 5 }),
        fc.constantFrom('auto' as const, ...FORMAT_NAMES),
        fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 4 }),
        async (mutations, inputFormat, sizes) => {
          const bytes = Buffer.from(serializeTranscript(mutate(original, mutations), fx.jsonl));
          const sink = new StrictSink();
          const summary = await within(5_000, ingestFile('-', sink, { inputFormat, stdin: Readable.from(chunkBySizes(bytes, sizes)) }), 'ingestFile');
          sink.done();
          expect(summary.sessions).toBe(sink.sessions);
          if (summary.format === null) expect(summary.error).toBeTruthy();
          if (summary.error !== undefined) expect(summary.error).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
          for (const s of summary.skipped) {
            expect(s.reason).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
            if (s.line !== null) expect(s.line).toBeLessThanOrEqual(summary.lines);
          }
        },
      ),
      { numRuns: runs(30) },
    );
  });
});

describe('adapter regressions', () => {
  it('gemini: an array line inside a JSONL recording is skipped and named, not read as a checkpoint that ends the session', async () => {
    // It used to end the recording's session; every later round then went to an ended session.
    const fx = FIXTURES.find((f) => f.path.includes('gemini/session-2026-03-02'))!;
    const lines = fx.bytes.toString('utf8').split('\n');
    lines.splice(2, 0, '[]');
    const clean = new StrictSink();
    await ingestFile('-', clean, { stdin: Readable.from([fx.bytes]) });
    const sink = new StrictSink();
    const summary = await ingestFile('-', sink, { stdin: Readable.from([Buffer.from(lines.join('\n'))]) });
    sink.done();
    expect(summary.format).toBe('gemini');
    expect(summary.skipped).toEqual([{ line: 3, reason: expect.stringContaining('not a Gemini CLI record') }]);
    expect([sink.sessions, sink.rounds]).toEqual([clean.sessions, clean.rounds]);
    expect(sink.rounds).toBeGreaterThan(0);
  });
});
