// Issue 53, item 8, through the built CLI: a record too large for the reading thread's capped heap
// never ends the run (it once aborted with V8 out of memory, exit 134), and a line past the longest
// line read is skipped with its number and reason, not reported as an empty file. Both hold
// hundreds of MB on disk or in memory: they run in vitest's heavy project, one at a time.

import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneHeavyCaseAtATime } from '../helpers/one-heavy.js';
import { ensureBuilt, scratch, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-huge-lane-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const MB = 1024 * 1024;
const session = { isSidechain: false, userType: 'external', cwd: '/w', sessionId: 's1', version: '2.1.34' };

/** A Claude Code session of four failing `npm test` calls; the third's result is `bigMb` MB of log, written a slice at a time. */
function writeClaudeSession(path: string, bigMb: number): void {
  const fd = openSync(path, 'w');
  let n = 0;
  const line = (o: object) => JSON.stringify({ ...session, uuid: `u${n++}`, timestamp: '2026-03-12T09:20:00.000Z', ...o });
  try {
    writeSync(fd, `${line({ parentUuid: null, type: 'user', message: { role: 'user', content: 'fix the tests' } })}\n`);
    for (let i = 0; i < 4; i++) {
      const use = { type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: 'npm test' } };
      writeSync(fd, `${line({ type: 'assistant', message: { model: 'claude-sonnet-4-5-20250929', id: `m${i}`, role: 'assistant', content: [use], usage: { input_tokens: 10, output_tokens: 5 } } })}\n`);
      const result = line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'BIG', is_error: true }] } });
      if (i !== 2) {
        writeSync(fd, `${result}\n`);
        continue;
      }
      const [head, tail] = result.split('"BIG"') as [string, string];
      const slice = 'FAIL src/deploy.test.ts: still pending; expected status ready. '.repeat(MB / 64);
      writeSync(fd, `${head}"`);
      for (let k = 0; k < bigMb; k++) writeSync(fd, slice);
      writeSync(fd, `"${tail}\n`);
    }
    writeSync(fd, `${line({ type: 'assistant', message: { model: 'claude-sonnet-4-5-20250929', id: 'mz', role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } })}\n`);
  } finally {
    closeSync(fd);
  }
}

interface Report {
  inputs: { skipped: { line: number | null; reason: string }[]; error?: string; not_transcript?: string }[];
  sessions: { rounds: number; tool_calls: number }[];
}

describe('records past what a thread holds (issue 53, item 8)', () => {
  it('a 60 MB tool result in a Claude Code session: the run completes, as with --jobs 1 (it aborted the run, exit 134)', async () => {
    await oneHeavyCaseAtATime(async () => {
      const path = join(tmp.dir, 'sixty.jsonl');
      writeClaudeSession(path, 60);
      // Over 32 MB, the default gives the file a reading thread of its own (run/reader-thread.ts).
      const r = await spawnCli([path, '--format', 'json'], { timeoutMs: 240_000 });
      expect(r.signal, `killed after ${r.ms} ms`).toBeNull();
      expect(r.code, r.stderr.slice(0, 2000)).toBe(0);
      const rep = JSON.parse(r.stdout.toString('utf8')) as Report;
      expect(rep.inputs[0]!.skipped).toEqual([]);
      expect(rep.sessions[0]).toMatchObject({ tool_calls: 4 });
    });
  }, 300_000);

  it('a file whose one line is over 128 MB: that line is skipped with its number and reason, and the file is not called empty', async () => {
    await oneHeavyCaseAtATime(async () => {
      const path = join(tmp.dir, 'one-line.jsonl');
      const fd = openSync(path, 'w');
      const slice = 'x'.repeat(MB);
      writeSync(fd, '{"type":"user","message":{"content":"');
      for (let k = 0; k < 130; k++) writeSync(fd, slice);
      writeSync(fd, '"}}\n');
      closeSync(fd);
      const r = await spawnCli([path, '--format', 'json'], { timeoutMs: 240_000 });
      expect(r.signal, `killed after ${r.ms} ms`).toBeNull();
      const rep = JSON.parse(r.stdout.toString('utf8')) as Report;
      expect(rep.inputs[0]!.skipped).toEqual([{ line: 1, reason: 'line too long (over 128 MB): skipped unread' }]);
      expect(rep.inputs[0]!.not_transcript).toBeUndefined();
      expect(rep.inputs[0]!.error).toBe('no record read: its one line was too long (skipped unread)');
      expect(r.stderr).not.toMatch(/empty file/);
    });
  }, 300_000);
});
