// Issue 53: "every input (a record, a line, a word, a string, a side file) is bounded in time and
// memory whatever its size: a size past the bound is skipped or truncated with a reason, never a
// crash". A line of nested or wide arrays is short text but a huge parsed tree (~28 bytes of heap a
// character of `[[[…]]]`): 64 MB of it took over 11 minutes and 2.4 GB before it was stopped. A
// record holding more than MAX_RECORD_VALUES values is now skipped unparsed with a reason, in a
// 96 MB heap, as a line and as one of several pretty-printed objects; the rest of the file reads.

import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RECORD_VALUES } from '../../src/read/json-values.js';
import { oneHeavyCaseAtATime } from '../helpers/one-heavy.js';
import { FIXTURES, ensureBuilt, runCapped, scratch } from './helpers.js';

const tmp = scratch('loopledger-record-values-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const HEAP_MB = 96;
const MB = 1024 * 1024;
const ROUNDS = 6;
const REASON = /^too many values for one record \(over 1,048,576 arrays, objects and elements\): skipped unparsed$/;

interface Ledger {
  inputs: { error?: string; skipped: { line: number | null; reason: string }[] }[];
  sessions: { rounds: number; entries: { kind: string; round: number }[] }[];
}

type Shape = 'deep' | 'wide';

/** `mb` megabytes of `[[[…]]]`, or of `[0],[1],…` side by side, written to `fd` a slice at a time. */
function writeTree(fd: number, shape: Shape, mb: number): void {
  const slice = 1 * MB;
  if (shape === 'deep') {
    const half = (mb * MB) / 2;
    for (let n = 0; n < half; n += slice) writeSync(fd, '['.repeat(slice));
    writeSync(fd, '0');
    for (let n = 0; n < half; n += slice) writeSync(fd, ']'.repeat(slice));
    return;
  }
  const unit = '[7],';
  writeSync(fd, '[');
  for (let n = 0; n < mb * MB; n += slice) writeSync(fd, unit.repeat(slice / unit.length));
  writeSync(fd, '[7]]');
}

const s = JSON.stringify;
const session = { type: 'session', schema: 'loopledger-canonical/1', id: 'trees', parent: null, model: 'example-model-1' };
const call = (r: number) => ({ type: 'assistant', text: '', tool_calls: [{ id: `c${r}`, name: 'Bash', arguments: { command: 'npm test' } }], usage: { input: 900, output: 30, reasoning: 0 } });
const result = (r: number) => ({ type: 'tool_result', id: `c${r}`, content: 'FAIL: 1 test failed', is_error: true });

describe(`a record of more than ${MAX_RECORD_VALUES} values is skipped unparsed, in a ${HEAP_MB} MB heap`, () => {
  for (const shape of ['deep', 'wide'] as const) {
    it(`a 64 MB line of ${shape} arrays among JSON lines`, async () => {
      const file = join(tmp.dir, `${shape}.jsonl`);
      const fd = openSync(file, 'w');
      writeSync(fd, `${s(session)}\n${s({ type: 'user', text: 'make the tests pass' })}\n`);
      // Line 3: an answer whose arguments are the tree; then a loop of the same failing call.
      writeSync(fd, '{"type":"assistant","text":"","tool_calls":[{"id":"big","name":"put","arguments":{"data":');
      writeTree(fd, shape, 64);
      writeSync(fd, '}}]}\n');
      for (let r = 0; r < ROUNDS; r++) writeSync(fd, `${s(call(r))}\n${s(result(r))}\n`);
      closeSync(fd);
      const r = await oneHeavyCaseAtATime(() => runCapped([file, '--format', 'json', '--jobs', '1'], HEAP_MB));
      expect(r.stderr).not.toMatch(/heap out of memory|at .*\(/);
      expect(r.code).toBe(0);
      const ledger = JSON.parse(r.stdout) as Ledger;
      expect(ledger.inputs[0]!.skipped).toEqual([{ line: 3, reason: expect.stringMatching(REASON) }]);
      expect(r.stderr).toContain(`${file}:3: too many values for one record`);
      expect(ledger.sessions[0]!.rounds).toBe(ROUNDS);
      expect(ledger.sessions[0]!.entries.map((e) => e.kind)).toContain('repeated_batch');
    }, 300_000);
  }

  it('one of several pretty-printed objects (an SDK dump) holding 1.2 million arrays', async () => {
    const file = join(tmp.dir, 'concatenated.json');
    const fd = openSync(file, 'w');
    const pretty = (v: unknown) => writeSync(fd, `${JSON.stringify(v, null, 2)}\n`);
    pretty(session);
    pretty({ type: 'user', text: 'make the tests pass' });
    // Three rounds first: a large document is judged on its first MB, which must show a session.
    for (let r = 0; r < 3; r++) [call(r), result(r)].forEach(pretty);
    const bigLine = readFileSync(file, 'utf8').split('\n').length;
    // `{ "type": "user", "text": "…", "data": [ [ 7 ], … ] }` as JSON.stringify(…, null, 2) prints it.
    writeSync(fd, '{\n  "type": "user",\n  "text": "here is the data",\n  "data": [\n');
    const unit = '    [\n      7\n    ],\n';
    const units = 1_200_000;
    for (let n = 0; n < units; n += 65_536) writeSync(fd, unit.repeat(Math.min(65_536, units - n)));
    writeSync(fd, '    [\n      7\n    ]\n  ]\n}\n');
    for (let r = 3; r < ROUNDS + 3; r++) [call(r), result(r)].forEach(pretty);
    closeSync(fd);
    const r = await oneHeavyCaseAtATime(() => runCapped([file, '--format', 'json', '--jobs', '1'], HEAP_MB));
    expect(r.stderr).not.toMatch(/heap out of memory|at .*\(/);
    expect(r.code).toBe(0);
    const ledger = JSON.parse(r.stdout) as Ledger;
    expect(ledger.inputs[0]!.skipped).toEqual([{ line: bigLine, reason: expect.stringMatching(REASON) }]);
    // The skipped object was a user turn: the three rounds before it and the six after it.
    expect(ledger.sessions[0]!.rounds).toBe(ROUNDS + 3);
    expect(ledger.sessions[0]!.entries.map((e) => e.kind)).toContain('repeated_batch');
  }, 300_000);
});

describe('a file that is one minified document is still read whole, however many values it holds', () => {
  it('a ChatGPT export on one line, with a field of more than the bound, reads as without that field', async () => {
    const exported = JSON.parse(readFileSync(join(FIXTURES, 'chatgpt', 'conversations.json'), 'utf8')) as Record<string, unknown>[];
    const plain = join(tmp.dir, 'plain.json');
    writeFileSync(plain, JSON.stringify(exported));
    const padded = join(tmp.dir, 'padded.json');
    exported[0]!.attachments_index = new Array<number>(MAX_RECORD_VALUES + 10).fill(0);
    writeFileSync(padded, JSON.stringify(exported));
    const a = await runCapped([plain, '--format', 'json', '--jobs', '1'], 512);
    const b = await runCapped([padded, '--format', 'json', '--jobs', '1'], 512);
    expect(b.code, b.stderr).toBe(0);
    const read = (out: string) => {
      const l = JSON.parse(out) as { inputs: Record<string, unknown>[]; sessions: Record<string, unknown>[] };
      return { inputs: l.inputs.map(({ path: _p, ...rest }) => rest), sessions: l.sessions.map(({ path: _p, ...rest }) => rest) };
    };
    expect(read(b.stdout)).toEqual(read(a.stdout));
    expect(read(b.stdout).sessions.length).toBeGreaterThan(0);
  }, 120_000);
});
