// What a stop would cut (SPEC 0.3): "rounds a stop would have prevented after the agent had already
// recovered (new calls, new answers, successful changes); `saved` keeps only the rounds still in
// the loop". The issue's shape, in two formats, through the built binary; the split's two laws as
// fast-check properties through the library's LedgerBuilder with the real detectors.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfigValues } from '../../src/config/registry.js';
import { LedgerBuilder } from '../../src/ledger/build.js';
import { createDetectorFactories } from '../../src/ledger/detectors.js';
import type { LedgerReport, SessionLedger } from '../../src/ledger/types.js';
import type { Round, ToolAnswer, ToolCall } from '../../src/model/transcript.js';
import { ensureBuilt, runCli } from '../cli/helpers.js';

const RECOVER_CC = 'fixtures/calibration/claude-code/loop-recover-cat-n.jsonl';
const RECOVER_CANON = 'fixtures/calibration/canonical/loop-recover-read-file.jsonl';
const SIX_READS = 'fixtures/calibration/claude-code/loop-six-reads.jsonl';

async function ledger(args: string[]): Promise<LedgerReport> {
  const r = await runCli([...args, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as LedgerReport;
}

beforeAll(() => ensureBuilt());

describe('issue 28 item 4: three identical Reads answered "File unchanged", then `cat -n` and 25 rounds of good work', () => {
  it('Claude Code: stopped at round 4 (the third identical Read); the agent recovered at round 5, so all 26 prevented rounds are cut, none saved', async () => {
    const s = (await ledger([RECOVER_CC])).sessions[0]!;
    expect(s.rounds).toBe(30);
    expect(s.outcome.enforce.stops).toEqual([{ turn: 1, round: 4, recovered_at: 5 }]);
    // By hand: round k bills 8 input + 200 cache writes + (9000 + 300k) cache reads + 60 output
    // = 9268 + 300k tokens; rounds 5..30 are 26 × 9268 + 300 × (5 + … + 30) = 240,968 + 136,500.
    expect(s.outcome.enforce.cut).toMatchObject({ rounds: 26, tokens: 377_468 });
    expect(s.outcome.enforce.cut!.usd).toBeGreaterThan(0);
    expect(s.outcome.enforce.saved).toEqual({ rounds: 0, tokens: 0, usd: 0 });
  });

  it('canonical (Gemini CLI tool names): the same split', async () => {
    const s = (await ledger([RECOVER_CANON])).sessions[0]!;
    expect(s.outcome.enforce.stops).toEqual([{ turn: 1, round: 4, recovered_at: 5 }]);
    // Round k: 2000 + 120k input + 50 output; rounds 5..30: 26 × 2050 + 120 × 455.
    expect(s.outcome.enforce.cut).toEqual({ rounds: 26, tokens: 107_900, usd: null });
    expect(s.outcome.enforce.saved).toEqual({ rounds: 0, tokens: 0, usd: 0 });
  });

  it('a loop that never recovers (the same Read six times, then a closing line): everything prevented is saved, nothing cut', async () => {
    const s = (await ledger([SIX_READS])).sessions[0]!;
    expect(s.outcome.enforce.stops).toEqual([{ turn: 1, round: 4 }]);
    // Rounds 5..8: 4 × 9268 + 300 × 26.
    expect(s.outcome.enforce.saved).toMatchObject({ rounds: 4, tokens: 44_872 });
    expect(s.outcome.enforce.cut).toEqual({ rounds: 0, tokens: 0, usd: 0 });
  });

  it('summary.enforce adds both up with the sessions they come from; the table footer says "saved … in N sessions and cut M rounds of new work in K"', async () => {
    const args = [RECOVER_CC, RECOVER_CANON, SIX_READS];
    const r = await ledger(args);
    expect(r.summary.enforce.cut).toMatchObject({ rounds: 52, tokens: 377_468 + 107_900, sessions: 2, unpriced_sessions: 1 });
    expect(r.summary.enforce.saved).toMatchObject({ rounds: 4, tokens: 44_872, sessions: 1 });
    const table = await runCli(args, { env: { COLUMNS: '200' } });
    expect(table.stdout).toMatch(/Enforce would have stopped 3 sessions, saved about \$[\d.]+ in 1 session \(44\.9k tokens in 4 rounds\) and cut 52 rounds of new work in 2\n/);
    // Each session says its own.
    expect(table.stdout).toContain('Enforce would have saved nothing and cut 26 rounds of new work, 377k tokens ≈ $0.15');
  });

  it('markdown: a cut column beside saved, and the same footer', async () => {
    const md = await runCli([RECOVER_CC, SIX_READS, '--format', 'markdown']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('| Enforce would save | Enforce would cut |\n');
    expect(md.stdout).toContain('| 0 | \\$0.15 · 26 rounds |\n');
    expect(md.stdout).toMatch(/and cut 26 rounds of new work in 1\./);
  });

  it('html: the cut rounds get a shade of their own (class cut), titled with the recovery round', async () => {
    const html = await runCli([RECOVER_CC, '--format', 'html']);
    expect(html.code).toBe(0);
    expect(html.stdout).toMatch(/<rect class="cut" [^>]*><title>rounds 5–30: the agent had recovered at round 5; Enforce would have cut 26 rounds of new work/);
    // Nothing saved: no saved shade for this stop.
    expect(html.stdout).not.toMatch(/<rect class="saved" [^>]*><title>/);
  });
});

// --- properties -----------------------------------------------------------------------------

const LOOP: ToolCall = { id: null, name: 'Bash', arguments: { command: 'npm test' } };
const LOOP_ERROR: ToolAnswer = { content: 'Error: 3 tests failed in src/parser.test.ts', isError: true };
const SEEN_READ: ToolCall = { id: null, name: 'Read', arguments: { file_path: 'src/parser.ts' } };
const SEEN_TEXT = 'export function parse() {}\n';

interface Step {
  calls: ToolCall[];
  answers: ToolAnswer[];
  text: string;
}

/** A step that shows nothing new: the loop again, a read answered as before, a failure seen before, or prose. */
const staleStep: fc.Arbitrary<Step> = fc.constantFrom<Step>(
  { calls: [LOOP], answers: [LOOP_ERROR], text: '' },
  { calls: [SEEN_READ], answers: [{ content: SEEN_TEXT, isError: false }], text: '' },
  // Another read with the answer already seen: a read that learns nothing, whatever its arguments.
  { calls: [{ id: null, name: 'Read', arguments: { file_path: 'src/parser.ts', offset: 1 } }], answers: [{ content: SEEN_TEXT, isError: false }], text: '' },
  // The same failure from drifting arguments (issue 28: an edit re-sent slightly differently).
  { calls: [{ id: null, name: 'Bash', arguments: { command: 'npm test -- --bail' } }], answers: [LOOP_ERROR], text: '' },
  { calls: [], answers: [], text: 'Let me look at this again.' },
);

const newRead = (name: string): Step => ({ calls: [{ id: null, name: 'Read', arguments: { file_path: `src/${name}.ts` } }], answers: [{ content: `export const ${name} = 1;\n`, isError: false }], text: '' });

/** Any step: stale ones, and new work (a new file read, an edit that lands, a new error). */
const anyStep: fc.Arbitrary<Step> = fc.oneof(
  staleStep,
  fc.integer({ min: 0, max: 5 }).map((i) => ({ calls: [{ id: null, name: 'Read', arguments: { file_path: `src/new${i}.ts` } }], answers: [{ content: `export const v${i} = ${i};\n`, isError: false }], text: '' })),
  fc.integer({ min: 0, max: 5 }).map((i) => ({ calls: [{ id: null, name: 'Edit', arguments: { file_path: 'src/parser.ts', new_string: `v${i}` } }], answers: [{ content: 'The file src/parser.ts has been updated.', isError: false }], text: '' })),
  fc.integer({ min: 0, max: 5 }).map((i) => ({ calls: [LOOP], answers: [{ content: `Error: ${i} tests failed`, isError: true }], text: '' })),
);

/** One session: a warm-up of distinct writes, the loop three times (refused at the third), then `tail`, all in turn 1; `after` in turn 2. */
function play(tail: readonly Step[], after: readonly Step[]): SessionLedger {
  const builder = new LedgerBuilder({ config: defaultConfigValues(), factories: createDetectorFactories() });
  builder.session({ id: 's', path: 'p.jsonl', format: 'canonical', parent: null });
  let index = 0;
  const round = (turn: number, s: Step) => {
    index += 1;
    const r: Round = { turn, index, line: null, text: s.text, thinking: [], calls: s.calls, answers: s.answers, usage: { inputTokens: 1000 + index, outputTokens: 10, reasoningTokens: null }, model: null, timestamp: null };
    builder.round('s', r);
  };
  builder.turn('s', 1);
  round(1, { calls: [SEEN_READ], answers: [{ content: SEEN_TEXT, isError: false }], text: '' });
  for (let i = 0; i < 3; i++) round(1, { calls: [LOOP], answers: [LOOP_ERROR], text: '' });
  for (const s of tail) round(1, s);
  builder.turn('s', 2);
  for (const s of after) round(2, s);
  builder.end('s');
  return builder.sessions()[0]!;
}

const tokensOf = (from: number, to: number) => {
  let t = 0;
  for (let i = from; i <= to; i++) t += 1000 + i + 10;
  return t;
};

describe('the split, as properties', () => {
  it('saved + cut = the rounds the stop prevents (and their tokens), whatever follows; the next turn is neither', () => {
    fc.assert(
      // The next turn reads new files only (it must not stop itself: its rounds are its own turn's).
      fc.property(fc.array(anyStep, { maxLength: 30 }), fc.integer({ min: 0, max: 5 }).map((n) => Array.from({ length: n }, (_, i) => newRead(`later${i}`))), (tail, after) => {
        const s = play(tail, after);
        const { stops, saved, cut } = s.outcome.enforce;
        expect(stops).toHaveLength(1);
        expect(stops[0]).toMatchObject({ turn: 1, round: 4 });
        expect(saved!.rounds + cut!.rounds).toBe(tail.length);
        expect((saved!.tokens ?? 0) + (cut!.tokens ?? 0)).toBe(tokensOf(5, 4 + tail.length));
        // The cut is the tail from the recovery on.
        const at = stops[0]!.recovered_at;
        if (cut!.rounds === 0) expect(at).toBeUndefined();
        else expect(at).toBe(4 + tail.length - cut!.rounds + 1);
      }),
      { numRuns: 300 },
    );
  });

  it('cut is 0 when the loop never recovers: only the loop again, reads and failures already seen, and prose', () => {
    fc.assert(
      fc.property(fc.array(staleStep, { minLength: 1, maxLength: 30 }), (tail) => {
        const s = play(tail, []);
        expect(s.outcome.enforce.cut).toEqual({ rounds: 0, tokens: 0, usd: 0 });
        expect(s.outcome.enforce.saved!.rounds).toBe(tail.length);
        expect(s.outcome.enforce.stops[0]!.recovered_at).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
