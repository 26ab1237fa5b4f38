// Issue 56 item 2: "The tool batch's row names what was repeated (tool and a short, sanitized
// argument)". For any command a transcript may hold (controls, escapes, bidi, megabyte tails), a
// repeated batch's table row starts with its tool, carries no raw control character, and every
// line fits the terminal; the JSON keeps the call short.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfigValues } from '../../src/config/registry.js';
import { LedgerBuilder } from '../../src/ledger/build.js';
import { createDetectorFactories } from '../../src/ledger/detectors.js';
import { assembleReport } from '../../src/ledger/summary.js';
import type { Round } from '../../src/model/transcript.js';
import { renderReport } from '../../src/index.js';
import { displayWidth } from '../../src/report/text.js';
import { opts } from './helpers.js';

/** A session that runs the same command four times with the same answer (a repeated batch). */
function looping(command: string) {
  const b = new LedgerBuilder({ config: defaultConfigValues(), factories: createDetectorFactories() });
  b.session({ id: 's', path: 's.jsonl', format: 'canonical', parent: null });
  b.turn('s', 1, null);
  for (let index = 1; index <= 4; index++) {
    const round: Round = {
      turn: 1,
      index,
      line: index,
      text: '',
      thinking: [],
      calls: [{ id: `c${index}`, name: 'Bash', arguments: { command } }],
      answers: [{ content: 'same answer', isError: false }],
      usage: null,
      model: null,
      timestamp: null,
    };
    b.round('s', round);
  }
  b.end('s');
  return assembleReport({ version: '0.1.0', config: defaultConfigValues(), inputs: [], sessions: b.sessions() });
}

const command = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.tuple(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.nat({ max: 20_000 })).map(([head, n]) => head + 'y'.repeat(n)),
  fc.array(fc.constantFrom('ls', '-la', '/home/alex/projects/webapp/src', '\u001b]0;x\u0007', '\u009b31m', '\u202e', '\r', '\n', 'a/b', '"q q"'), { maxLength: 8 }).map((w) => w.join(' ')),
);

describe('a repeated call in the table, for any command', () => {
  it('names the tool, shows nothing raw, stays within the width; the JSON call stays short', async () => {
    await fc.assert(
      fc.asyncProperty(command, fc.constantFrom(60, 80, 160), async (cmd, width) => {
        const report = looping(cmd);
        const entry = report.sessions[0]!.entries.find((e) => e.kind === 'repeated_batch');
        expect(entry).toBeDefined();
        expect([...(entry!.call ?? '')].length).toBeLessThanOrEqual(4 + 2 + 40);
        const out = await renderReport(report, 'table', opts({ width, color: false }));
        // Display columns: a combining mark takes none.
        for (const line of out.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(width);
        expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        if (out.includes('┌')) expect(out).toMatch(/│ Bash/);
        else expect(out).toContain('tool_batch/repeated_batch');
      }),
      { numRuns: 150 },
    );
  });
});
