// The ledger table draws its own boxes (cli-table3 took about a millisecond per row). They must be
// the very boxes cli-table3 drew before, in its compact style: cli-table3 is the oracle here.

import Table from 'cli-table3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boxRow, rule, RULES } from '../../src/report/table.js';

function oracle(head: string[], rows: string[][], widths: number[], aligns: ('left' | 'right')[]): string {
  const t = new Table({ head, colAligns: aligns, style: { head: [], border: [], compact: true }, colWidths: widths.map((w) => w + 2) });
  t.push(...rows);
  return t.toString();
}

function ours(head: string[], rows: string[][], widths: number[], aligns: ('left' | 'right')[]): string {
  return [rule(widths, RULES.top), boxRow(head, widths, aligns), rule(widths, RULES.head), ...rows.map((r) => boxRow(r, widths, aligns)), rule(widths, RULES.bottom)].join('\n');
}

describe('box drawing', () => {
  it('property: the same text as cli-table3 (compact, fixed widths), cell for cell', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'b', 'Z', '1', ' ', '.', '/', '×', '-', '*'), maxLength: 12 }).map((s) => s.trim());
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((n) =>
          fc.record({
            head: fc.array(cell.filter((s) => s.length > 0), { minLength: n, maxLength: n }),
            // A session's table always has at least one entry (cli-table3 drops the head rule of an empty table).
            rows: fc.array(fc.array(cell, { minLength: n, maxLength: n }), { minLength: 1, maxLength: 8 }),
            aligns: fc.array(fc.constantFrom('left' as const, 'right' as const), { minLength: n, maxLength: n }),
            extra: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: n, maxLength: n }),
          }),
        ),
        ({ head, rows, aligns, extra }) => {
          const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)) + extra[i]!);
          expect(ours(head, rows, widths, aligns)).toBe(oracle(head, rows, widths, aligns));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('colour codes do not count toward a cell\'s width', () => {
    expect(boxRow(['\x1b[31mstop\x1b[39m', 'x'], [6, 1], ['left', 'right'])).toBe('│ \x1b[31mstop\x1b[39m   │ x │');
  });
});
