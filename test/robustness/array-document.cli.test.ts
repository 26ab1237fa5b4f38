// Soak tier (npm run test:soak): a 40 MB JSON array read under an 80 MB heap.
// Issue 53: "every input (a record, a line, a word, a string, a side file) is bounded in time and
// memory whatever its size". A ChatGPT export is one JSON array of conversations: read whole, a
// 40 MB one needed ~290 MB (its text and its tree at once; 200 MB: 1.1 GB, and 640 s while one id
// repeated), and one on a single line past 128 MB was skipped whole. Past 32 MB such a file is now
// read a conversation at a time: here under a 80 MB V8 heap, which reading it whole aborts.

import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuilt, ROOT, scratch } from '../cli/helpers.js';

const BIN = join(ROOT, 'bin', 'loopledger.js');
const tmp = scratch('loopledger-array-document-');
const TEMPLATES = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'chatgpt', 'conversations.json'), 'utf8')) as Record<string, unknown>[];
let conversations = 0;
let pretty = '';
let lines = '';

/** The fixture's conversations again and again, each with its own id, until past `bytes`. */
function writeExport(file: string, bytes: number, asLines: boolean): number {
  const fd = openSync(file, 'w');
  let size = 0;
  let n = 0;
  try {
    if (!asLines) writeSync(fd, '[\n');
    while (size < bytes) {
      const c = { ...TEMPLATES[n % TEMPLATES.length]!, conversation_id: `conv-${n}`, title: `copy ${n}` };
      const text = asLines ? `${JSON.stringify(c)}\n` : `${n === 0 ? '' : ',\n'}${JSON.stringify(c, null, 2)}`;
      writeSync(fd, text);
      size += text.length;
      n += 1;
    }
    if (!asLines) writeSync(fd, '\n]\n');
  } finally {
    closeSync(fd);
  }
  return n;
}

/** The CLI's JSON ledger of `file`, its V8 heap capped at `heapMb`. */
function ledger(file: string, heapMb: number) {
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, BIN, file, '--format', 'json'], { cwd: ROOT, env: cliEnv(), encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status, stderr: r.stderr, report: r.status === 0 || r.status === 1 ? (JSON.parse(r.stdout) as { sessions: Record<string, unknown>[]; inputs: Record<string, unknown>[] }) : null };
}

/** A session as it reads wherever its lines are: everything but line numbers and the file's path. */
const withoutPlace = (s: unknown) => JSON.stringify(s, (k, v) => (k === 'line' || k === 'last_line' || k === 'path' ? undefined : v));

beforeAll(() => {
  ensureBuilt();
  pretty = join(tmp.dir, 'conversations.json');
  lines = join(tmp.dir, 'conversations.jsonl');
  conversations = writeExport(pretty, 34 << 20, false);
  writeExport(lines, 1, true);
}, 120_000);
afterAll(() => tmp.cleanup());

describe('a ChatGPT export of 34 MB, one JSON array', () => {
  it('is read a conversation at a time within an 80 MB heap: every conversation, as each reads on its own line', () => {
    const r = ledger(pretty, 80);
    expect(r.code, r.stderr.slice(-400)).toBe(0);
    const sessions = r.report!.sessions;
    expect(sessions).toHaveLength(conversations);
    expect(sessions.map((s) => s['id'])).toEqual(Array.from({ length: conversations }, (_, i) => `conv-${i}`));
    // The same conversations one per line (JSON lines, read line by line): the same sessions.
    const few = writeExport(lines, 200_000, true);
    const one = ledger(lines, 512).report!.sessions;
    expect(one).toHaveLength(few);
    expect(sessions.slice(0, few).map(withoutPlace)).toEqual(one.map(withoutPlace));
    // Each conversation's findings name the line its conversation starts on in the export.
    const text = readFileSync(pretty, 'utf8').split('\n');
    const firstEntry = sessions.find((s) => (s['entries'] as unknown[]).length > 0)!;
    const line = (firstEntry['entries'] as { line: number }[])[0]!.line;
    expect(text[line - 1]).toMatch(/^\{$/);
  }, 240_000);

  it('cut short in a conversation: the ones before it read, the cut one skipped as truncated with its line', () => {
    const cut = join(tmp.dir, 'cut.json');
    writeFileSync(cut, readFileSync(pretty));
    const size = readFileSync(cut).length;
    truncateSync(cut, size - 5_000);
    const r = ledger(cut, 80);
    expect(r.code, r.stderr.slice(-400)).toBe(0);
    const input = r.report!.inputs[0]!;
    const skipped = input['skipped'] as { line: number; reason: string }[];
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.reason).toMatch(/^truncated/);
    expect(readFileSync(cut, 'utf8').split('\n')[skipped[0]!.line - 1]).toMatch(/^\{$/);
    expect(r.report!.sessions.length).toBeGreaterThan(conversations - 10);
    expect(r.report!.sessions.length).toBeLessThan(conversations);
    expect(r.stderr).toMatch(/cut\.json:\d+: truncated/);
  }, 240_000);
});
