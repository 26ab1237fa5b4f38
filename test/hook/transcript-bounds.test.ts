// Issue 27 item 4: the first reading's bound (CATCH_UP_BYTES, the last 4 MB) holds whatever the
// lines, and the cursor always moves on, so no later call reads the same bytes again: a line
// that straddles the bound, a file with no newline at all, an unfinished last line that is huge.

import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATCH_UP_BYTES, loadAdapter, readTranscript, type TranscriptReading } from '../../src/hook/transcript.js';
import { scratch } from '../cli/helpers.js';

const tmp = scratch('loopledger-hook-bounds-');
beforeAll(() => loadAdapter('claude-code'));
afterAll(() => tmp.cleanup());

const SESSION = 'b0b0b0b0-0000-4000-8000-000000000001';
let uuid = 0;
const line = (o: Record<string, unknown>) => JSON.stringify({ parentUuid: null, isSidechain: false, sessionId: SESSION, uuid: `u${++uuid}`, ...o }) + '\n';
const userLine = (text: string) => line({ type: 'user', message: { role: 'user', content: text } });
const assistantLine = (id: string, text: string) =>
  line({ type: 'assistant', message: { id, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text }] } });
/** A tool result of `bytes` bytes: one long line, as a big command output is. */
const bigResult = (bytes: number) => line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'y'.repeat(bytes) }] } });

function rounds(reading: TranscriptReading): string[] {
  return reading.delta.events.flatMap((e) => (e.type === 'round' ? [e.round.text] : []));
}

describe('the first reading’s 4 MB bound', () => {
  it('a 5 MB line straddling the bound: the reading starts after it and reads only the last lines', () => {
    const file = join(tmp.dir, 'straddle.jsonl');
    writeFileSync(file, '');
    for (let i = 0; i < 2_000; i++) appendFileSync(file, assistantLine(`m-early-${i}`, `early ${i} `.padEnd(500, '.')));
    appendFileSync(file, bigResult(5 * 1024 * 1024));
    appendFileSync(file, userLine('the current turn'));
    for (let i = 0; i < 3; i++) appendFileSync(file, assistantLine(`m-late-${i}`, `late ${i}`));
    const first = readTranscript('claude-code', file, null);
    // Only the lines after the big one: none of the 2,000 early rounds.
    expect(rounds(first).some((t) => t.startsWith('early'))).toBe(false);
    expect(rounds(first)).toEqual(['late 0', 'late 1']);
    expect(first.delta.tentative?.text).toBe('late 2');
    expect(first.cursor.line).toBeLessThan(10);
    expect(first.notice).toBeUndefined();
    // Nothing new: the next reading gives the tentative round again and nothing else.
    const again = readTranscript('claude-code', file, first.cursor);
    expect(rounds(again)).toEqual([]);
    expect(again.cursor.offset).toBe(first.cursor.offset);
  });

  it('no newline at all in the last 4 MB: the cursor goes to the end, said once, and the next line is read', () => {
    const file = join(tmp.dir, 'one-line.jsonl');
    writeFileSync(file, userLine('hello') + 'z'.repeat(CATCH_UP_BYTES + 1024));
    const first = readTranscript('claude-code', file, null);
    expect(first.cursor.offset).toBe(CATCH_UP_BYTES + 1024 + userLine('hello').length);
    expect(first.notice).toMatch(/longer than 4194304 bytes and unfinished; skipped/);
    appendFileSync(file, 'z'.repeat(1024));
    const second = readTranscript('claude-code', file, first.cursor);
    expect(second.notice).toBeUndefined();
    expect(second.cursor.offset).toBe(first.cursor.offset + 1024);
    // The long line ends; what follows is read, the line's rest is not.
    appendFileSync(file, '\n' + userLine('after') + assistantLine('m-1', 'answer') + assistantLine('m-2', 'next'));
    const third = readTranscript('claude-code', file, second.cursor);
    expect(rounds(third)).toEqual(['answer']);
    expect(third.notice).toBeUndefined();
  });

  it('an unfinished last line over 4 MB met by a later reading is moved past, not re-read on each call', () => {
    const file = join(tmp.dir, 'tail.jsonl');
    writeFileSync(file, userLine('start') + assistantLine('m-1', 'one'));
    const first = readTranscript('claude-code', file, null);
    appendFileSync(file, assistantLine('m-2', 'two') + '{"type":"user","message":"' + 'q'.repeat(CATCH_UP_BYTES + 10));
    const second = readTranscript('claude-code', file, first.cursor);
    expect(rounds(second)).toEqual(['one']);
    expect(second.notice).toMatch(/unfinished; skipped/);
    expect(second.cursor.skip).toBe(true);
    appendFileSync(file, 'q'.repeat(100));
    const third = readTranscript('claude-code', file, second.cursor);
    expect(third.notice).toBeUndefined();
    expect(third.cursor.offset).toBe(second.cursor.offset + 100);
    appendFileSync(file, '"}\n' + assistantLine('m-3', 'three') + assistantLine('m-4', 'four'));
    const fourth = readTranscript('claude-code', file, third.cursor);
    expect(rounds(fourth)).toEqual(['three']);
    expect(fourth.cursor.skip).toBeUndefined();
  });
});
