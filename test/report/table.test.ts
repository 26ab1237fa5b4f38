import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { calm, entry, looping, mixedReport, report, session, steering, subAgent } from './fixtures.js';
import { lineWidths, opts } from './helpers.js';

const table = (r = mixedReport(), over = {}) => renderReport(r, 'table', opts(over));

describe('table', () => {
  it('shows per session a header and per entry the three modes side by side', async () => {
    const out = await table(mixedReport(), { width: 160 });
    expect(out).toContain('runs/loop.jsonl  claude-code · claude-sonnet-4-5');
    expect(out).toContain('session loop-1/agent-a · sub-agent of loop-1');
    expect(out).toContain('3 turns · 14 rounds · 21 tool calls · enforce: stop at turn 2 round 7');
    // Off runs nothing: its column would say none on every row, so it is left out and the legend says so.
    expect(out).toMatch(/│ turn │ round │ detector\s+│ kind\s+│ confidence │ repeats\s+│ Telemetry │ Enforce │/);
    expect(out).toContain('Off (not shown) runs nothing: every finding would be none');
    // SPEC 0.4: "The table collapses a run of the same finding of one session into one row (`rounds`
    // first–last, `count`)", with the level it reached and where; `--all` lists every entry.
    expect(out).toMatch(/│\s+2 │\s+6–8\* │ tool_batch │ repeated_batch ×3\s+│\s+│ 1–3× \(max 2\)\s+│ noted\s+│ stop r7\s+│/);
    const all = await table(mixedReport(), { width: 160, all: true });
    expect(all).toMatch(/│\s+2 │\s+7 │ tool_batch │ repeated_batch\s+│\s+1\.00 │ 2× \(max 2\)\s+│ noted\s+│ stop\s+│/);
    // after_stop rows are marked and the mark explained.
    expect(all).toMatch(/│\s+8\* │/);
    expect(out).toContain('* after a stop');
    expect(out).toContain('no findings');
    expect(out).toContain('runs/zz-broken.bin: binary file');
    expect(out).toContain('runs/loop.jsonl: 1 skipped line (line 12: invalid JSON)');
    expect(out.split('\n')).toContain('4 sessions · 5 findings · enforce would stop 1 session, steer 1 · 1 skipped line');
  });

  it('has no colour codes when color is false, and level colours when true', async () => {
    const plain = await table(mixedReport(), { color: false });
    expect(plain).not.toContain('\x1b');
    const coloured = await table(mixedReport(), { color: true });
    expect(coloured).toContain('\x1b[31m'); // stop red
    expect(coloured).toContain('\x1b[33m'); // steer yellow
    expect(coloured).toContain('\x1b[2m'); // noted dim
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).toBe(plain);
  });

  for (const width of [40, 60, 80, 100, 120, 160]) {
    it(`fits a width of ${width}`, async () => {
      for (const over of [{}, { explain: true, excerpts: true, verbose: true }]) {
        const out = await table(mixedReport(), { width, ...over });
        const widths = lineWidths(out);
        expect(Math.max(...widths), out).toBeLessThanOrEqual(width);
      }
    });
  }

  it('keeps the table at 80 by abbreviating, and the full headers at 160', async () => {
    const narrow = await table(mixedReport(), { width: 80 });
    expect(narrow).toMatch(/│\s+t\.r │/);
    expect(narrow).toContain('Tel.');
    const wide = await table(mixedReport(), { width: 160 });
    expect(wide).toContain('Telemetry');
    expect(wide).toContain('thinking_stagnation');
  });

  it('shortens a long kind before giving up on the table', async () => {
    const r = report([session({ entries: [entry({ kind: 'a_very_long_kind_name_that_no_detector_uses_today' })] })]);
    const out = await table(r, { width: 70 });
    expect(out).toContain('┌');
    expect(out).toContain('…');
    expect(Math.max(...lineWidths(out))).toBeLessThanOrEqual(70);
  });

  it('falls back to one line per entry when no table fits', async () => {
    const out = await table(mixedReport(), { width: 40 });
    expect(out).not.toContain('┌');
    expect(out).toContain('t2 r6–8* tool_batch/repeated_batch ×3');
    expect(await table(mixedReport(), { width: 40, all: true })).toContain('t2 r7 tool_batch/repeated_batch');
  });

  it('marks the configured mode', async () => {
    const out = await table(mixedReport(), { width: 160, mode: 'enforce' });
    expect(out).toContain('[Enforce]');
    expect(out).toContain('[ ] marks the configured mode (enforce)');
  });

  it('quiet keeps only sessions with entries', async () => {
    const out = await table(mixedReport(), { quiet: true });
    expect(out).not.toContain('calm-3');
    expect(out).toContain('loop-1');
  });

  it('verbose adds every round verdict and the near misses', async () => {
    const quiet = await table(mixedReport(), { width: 120 });
    expect(quiet).not.toContain('near miss');
    const out = await table(mixedReport(), { width: 120, verbose: true });
    expect(out).toContain('t1 r1 (line 3): enforce none');
    expect(out).toContain('near miss output/near_repetition similarity 0.81 (fires at >= 0.85, margin -0.04)');
  });

  it('explain shows the thresholds crossed and how far past the line; excerpts only on request', async () => {
    const plain = await table(mixedReport(), { width: 120 });
    expect(plain).not.toContain('read_file');
    const out = await table(mixedReport(), { width: 120, explain: true });
    expect(out).toContain('tool_batch/repeated_batch strikes 2 (fires at >= 2, margin +0)');
    expect(out).toContain('evidence: batch_size=2 repeats=2');
    expect(out).toContain('turn ends: loop_detected');
    expect(out).not.toContain('read_file');
    const ex = await table(mixedReport(), { width: 120, excerpts: true });
    expect(ex).toContain('excerpt: "read_file {"path":"src/a.ts"}"');
  });

  it('says so when there is nothing to show', async () => {
    expect(await table(report([]))).toContain('no sessions found');
    expect(await table(report([calm]), { quiet: true })).toContain('no findings');
  });

  it('renders each session of a mixed report once', async () => {
    const out = await table(report([calm, steering, looping, subAgent]), { width: 160 });
    expect(out.match(/^session /gm)).toHaveLength(4);
  });
});
