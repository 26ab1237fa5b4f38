// Issue 53, item 10: the shell reader takes a word's ordinary characters a run at a time (one at a
// time, a 5 MB base64 word cost 10 s and 419 MB, 50 MB 151 s and 2.8 GB), and does not read a
// command line past MAX_COMMAND_CHARS at all. The words it returns are the ones the test quoted.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_COMMAND_CHARS, parseCommandLine } from '../../../src/detect/tool-batch/shell.js';

/** Characters a word may hold: ordinary ones, and every one the reader treats specially. */
const CHARS = [...'abcXYZ019_./-=+,:@%^~!*?[]{}#', ...' \t\n\\\'"`$;|&<>()'];
const word = fc.array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 30 }).map((cs) => cs.join(''));

/** `w` as the shell would need it written: bare when nothing in it is special, else single-quoted. */
function quoted(w: string): string {
  if (/^[A-Za-z0-9_./=+,:@%^~!*?[\]-][A-Za-z0-9_./=+,:@%^~!*?[\]{}#-]*$/.test(w)) return w;
  return `'${w.replace(/'/g, `'\\''`)}'`;
}

describe('shell words, bounded (issue 53, item 10)', () => {
  it('any words, quoted as a shell needs them, come back as they were', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 8 }), fc.constantFrom(' ', '  ', '\t'), (words, gap) => {
        const parsed = parseCommandLine(words.map(quoted).join(gap));
        expect(parsed.ok && parsed.commands.map((c) => [c.words, c.writes])).toEqual([[words, null]]);
      }),
      { numRuns: 300 },
    );
  });

  it('a word in double quotes comes back whole, however long its runs', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }).filter((s) => !/["\\`$]/.test(s)), fc.nat(5_000), (inner, pad) => {
        const long = `${inner}${'x'.repeat(pad)}${inner}`;
        expect(parseCommandLine(`echo "${long}" done`)).toEqual({ ok: true, commands: [{ words: ['echo', long, 'done'], writes: null, assignments: 0 }] });
      }),
      { numRuns: 100 },
    );
  });

  it('a word just under the bound is read whole, in well under a second', () => {
    const payload = 'QUJD+/'.repeat(Math.floor((MAX_COMMAND_CHARS - 64) / 6));
    const started = performance.now();
    const parsed = parseCommandLine(`echo ${payload}#{x} | base64 -d`);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(parsed).toEqual({
      ok: true,
      commands: [
        { words: ['echo', `${payload}#{x}`], writes: null, assignments: 0 },
        { words: ['base64', '-d'], writes: null, assignments: 0 },
      ],
    });
  });

  it('a 50 MB command line is not read, with its reason, at once (it took 151 s and 2.8 GB)', () => {
    const command = `echo ${'QUJD'.repeat(50 * 256 * 1024)} | base64 -d > out.bin`;
    const started = performance.now();
    expect(parseCommandLine(command)).toEqual({ ok: false, reason: `a command line over ${MAX_COMMAND_CHARS / 1024} KB (not read)` });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
