// Soak tier (npm run test:soak): a bound at scale, 60 MB of interleaved traces in a 48 MB heap.
// Issue 32 item 4: "a trace's spans may arrive in any order: bound what is held per open trace and
// say what happens past the bound". Twenty-four traces (no session id: each is a session of its own)
// arrive interleaved, their spans shuffled, 60 MB in all: far past the 8 MB the open sessions may
// hold. The binary runs in a 48 MB heap, which the spans' text alone would overflow if every open
// trace were held to the end of the file; past the bound the trace least recently added to is read
// early, and a trace read in parts says so once, in the ledger, with no round lost.

import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCapped, scratch } from './helpers.js';

const tmp = scratch('loopledger-otel-bound-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const TRACES = 24;
const SPANS = 50;
/** An attribute no producer reads, 50 KB a span: it counts toward the bound like any text held. */
const PAYLOAD = 'p'.repeat(50_000);

const traceId = (t: number) => (t + 1).toString(16).padStart(32, 'a');
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** `payload` as a top-level string, or deep in an array of kvlists (issue 53, item 13: nested text was not counted). */
function payloadValue(payload: string, nested: boolean): unknown {
  if (!nested) return { stringValue: payload };
  return { arrayValue: { values: [{ kvlistValue: { values: [{ key: 'text', value: { arrayValue: { values: [{ stringValue: payload }] } } }] } }] } };
}

function span(t: number, s: number, conversation: string | null = null, payload = PAYLOAD, nested = false): string {
  const start = BigInt(1767261600000 + s * 1000) * 1000000n;
  const output = JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `trace ${t} response ${s}` }] }]);
  const record = {
    traceId: traceId(t),
    spanId: (s + 1).toString(16).padStart(16, 'b'),
    name: 'chat m',
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 500_000_000n),
    attributes: [str('gen_ai.operation.name', 'chat'), str('gen_ai.output.messages', output), { key: 'app.payload', value: payloadValue(payload, nested) }, ...(conversation === null ? [] : [str('gen_ai.conversation.id', conversation)])],
  };
  return JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: 'genai' }, spans: [record] }] }] });
}

/** Every trace's spans in a seeded shuffled order, the traces taken round-robin: one span per line. */
function writeInterleaved(path: string, nested = false): void {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const orders = Array.from({ length: TRACES }, () => {
    const order = Array.from({ length: SPANS }, (_, s) => s);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    return order;
  });
  const fd = openSync(path, 'w');
  for (let k = 0; k < SPANS; k++) for (let t = 0; t < TRACES; t++) writeSync(fd, `${span(t, orders[t]![k]!, null, PAYLOAD, nested)}\n`);
  closeSync(fd);
}

interface Session {
  id: string;
  rounds: number;
}

describe('otel: open traces past the held-record bound', () => {
  it.each([
    ['', false],
    [', their text nested in arrayValue and kvlistValue', true],
  ])('60 MB of interleaved, shuffled traces%s read in a 48 MB heap: each trace read in parts says so once, every round kept', async (_, nested) => {
    const path = join(tmp.dir, `interleaved-${nested}.jsonl`);
    writeInterleaved(path, nested);
    const r = await runCapped([path, '--json', '--jobs', '1']);
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    const input = report.inputs[0];
    expect(input.format).toBe('otel');
    const ids = Array.from({ length: TRACES }, (_, t) => traceId(t));
    // One note per trace, in the ledger's inputs, no line: the text says what a part boundary costs.
    expect(input.skipped).toHaveLength(TRACES);
    expect(new Set(input.skipped.map((k: { reason: string }) => k.reason.match(/^session trace:([0-9a-f]{32}) /)?.[1]))).toEqual(new Set(ids));
    for (const k of input.skipped) {
      expect(k).toEqual({ line: null, reason: expect.stringMatching(/ was read in parts \(the file's open sessions held more than 8 MB of records\): a call and its answer on either side of a part count as unanswered$/) });
    }
    // Parts of one trace are one session: numbering goes on, nothing is dropped.
    const sessions: Session[] = report.sessions;
    expect(sessions.map((s) => s.id).sort()).toEqual([...ids].sort());
    for (const s of sessions) expect(s.rounds).toBe(SPANS);
    expect(report.summary.rounds).toBe(TRACES * SPANS);
  }, 120_000);

  it('past 64 sessions read early and kept open, the longest kept is ended: a late record of it is a session of its own, said with its line', async () => {
    // "early" first, then 130 sessions of 150 KB each (19 MB): about 55 fill the 8 MB, the rest push
    // one session each out to be read early, "early" first; past 64 of those it is ended for good.
    const lines = [span(0, 0, 'early', '')];
    for (let t = 1; t <= 130; t++) lines.push(span(t, 0, `s${t}`, 'p'.repeat(150_000)));
    lines.push(span(0, 1, 'early', ''), span(130, 1, 's130', ''), span(60, 1, 's60', ''));
    const path = join(tmp.dir, 'many-open.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const r = await runCapped([path, '--json', '--jobs', '1']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.inputs[0].skipped).toEqual([
      { line: null, reason: `session early was read early and ended (past 8 MB of records held, and 64 sessions read early kept open): its records from line ${lines.length - 2} on are read as session early#2` },
      // s60 was read early but is still open: its late record continues it.
      { line: null, reason: expect.stringMatching(/^session s60 was read in parts /) },
    ]);
    const rounds = Object.fromEntries(report.sessions.map((s: Session) => [s.id, s.rounds]));
    expect(rounds).toMatchObject({ early: 1, 'early#2': 1, s130: 2, s60: 2, s1: 1 });
    expect(report.sessions).toHaveLength(132);
  }, 120_000);
});
