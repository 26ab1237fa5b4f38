// Valid transcripts through the CLI's stdin (`-`), chunked, truncated, re-encoded and broken.
// SPEC "Detectors": "the same transcript gives the same ledger, byte for byte, however the input
// is chunked." SPEC "Bad input": "An unfinished last line (a session still being written) is
// reported as truncated." and "A malformed line is skipped and reported (`path:line: reason` on
// stderr, and in `inputs[].skipped`)".

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRUNCATED_REASON } from '../../src/formats/ingest.js';
import { type CliResult, chunkBySizes, fixtures, runMain, runs, splitAt } from './helpers.js';

const FIXTURES = fixtures();

interface Report {
  inputs: { path: string; format: string | null; lines: number; error?: string; skipped: { line: number | null; reason: string }[] }[];
  sessions: unknown[];
}

async function viaStdin(chunks: readonly Buffer[], extra: readonly string[] = []): Promise<CliResult & { report: Report }> {
  const r = await runMain(['-', '--format', 'json', '--jobs', '1', ...extra], { stdin: chunks });
  expect(r.code, r.stderr).toBe(0);
  return { ...r, report: JSON.parse(r.stdout) as Report };
}

/** Chunkings that matter: random sizes (down to one byte), and cuts right around line ends. */
function chunkings(bytes: Buffer): fc.Arbitrary<Buffer[]> {
  const newlines: number[] = [];
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) newlines.push(i);
  const bySize = fc.array(fc.oneof(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 8, max: 4096 })), { minLength: 1, maxLength: 8 }).map((sizes) => chunkBySizes(bytes, sizes));
  const atCuts = fc.array(fc.nat(), { minLength: 1, maxLength: 30 }).map((cuts) => splitAt(bytes, cuts));
  const nearLineEnds =
    newlines.length === 0
      ? atCuts
      : fc
          .array(fc.tuple(fc.nat(newlines.length - 1), fc.integer({ min: -1, max: 1 })), { minLength: 1, maxLength: 20 })
          .map((picks) => splitAt(bytes, picks.map(([i, d]) => Math.max(0, newlines[i]! + d))));
  return fc.oneof(bySize, atCuts, nearLineEnds);
}

function withBomAndCrlf(bytes: Buffer): Buffer {
  const crlf = bytes.toString('utf8').replace(/\r?\n/g, '\r\n');
  return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(crlf)]);
}

describe.each(FIXTURES)('$path through stdin', (fx) => {
  it('chunked any way: byte-identical JSON ledger and the same stderr', async () => {
    const whole = await viaStdin([fx.bytes]);
    expect(whole.report.inputs[0]!.format).toBe(fx.format);
    await fc.assert(
      fc.asyncProperty(chunkings(fx.bytes), async (chunks) => {
        const r = await viaStdin(chunks);
        expect(r.stdout).toBe(whole.stdout);
        expect(r.stderr).toBe(whole.stderr);
      }),
      { numRuns: runs(6) },
    );
  });

  it('"a BOM, CRLF": with both, and chunked, the ledger is byte-identical to the clean file', async () => {
    const clean = await viaStdin([fx.bytes]);
    const dirty = withBomAndCrlf(fx.bytes);
    await fc.assert(
      fc.asyncProperty(chunkings(dirty), async (chunks) => {
        const r = await viaStdin(chunks);
        expect(r.stdout).toBe(clean.stdout);
        expect(r.stderr).toBe(clean.stderr);
      }),
      { numRuns: runs(4) },
    );
  });

  it('truncated at any byte: no crash; an unfinished JSON line is reported as truncated and the complete lines give the same sessions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(fx.bytes.length), fc.array(fc.nat(), { maxLength: 6 }), async (cut, cuts) => {
        const prefix = fx.bytes.subarray(0, cut);
        const r = await viaStdin(splitAt(prefix, cuts));
        const input = r.report.inputs[0]!;
        expect(input.path).toBe('-');
        if (!fx.jsonl) {
          // A cut JSON document is named as truncated (unless nothing but blanks is left, or a
          // line of it happens to hold a whole record and it is read as JSON lines).
          if (input.format === null && prefix.toString('utf8').trim() !== '') {
            expect(input.error).toMatch(/truncated|not a recognized transcript format|no JSON records/);
          }
          return;
        }
        const lastNl = prefix.lastIndexOf(10);
        const tail = prefix.subarray(lastNl + 1).toString('utf8');
        const complete = prefix.subarray(0, lastNl + 1);
        const hasCompleteRecord = complete.toString('utf8').split('\n').some((l) => l.trim().startsWith('{'));
        if (tail.trim() === '' || !hasCompleteRecord) return;
        let tailParses = true;
        try {
          JSON.parse(tail);
        } catch {
          tailParses = false;
        }
        if (tailParses) {
          // Cut right after a record: nothing is lost, it is the same as the line with its newline.
          const finished = await viaStdin([prefix, Buffer.from('\n')]);
          expect(r.report.sessions).toEqual(finished.report.sessions);
          return;
        }
        const lineNo = complete.toString('utf8').split('\n').length;
        expect(input.skipped).toContainEqual({ line: lineNo, reason: TRUNCATED_REASON });
        expect(r.stderr).toContain(`-:${lineNo}: truncated`);
        const before = await viaStdin([complete]);
        expect(r.report.sessions).toEqual(before.report.sessions);
      }),
      { numRuns: runs(6) },
    );
  });

  if (fx.jsonl)
  it('random lines split in two: every broken piece is named by line, the rest is still analyzed', async () => {
    const lines = fx.bytes.toString('utf8').split('\n');
    const candidates = lines.map((l, i) => (l.length > 2 ? i : -1)).filter((i) => i >= 0);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(fc.constantFrom(...candidates), fc.nat()), { minLength: 1, maxLength: 4, selector: ([i]) => i }), async (splits) => {
        const at = new Map(splits.map(([i, offset]) => [i, 1 + (offset % (lines[i]!.length - 1))]));
        const out: string[] = [];
        const broken: number[] = [];
        lines.forEach((l, i) => {
          const o = at.get(i);
          if (o === undefined) return void out.push(l);
          for (const piece of [l.slice(0, o), l.slice(o)]) {
            out.push(piece);
            let ok = piece.trim() === '';
            try {
              ok ||= typeof JSON.parse(piece) === 'object';
            } catch {
              ok = false;
            }
            if (!ok) broken.push(out.length);
          }
        });
        const r = await viaStdin([Buffer.from(out.join('\n'))]);
        const input = r.report.inputs[0]!;
        // Detection sees only the first records: broken ones there can cost the format (then the
        // file is named as unrecognized, or as no JSON when no line parses), nothing more.
        if (input.format === null) return void expect(input.error).toBeTruthy();
        expect(input.format).toBe(fx.format);
        const named = new Set(input.skipped.map((s) => s.line));
        for (const line of broken) expect(named, `line ${line}`).toContain(line);
      }),
      { numRuns: runs(4) },
    );
  });
});
