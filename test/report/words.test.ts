// The first screen speaks plainly: each tool-batch entry names its tool(s), and the strike count
// reads the way a person says it ("3× (max 2)", not "3/2"), with a legend.

import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { fmtStrike, strikeLegend, strikePhrase } from '../../src/report/text.js';
import { entry, report, session } from './fixtures.js';
import { lineWidths, opts } from './helpers.js';

const lv = (enforce: 'noted' | 'steer' | 'stop') => ({ off: 'none' as const, telemetry: 'noted' as const, enforce });
const strike = (count: number, total: number, over = {}) => ({ count, threshold: 2, total, ceiling: 15, read_only: false, ...over });

const toolsReport = () =>
  report([
    session({
      id: 'tools',
      entries: [
        entry({ round: 3, strike: strike(2, 2), evidence: { signature: 'ab12', tools: 'Bash' } }),
        entry({ round: 4, strike: strike(3, 3), evidence: { tools: 'Read,mcp__github__get_pull_request' }, intervention: lv('stop') }),
        entry({ round: 9, kind: 'tool_cycle', evidence: { tools: 'Read>Edit' } }),
        entry({ round: 11, detector: 'output', kind: 'exact_block', confidence: 0.9, evidence: { tools: 'not a tool list' } }),
      ],
    }),
  ]);

describe('tools in the ledger', () => {
  it('each tool-batch entry names its tool(s); other detectors leave the cell empty', async () => {
    const out = await renderReport(toolsReport(), 'table', opts({ width: 200 }));
    expect(out).toMatch(/│ kind\s+│ tools\s+│/);
    expect(out).toMatch(/│ repeated_batch\s+│ Bash\s+│/);
    expect(out).toMatch(/│ repeated_batch\s+│ Read,mcp__github__get_pull_request │/);
    expect(out).toMatch(/│ tool_cycle\s+│ Read>Edit\s+│/);
    expect(out).toMatch(/│ exact_block\s+│\s+│/);
    expect(out).not.toContain('not a tool list');
  });

  it('no tools column when no entry names one', async () => {
    const r = report([session({ entries: [entry({ detector: 'output', kind: 'exact_block' })] })]);
    expect(await renderReport(r, 'table', opts({ width: 200 }))).not.toContain('tools');
  });

  // Issue 56 item 2: the row "names what was repeated": on a narrow terminal the kind (named in the
  // legend and the overview) gives way before the call does.
  it('narrow: the kind is cut before what was repeated is, and the table still fits', async () => {
    let tables = 0;
    for (const width of [60, 70, 80]) {
      const out = await renderReport(toolsReport(), 'table', opts({ width }));
      expect(Math.max(...lineWidths(out))).toBeLessThanOrEqual(width);
      if (out.includes('┌')) {
        tables += 1;
        expect(out).toMatch(/│ repe[^│ ]*… │/);
        expect(out).toMatch(width >= 80 ? /│ Read,mcp__github__get/ : /│ Read,mcp__/);
      }
    }
    expect(tables).toBeGreaterThan(0);
  });

  it('the one-line-per-entry layout names the tools too', async () => {
    const out = await renderReport(toolsReport(), 'table', opts({ width: 40 }));
    expect(out).toContain('tool_batch/repeated_batch Bash');
  });

  it('markdown names them in a tools column', async () => {
    const out = await renderReport(toolsReport(), 'markdown', opts());
    expect(out).toContain('| turn | round | line | detector | kind | tools | confidence | repeats |');
    expect(out).toContain('| tool\\_batch | repeated\\_batch | Bash |');
  });
});

describe('repeats in words', () => {
  it('"3× (max 2)": the same batch and answers three times in a row, two allowed', () => {
    expect(fmtStrike(strike(3, 3), 'repeated_batch')).toBe('3× (max 2)');
    // The run against the ceiling is shown only when it says more than the count.
    expect(fmtStrike(strike(1, 16), 'ceiling')).toBe('1× (max 2), run 16× (max 15)');
    expect(fmtStrike(strike(2, 5), 'repeated_batch')).toBe('2× (max 2), run 5× (max 15)');
    expect(fmtStrike({ count: 4, threshold: 15, total: 4, ceiling: null, read_only: true }, 'repeated_batch')).toBe('4× (max 15) read-only');
    expect(fmtStrike({ count: 4, threshold: 15, total: 4, ceiling: null, read_only: true }, 'repeated_batch', true)).toBe('4× (max 15) ro');
    expect(fmtStrike(null)).toBe('');
    expect(strikePhrase(strike(3, 3))).toBe('same batch and answers 3 in a row (max 2)');
    expect(strikePhrase(strike(1, 16), 'ceiling')).toBe(
      'same batch and answers 1 in a row (max 2), 16 in the run whatever the answers (ceiling 15)',
    );
  });

  it('the table reads "repeats" and explains it in a legend line, with only the parts it shows', async () => {
    const out = (await renderReport(toolsReport(), 'table', opts({ width: 160 }))).replace(/\n {2}/g, ' ');
    expect(out).toMatch(/│ repeats\s+│/);
    expect(out).toMatch(/│ 3× \(max 2\)\s+│/);
    expect(out).not.toMatch(/\d\/\d/);
    expect(out).toContain('repeats: 3× (max 2) = the same tool batch got the same answers 3 times in a row, and Enforce allows 2');
    expect(out).not.toContain('against the ceiling');
    const ceiling = report([session({ entries: [entry({ kind: 'ceiling', strike: strike(1, 16), intervention: lv('stop') })] })]);
    // The legend wraps like any line; read it unwrapped.
    const withCeiling = (await renderReport(ceiling, 'table', opts({ width: 160 }))).replace(/\n {2}/g, ' ');
    expect(withCeiling).toContain('run 16× (max 15)');
    expect(withCeiling).toContain('16 times in a row whatever the answers, against the ceiling');
    expect(strikeLegend({ run: true, readOnly: true })).toContain('read-only (ro)');
    // No strikes, no legend.
    const none = report([session({ entries: [entry({ detector: 'output', kind: 'exact_block' })] })]);
    expect(await renderReport(none, 'table', opts())).not.toContain('repeats:');
  });

  it('CI messages say it in a sentence', async () => {
    const r = toolsReport();
    expect(await renderReport(r, 'github', opts())).toContain('same batch and answers 3 in a row (max 2)');
    const sarif = JSON.parse(await renderReport(r, 'sarif', opts()));
    expect(sarif.runs[0].results[0].message.text).toContain('same batch and answers 3 in a row (max 2)');
    expect(await renderReport(r, 'junit', opts())).toContain('same batch and answers 2 in a row (max 2)');
  });
});
