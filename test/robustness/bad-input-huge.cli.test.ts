// SPEC "Bad input", its two cases that need hundreds of MB to show (a 50 MB line; a JSON document
// past V8's string limit, which the binary holds up to ~0.6 GB of before it can say so). They run
// in vitest's `heavy` project (vitest.config.ts: any file that calls oneHeavyCaseAtATime), one
// file at a time after the others, so the suite's peak memory is one of them, not one of them
// beside four workers (issue 31, item 6). The other bad-input cases are in bad-input.cli.test.ts.

import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneHeavyCaseAtATime } from '../helpers/one-heavy.js';
import { FIXTURES, type SpawnResult, ensureBuilt, scratch, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-badinput-huge-');
const LOOPING = readFileSync(join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl'));

beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

interface Report {
  inputs: { skipped: { line: number | null; reason: string }[] }[];
  sessions: { path: string; rounds: number; tool_calls: number }[];
}

function report(r: SpawnResult): Report {
  return JSON.parse(r.stdout.toString('utf8')) as Report;
}

describe('bad input that takes hundreds of MB to show (the built CLI)', () => {
  it('"megabyte-long lines": a 50 MB line is read and analyzed, and the run completes', async () => {
    const s = JSON.stringify;
    // The 50 MB line is a tool result (what real sessions carry: a log, a file dump); a 5 MB
    // assistant text beside it takes the text detectors through a long line too. Written to the
    // file a slice at a time: held as one array of words, the text cost this process ~0.7 GB.
    const words = function* (mb: number): Generator<string> {
      let seed = 1;
      const vocabulary = 'the build error test file run fix check log path config value cache server write read'.split(' ');
      let slice: string[] = [];
      for (let n = 0; n < mb * 1024 * 1024; ) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        const w = `${vocabulary[(seed >> 16) % vocabulary.length]}${(seed >> 8) % 97}`;
        slice.push(w);
        n += w.length + 1;
        if (slice.length === 65_536) {
          yield slice.join(' ');
          slice = [''];
        }
      }
      yield slice.join(' ');
    };
    const call = (i: number) => s({ type: 'assistant', text: '', tool_calls: [{ id: `c${i}`, name: 'cat', arguments: { path: 'build.log' } }] });
    // The vocabulary is letters and digits: a record is its JSON prefix, the words, and `"}`.
    const lines: (string | [prefix: string, mb: number])[] = [
      s({ type: 'session', schema: 'loopledger-canonical/1', id: 'big', parent: null, model: 'm' }),
      s({ type: 'user', text: 'go' }),
      call(0),
      ['{"type":"tool_result","id":"c0","content":"', 50],
      call(1),
      s({ type: 'tool_result', id: 'c1', content: 'short' }),
      ['{"type":"assistant","text":"', 5],
      s({ type: 'assistant', text: 'Done.' }),
    ];
    await oneHeavyCaseAtATime(async () => {
      const path = join(tmp.dir, 'fifty-mb.jsonl');
      const fd = openSync(path, 'w');
      for (const line of lines) {
        if (typeof line === 'string') writeSync(fd, `${line}\n`);
        else {
          writeSync(fd, line[0]);
          for (const text of words(line[1])) writeSync(fd, text);
          writeSync(fd, '"}\n');
        }
      }
      closeSync(fd);
      expect(statSync(path).size).toBeGreaterThan(55 * 1024 * 1024);
      const r = await spawnCli([path, '--format', 'json'], { timeoutMs: 60_000 });
      expect(r.signal, `killed after ${r.ms} ms`).toBeNull();
      expect(r.code, r.stderr).toBe(0);
      const rep = report(r);
      expect(rep.inputs[0]!.skipped).toEqual([]);
      expect(rep.sessions[0]!).toMatchObject({ rounds: 4, tool_calls: 2 });
    });
  }, 180_000);

  it('a JSON document past the string limit (over 512 MB) is named, and the other inputs are still analyzed', async () => {
    // SPEC: "Never crash" … "and the other inputs are still analyzed."
    // Joining it used to throw a RangeError that ended the whole run as an internal error.
    await oneHeavyCaseAtATime(async () => {
      const path = join(tmp.dir, 'huge-export.json');
      const fd = openSync(path, 'w');
      const line = `  ${JSON.stringify({ role: 'user', content: 'x'.repeat(4000) })},\n`;
      const block = line.repeat(1000);
      writeSync(fd, '[\n');
      for (let written = 0; written < 540 * 1024 * 1024; written += block.length) writeSync(fd, block);
      writeSync(fd, '  {"role":"assistant","content":"ok"}\n]\n');
      closeSync(fd);
      const good = tmp.file('good-beside-huge.jsonl', LOOPING);
      try {
        const r = await spawnCli([path, good, '--format', 'json', '--jobs', '1'], { timeoutMs: 60_000 });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toContain(`${path}: too large to read as one JSON document`);
        expect(report(r).sessions.map((s) => s.path)).toEqual([good]);
      } finally {
        rmSync(path, { force: true });
      }
    });
  }, 180_000);

});
