// Every renderer works in bounded pieces (issue 11): a ledger of ~120k entries crashed table and
// markdown with "Maximum call stack size exceeded" (every entry spread into Math.max(...) and
// Array.push(...)), and json built the whole report as one string, which fails near 1M entries.
// Here a generated ledger of 150,000 entries goes through every format via the library, consumed
// chunk by chunk; CI formats stay within their consumers' limits.

import { beforeAll, describe, expect, it } from 'vitest';
import type { EnforceLevel, LedgerEntry, LedgerReport, SessionLedger } from '../../src/ledger/types.js';
import { ANNOTATIONS_PER_LEVEL } from '../../src/report/github.js';
import { HTML_TIMELINE_BUDGET } from '../../src/report/html/page.js';
import { reportChunks } from '../../src/report/index.js';
import type { ReportFormat } from '../../src/vocabulary.js';
import { MARKDOWN_MAX_BYTES } from '../../src/report/markdown.js';
import { SARIF_MAX_RESULTS } from '../../src/report/sarif.js';
import { collect } from '../../src/report/stream.js';
import { report, session } from './fixtures.js';
import { opts } from './helpers.js';

// Past the ~125,000 arguments where a spread overflows Node's default stack (Math.max(...a) of
// 125,000 numbers passes, of 130,000 throws): 200,000 held this worker at ~410 MB for nothing more.
const ENTRIES = 150_000;
const TIMEOUT = 180_000;

function level(i: number): EnforceLevel {
  if (i % 97 === 0) return 'stop';
  if (i % 13 === 0) return 'steer';
  if (i % 5 === 0) return 'none';
  return 'noted';
}

/** One session holding almost every entry (the shape that crashed), plus a few small ones. */
function bigReport(): LedgerReport {
  const entries: LedgerEntry[] = [];
  for (let i = 0; i < ENTRIES - 30; i += 1) {
    const enforce = level(i);
    entries.push({
      turn: 1 + Math.floor(i / 1000),
      round: i + 1,
      line: 2 * i + 3,
      detector: 'tool_batch',
      kind: 'repeated_batch',
      confidence: null,
      strike: { count: (i % 7) + 1, threshold: 2, total: (i % 7) + 1, ceiling: 15, read_only: false },
      evidence: { signature: 'ab12cd34', calls: 1, tools: 'Bash' },
      intervention: { off: 'none', telemetry: 'noted', enforce },
      after_stop: enforce === 'none',
    });
  }
  const huge = session({ id: 'huge', path: 'runs/huge.jsonl', turns: 200, rounds: ENTRIES, tool_calls: ENTRIES, entries, outcome: { enforce: { steers: 10, stops: [{ turn: 1, round: 1 }] } } });
  const small: SessionLedger[] = Array.from({ length: 30 }, (_, k) =>
    session({
      id: `small-${k}`,
      path: `runs/small-${String(k).padStart(2, '0')}.jsonl`,
      rounds: 9,
      entries: [{ ...entries[1]!, round: 4, intervention: { off: 'none', telemetry: 'noted', enforce: k % 2 ? 'stop' : 'noted' } }],
      outcome: { enforce: { steers: 0, stops: k % 2 ? [{ turn: 1, round: 4 }] : [] } },
    }),
  );
  return report([huge, ...small]);
}

let big: LedgerReport;
beforeAll(() => {
  big = bigReport();
}, TIMEOUT);

/** Walks the chunks without keeping them: size, the longest chunk, the first and last bytes. */
async function scan(format: ReportFormat, over = {}) {
  let bytes = 0;
  let longest = 0;
  let chunks = 0;
  let head = '';
  let tail = '';
  let newlines = 0;
  for await (const c of reportChunks(big, format, opts({ width: 120, ...over }))) {
    chunks += 1;
    bytes += Buffer.byteLength(c);
    longest = Math.max(longest, c.length);
    if (head.length < 4096) head += c.slice(0, 4096);
    tail = (tail + c).slice(-4096);
    for (let i = c.indexOf('\n'); i >= 0; i = c.indexOf('\n', i + 1)) newlines += 1;
  }
  return { bytes, longest, chunks, head, tail, newlines };
}

// Pieces are a few entries or a slice of rows, never the ledger: far below what one entry in a
// million would make (the JSON of 150k entries is over 75 MB).
const MAX_CHUNK = 256 * 1024;

