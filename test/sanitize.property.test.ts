// Issue 12: one sanitizer for every human output. Whatever unsafe characters untrusted text
// carries (a transcript's ids, paths, models, kinds, evidence, excerpts, skip reasons; a config
// value; a label name), no path of the table (with its overview), markdown, github, junit, html,
// `config` or `sweep` output lets one through raw.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLabels } from '../src/calibrate/labels.js';
import { parseParam } from '../src/calibrate/param.js';
import { sweep } from '../src/calibrate/sweep.js';
import { renderConfig } from '../src/commands/config.js';
import { renderSweep } from '../src/commands/sweep.js';
import { loadConfig } from '../src/config/load.js';
import type { ConfigKeySpec } from '../src/config/spec.js';
import type { LedgerReport } from '../src/ledger/types.js';
import { renderReport } from '../src/report/index.js';
import { session as sweepSession } from './calibrate/helpers.js';
import { entry, report, session } from './report/fixtures.js';
import { opts } from './report/helpers.js';

// Spelled out here rather than imported: C0 (tab and newline are the outputs' own layout, so they
// are checked inside fields instead), DEL, C1, bidi marks/overrides/isolates, line and paragraph
// separators, zero-width characters, lone surrogates.
const RAW_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\ud800-\udfff]/u;

const UNSAFE_CHARS = [
  '\x00', '\x07', '\x08', '\t', '\n', '\x0b', '\x0c', '\r', '\x1b', '\x7f', '\x85', '\x9b', '\x9d',
  '\u061c', '\u200b', '\u200e', '\u200f', '\u2028', '\u2029', '\u202a', '\u202e', '\u2060', '\u2064', '\u2066', '\u2069', '\ufeff',
  '\ud800', '\udfff',
];

/** Text with unsafe characters and the escape-sequence bodies they introduce, never empty. */
const hostile = fc
  .array(fc.oneof(fc.constantFrom(...UNSAFE_CHARS), fc.constantFrom('[31m', ']0;t', 'a', 'B', ' ', '-', '日', '🦀', '\\')), { minLength: 1, maxLength: 12 })
  .map((parts) => `x${parts.join('')}`);

function ledger(t: string[]): LedgerReport {
  const at = (i: number) => t[i % t.length]!;
  const sessions = Array.from({ length: 3 }, (_, i) =>
    session({
      id: `${at(i)}-${i}`,
      path: `runs/${at(i + 1)}.jsonl`,
      model: at(i + 2),
      project: at(i + 3),
      parent: i === 2 ? at(i + 4) : null,
      agent_type: at(i + 5),
      entries: [
        entry({
          kind: at(i + 6),
          evidence: { tool: at(i + 7), [at(i + 8)]: 1 },
          intervention: { off: 'none', telemetry: 'noted', enforce: i === 0 ? 'stop' : 'steer' },
          excerpts: [at(i + 9)],
          explain: [{ detector: 'tool_batch', kind: at(i + 10), statistic: at(i + 11), value: 3, threshold: 2, direction: 'above' }],
          reminder: at(i + 12),
          finalization_reason: at(i + 13),
        }),
      ],
      outcome: { enforce: { steers: i === 0 ? 0 : 1, stops: i === 0 ? [{ turn: 1, round: 1 }] : [] } },
      verdicts: [
        {
          turn: 1, round: 1, line: 5, enforce: 'stop', after_stop: false,
          near_misses: [{ detector: 'output', kind: at(i + 14), statistic: at(i + 15), value: 0.8, threshold: 0.85, direction: 'above' }],
        },
      ],
    }),
  );
  const r = report(sessions);
  r.inputs[0]!.skipped.push({ line: 3, reason: at(16) });
  r.inputs[0]!.skipped_lines += 1;
  r.inputs.push({ path: `runs/${at(17)}`, format: null, sessions: 0, lines: 0, skipped: [], skipped_lines: 0, error: at(18) });
  return r;
}

function expectClean(out: string, what: string): void {
  expect(out, what).not.toMatch(RAW_UNSAFE);
}

describe('no human output lets an unsafe character through', () => {
  it('table (with the overview), markdown, github, junit, html', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostile, { minLength: 1, maxLength: 19 }), fc.constantFrom(40, 80, 160), async (t, width) => {
        const r = ledger(t);
        for (const format of ['table', 'markdown', 'github', 'junit', 'html'] as const) {
          for (const top of [1, 10]) {
            const out = await renderReport(r, format, opts({ explain: true, excerpts: true, verbose: true, color: false, width, top }));
            expectClean(out, `${format} top ${top} width ${width}`);
            // A field's own tab or line break would break its row: only the layout's survive.
            if (format === 'table' || format === 'markdown') expect(out, format).not.toContain('\t');
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('config: values from --set, in the table at any width, with and without reasons', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostile, fc.constantFrom(30, 60, 160), fc.boolean(), async (a, b, width, verbose) => {
        const loaded = await loadConfig({
          sets: [`judge.endpoint=${a}`, `judge.model=${b}`, `tool_batch.observation_tools=${a},${b}`, `ladder.capped_kinds=${b}`],
        });
        const out = renderConfig(loaded, { format: 'table', color: false, width, verbose });
        expectClean(out, `config width ${width}`);
        expect(out).not.toContain('\t');
      }),
      { numRuns: 100 },
    );
  });

  it('sweep: a swept key and label names', async () => {
    await fc.assert(
      fc.asyncProperty(hostile.map((s) => `${s.replace(/[=,:]/g, '')}x`), hostile, async (key, label) => {
        const specs: readonly ConfigKeySpec[] = [{ key, type: 'integer', default: 2, min: 0, reason: 'test' }];
        const analyze = async () => [sweepSession('loop', [{ round: 2, enforce: 'stop' }], { rounds: 4 })];
        const result = await sweep({
          params: [parseParam(`${key}=1:2:1`, specs)],
          baseValues: {},
          analyze,
          labels: parseLabels({ loop: 'loop', [label]: 'clean' }),
          maxFpr: 1,
        });
        const out = renderSweep(result, { format: 'table', color: false });
        expectClean(out, 'sweep');
        expect(out).not.toContain('\t');
      }),
      { numRuns: 100 },
    );
  });
});
