import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { itWith } from '../helpers/capabilities.js';
import { type Line, ReadFailure, forEachLine, readLines } from '../../src/read/lines.js';
import { scratchDir } from './tmp.js';

const scratch = scratchDir();
afterAll(() => scratch.cleanup());

async function collect(source: string | Readable, options = {}) {
  const lines: Line[] = [];
  const stats = await forEachLine(source, (l) => void lines.push(l), options);
  return { lines, stats };
}

function chunks(...parts: (string | Uint8Array)[]): Readable {
  return Readable.from(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
}

describe('forEachLine', () => {
  it('strips a UTF-8 BOM from the first line', async () => {
    const path = scratch.file('bom.jsonl', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}\n{"b":2}\n')]));
    const { lines } = await collect(path);
    expect(lines.map((l) => l.text)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('ends lines at CRLF without keeping the CR, even when CR and LF arrive in different chunks', async () => {
    const { lines, stats } = await collect(chunks('{"a":1}\r', '\n{"b":2}\r\n'));
    expect(lines.map((l) => [l.line, l.text])).toEqual([
      [1, '{"a":1}'],
      [2, '{"b":2}'],
    ]);
    expect(stats.lines).toBe(2);
    expect(stats.endedWithNewline).toBe(true);
  });

  it('skips blank and whitespace-only lines but keeps counting them', async () => {
    const { lines, stats } = await collect(chunks('\n{"a":1}\n\n   \t\n{"b":2}\n\n'));
    expect(lines.map((l) => [l.line, l.text])).toEqual([
      [2, '{"a":1}'],
      [5, '{"b":2}'],
    ]);
    expect(stats.lines).toBe(6);
  });

  it('marks only an unterminated last line as unfinished', async () => {
    const { lines, stats } = await collect(chunks('{"a":1}\n{"b":'));
    expect(lines.map((l) => l.unfinished)).toEqual([false, true]);
    expect(stats.endedWithNewline).toBe(false);
    const terminated = await collect(chunks('{"a":1}\n{"b":2}\n'));
    expect(terminated.lines.map((l) => l.unfinished)).toEqual([false, false]);
  });

  it('keeps a multi-byte character split across chunks intact', async () => {
    const bytes = Buffer.from('{"t":"héllo 🦀"}\n');
    const cut = bytes.indexOf(0xf0) + 2; // inside the 4-byte crab
    const { lines } = await collect(chunks(bytes.subarray(0, cut), bytes.subarray(cut)));
    expect(lines[0]!.text).toBe('{"t":"héllo 🦀"}');
  });

  it('reads a generated 50 MB line whole', async () => {
    const size = 50 * 1024 * 1024;
    const path = scratch.file('long.jsonl', `{"a":1}\n{"s":"${'x'.repeat(size)}"}\n{"b":2}\n`);
    const { lines } = await collect(path);
    expect(lines.map((l) => l.text.length)).toEqual([7, size + 8, 7]);
    expect(lines[1]!.tooLong).toBe(false);
  });

  it('drops a line longer than maxLineLength unread and goes on', async () => {
    const { lines } = await collect(chunks('{"a":1}\n', 'y'.repeat(40), 'y'.repeat(40), '\n{"b":2}\n'), { maxLineLength: 50 });
    expect(lines.map((l) => [l.line, l.text, l.tooLong])).toEqual([
      [1, '{"a":1}', false],
      [2, '', true],
      [3, '{"b":2}', false],
    ]);
  });

  it('refuses a binary file with a ReadFailure', async () => {
    const err = await forEachLine(chunks(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2])), () => {}).catch((e) => e);
    expect(err).toBeInstanceOf(ReadFailure);
    expect((err as ReadFailure).kind).toBe('binary');
  });

  it('refuses a non-UTF-8 file with a ReadFailure', async () => {
    const err = await forEachLine(chunks(Buffer.from('{"t":"caf\xe9"}\n', 'latin1')), () => {}).catch((e) => e);
    expect(err).toBeInstanceOf(ReadFailure);
    expect((err as ReadFailure).kind).toBe('encoding');
    expect((err as ReadFailure).message).toMatch(/not UTF-8/);
  });

  it('reports a missing file as unreadable, naming the reason', async () => {
    const err = await forEachLine(`${scratch.dir}/nope.jsonl`, () => {}).catch((e) => e);
    expect(err).toBeInstanceOf(ReadFailure);
    expect((err as ReadFailure).message).toBe('no such file');
  });

  it('reads an empty file as no lines', async () => {
    const { lines, stats } = await collect(scratch.file('empty.jsonl', ''));
    expect(lines).toEqual([]);
    expect(stats).toMatchObject({ lines: 0, bytes: 0, endedWithNewline: true });
  });

  it('reads stdin only for `-`', async () => {
    let touched = false;
    const stdin = new Readable({
      read() {
        touched = true;
        this.push('{"from":"stdin"}\n');
        this.push(null);
      },
    });
    const path = scratch.file('plain.jsonl', '{"from":"file"}\n');
    const fromFile = await collect(path, { stdin });
    expect(fromFile.lines[0]!.text).toBe('{"from":"file"}');
    expect(touched).toBe(false);
    const fromStdin = await collect('-', { stdin });
    expect(fromStdin.lines[0]!.text).toBe('{"from":"stdin"}');
    expect(touched).toBe(true);
  });

  it('stops reading when the handler returns false', async () => {
    const seen: number[] = [];
    const stats = await forEachLine(chunks('a\nb\nc\nd\n'), (l) => {
      seen.push(l.line);
      return l.line < 2;
    });
    expect(seen).toEqual([1, 2]);
    expect(stats.stopped).toBe(true);
  });

  it('passes on what the handler throws', async () => {
    const boom = new Error('boom');
    await expect(
      forEachLine(chunks('a\nb\n'), () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });

  it('gives the same lines however the input is chunked', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '🦀', '\n', '\r', ' ', '{', '"', '\ufeff'), maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(text, fc.array(fc.nat(), { maxLength: 8 }), async (s, cuts) => {
        const bytes = Buffer.from(s);
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const parts: Buffer[] = [];
        let at = 0;
        for (const p of points) {
          parts.push(bytes.subarray(at, p));
          at = p;
        }
        parts.push(bytes.subarray(at));
        const whole = await collect(chunks(bytes));
        const split = await collect(Readable.from(parts.filter((p) => p.length > 0)));
        expect(split).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });
});

describe('forEachLine on files of many chunks', () => {
  it('gives a file read by path, chunk after chunk, the same lines as the same bytes streamed whole', async () => {
    // Lines of every kind near the 256 KiB chunk boundaries: a CRLF, a 4-byte character, a blank
    // line or a long line cut by them.
    const piece = fc.oneof(
      fc.constantFrom('\n', '\r\n', '\r', '\n\n', ' \n', '🦀', 'é', '{"a":1}'),
      fc.nat({ max: 300_000 }).map((n) => 'x'.repeat(n)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 12 }), async (pieces) => {
        const bytes = Buffer.from(pieces.join(''));
        const path = scratch.file('chunks.jsonl', bytes);
        expect(await collect(path)).toEqual(await collect(chunks(bytes)));
      }),
      { numRuns: 40 },
    );
  });

  it('stops a file of many chunks early without disturbing the file read next', async () => {
    // Lines of 1 KiB: line 257 opens the second 256 KiB chunk, handed over just after the third was
    // asked for. Stopping there, the stopped file's descriptor must outlive that read, or the next
    // file opened could be given its number and lose its first chunk to the read.
    const line = (i: number) => `{"i":${String(i).padStart(6, '0')},"s":"${'z'.repeat(1004)}"}`;
    const text = Array.from({ length: 2000 }, (_, i) => line(i)).join('\n') + '\n';
    expect(text.length).toBe(2000 * 1024);
    const stopped = scratch.file('stopped.jsonl', text);
    const other = scratch.file('other.jsonl', text);
    const expected = text.split('\n').slice(0, -1);
    for (let round = 0; round < 20; round++) {
      const early = await forEachLine(stopped, (l) => l.line < 257);
      const seen: string[] = [];
      await forEachLine(other, (l) => void seen.push(l.text));
      expect(early.stopped).toBe(true);
      expect(seen).toEqual(expected);
    }
  });

  itWith('mkfifo', 'reads a FIFO without blocking the thread while its writer waits', async () => {
    const path = join(scratch.dir, 'pipe.jsonl');
    const go = join(scratch.dir, 'go');
    execFileSync('mkfifo', [path]);
    // The writer sends a line, then waits (up to 5 s) for a file this thread creates on a timer
    // once that line is read: a blocking read of the FIFO would hold the thread, and the timer,
    // until the writer gave up. The first line is past the 64 KiB gathered before any split.
    const first = `{"a":"${'x'.repeat(70_000)}"}`;
    const script = `exec > "$1"; printf '%s\\n' "$2"; i=0; while [ ! -e "$3" ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i+1)); done; printf '{"b":2}\\n'`;
    const writer = spawn('sh', ['-c', script, 'sh', path, first, go], { stdio: 'ignore' });
    // Listened for now: the writer may be gone before the last line is handed over.
    const closed = new Promise((resolve) => writer.on('close', resolve));
    let signalled = false;
    const signalledAt: boolean[] = [];
    await forEachLine(path, (l) => {
      signalledAt.push(signalled);
      if (l.line === 1)
        setTimeout(() => {
          writeFileSync(go, '');
          signalled = true;
        }, 10);
    });
    await closed;
    expect(signalledAt).toEqual([false, true]);
  });
});

describe('readLines', () => {
  it('yields the same lines as an async iterable and returns the totals', async () => {
    const it = readLines(chunks('{"a":1}\n\n{"b":2}'));
    const texts: string[] = [];
    let next = await it.next();
    while (!next.done) {
      texts.push(next.value.text);
      next = await it.next();
    }
    expect(texts).toEqual(['{"a":1}', '{"b":2}']);
    expect(next.value).toMatchObject({ lines: 3, endedWithNewline: false });
  });

  it('keeps pace with a slow consumer over many lines', async () => {
    const body = Array.from({ length: 5000 }, (_, i) => `{"i":${i}}`).join('\n') + '\n';
    let count = 0;
    for await (const line of readLines(chunks(body))) {
      if (line.line % 1000 === 0) await new Promise((r) => setTimeout(r, 1));
      count += 1;
    }
    expect(count).toBe(5000);
  });

  it('stops cleanly when the consumer breaks out', async () => {
    const body = Array.from({ length: 5000 }, (_, i) => `{"i":${i}}`).join('\n');
    let count = 0;
    for await (const _ of readLines(chunks(body))) {
      if (++count === 3) break;
    }
    expect(count).toBe(3);
  });
});