describe(`a ledger of ${ENTRIES.toLocaleString('en-US')} entries, every format`, () => {
  it('table: no "Maximum call stack size exceeded"; one row per entry, every line within the width', async () => {
    const s = await scan('table', { top: 0, all: true });
    expect(s.longest).toBeLessThan(MAX_CHUNK);
    // Every entry is a row of its session's table (plus headers, borders and the summary).
    expect(s.newlines).toBeGreaterThan(ENTRIES);
    expect(s.tail).toMatch(/31 sessions · 150,000 findings · enforce would stop 16 sessions, steer 1 · 0 skipped lines\n/);
    const sample = await collect(reportChunks(report([big.sessions[0]!]), 'table', opts({ width: 80, top: 0, all: true })));
    const widest = sample.split('\n').reduce((w, l) => Math.max(w, [...l.replace(/\x1b\[[0-9;]*m/g, '')].length), 0);
    expect(widest).toBeLessThanOrEqual(80);
  }, TIMEOUT);

  it('markdown: at most 1 MiB (GitHub step summary), what does not fit counted exactly', async () => {
    const md = await collect(reportChunks(big, 'markdown', opts()));
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(MARKDOWN_MAX_BYTES);
    expect(Buffer.byteLength(md)).toBeGreaterThan(MARKDOWN_MAX_BYTES - 64 * 1024);
    // 31 sessions: the overview, then the top 10 in full (the huge one first: most interventions).
    expect(md).toContain('31 sessions: 31 with findings, worst first; 0 calm, not listed. The first 10 follow in full.');
    const sections = md.slice(md.indexOf('\n### '));
    const shown = sections.split('\n').filter((l) => /^\| \d+ \| \d+/.test(l)).length;
    expect(sections.match(/^### /gm)).toHaveLength(1);
    // The cut falls inside the huge session; the 9 small ones of the top 10 after it are left out whole.
    const omitted = big.sessions[0]!.entries.length - shown + 9;
    expect(md.trimEnd().split('\n').at(-1)).toBe(
      `**Cut to fit GitHub's 1 MiB summary limit:** ${omitted.toLocaleString('en-US')} findings of 10 sessions not shown. The full ledger: \`--format json\` or \`--format table\`.`,
    );
  }, TIMEOUT);

  it('json: written entry by entry; the whole document is never one string', async () => {
    const s = await scan('json');
    expect(s.longest).toBeLessThan(MAX_CHUNK);
    expect(s.bytes).toBeGreaterThan(75 * 1024 * 1024);
    expect(s.head.startsWith('{\n  "schema": "loopledger/1",\n  "tool": {')).toBe(true);
    expect(JSON.parse(s.tail.slice(s.tail.lastIndexOf('\n  "summary": ') + 13, -2))).toEqual(big.summary);
    expect(s.tail.endsWith('\n}\n')).toBe(true);
  }, TIMEOUT);

  it('ndjson: one line per entry, streamed through the serializer', async () => {
    const s = await scan('ndjson');
    expect(s.longest).toBeLessThan(MAX_CHUNK);
    expect(s.newlines).toBe(big.summary.entries);
    const first = JSON.parse(s.head.slice(0, s.head.indexOf('\n')));
    expect(first).toMatchObject({ session: 'huge', round: 1, kind: 'repeated_batch' });
    const last = JSON.parse(s.tail.trimEnd().split('\n').at(-1)!);
    expect(last).toMatchObject({ session: 'small-29', round: 4 });
  }, TIMEOUT);

  it('junit: one line per entry inside its testcase, in pieces', async () => {
    const s = await scan('junit');
    expect(s.longest).toBeLessThan(MAX_CHUNK);
    expect(s.newlines).toBeGreaterThan(ENTRIES);
    expect(s.head).toContain('<testsuites name="loopledger" tests="31" failures="16" errors="0">');
    expect(s.tail.endsWith('</testsuites>\n')).toBe(true);
  }, TIMEOUT);

  it(`sarif: at most ${SARIF_MAX_RESULTS.toLocaleString('en-US')} results, the strongest first, the rest counted in the run's properties`, async () => {
    const s = await scan('sarif');
    expect(s.longest).toBeLessThan(MAX_CHUNK);
    const log = JSON.parse(await collect(reportChunks(big, 'sarif', opts())));
    const run = log.runs[0];
    expect(run.results).toHaveLength(SARIF_MAX_RESULTS);
    const count = (l: EnforceLevel) => big.sessions.reduce((n, x) => n + x.entries.filter((e) => e.intervention.enforce === l).length, 0);
    const stops = count('stop');
    const steers = count('steer');
    // Every error, then every warning, then notes up to the limit; none of the "none" results.
    const levels = run.results.map((r: { level: string }) => r.level);
    expect(levels.slice(0, stops).every((l: string) => l === 'error')).toBe(true);
    expect(levels.slice(stops, stops + steers).every((l: string) => l === 'warning')).toBe(true);
    expect(levels.slice(stops + steers).every((l: string) => l === 'note')).toBe(true);
    expect(run.properties).toEqual({
      resultsTotal: ENTRIES,
      resultsOmitted: ENTRIES - SARIF_MAX_RESULTS,
      resultsLimit: SARIF_MAX_RESULTS,
      resultsByLevel: { error: stops, warning: steers, note: count('noted'), none: count('none') },
      resultsOmittedByLevel: { error: 0, warning: 0, note: count('noted') - (SARIF_MAX_RESULTS - stops - steers), none: count('none') },
    });
  }, TIMEOUT);

  it('html: a page of a few MB at most, in pieces; the huge session drawn in bounded marks, the rest counted', async () => {
    const s = await scan('html', { top: undefined });
    expect(s.longest).toBeLessThan(MAX_CHUNK);
    expect(s.bytes).toBeLessThan(HTML_TIMELINE_BUDGET + 1024 * 1024);
    expect(s.head.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(s.tail.endsWith('</html>\n')).toBe(true);
    expect(s.tail).toContain('</footer>');
  }, TIMEOUT);

  it(`github: at most ${ANNOTATIONS_PER_LEVEL} annotations per level, the rest counted in one line`, async () => {
    const out = await collect(reportChunks(big, 'github', opts()));
    const lines = out.trimEnd().split('\n');
    for (const c of ['error', 'warning', 'notice']) expect(lines.filter((l) => l.startsWith(`::${c} `))).toHaveLength(ANNOTATIONS_PER_LEVEL);
    expect(lines).toHaveLength(3 * ANNOTATIONS_PER_LEVEL + 2);
    expect(lines.at(-2)).toMatch(/^loopledger: [\d,]+ errors, [\d,]+ warnings, [\d,]+ notices more not annotated/);
  }, TIMEOUT);
});
