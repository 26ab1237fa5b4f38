// SPEC (Bad input): "Zero-width characters (U+200B–U+200F, U+2060–U+2064, U+FEFF) are neutralized
// like bidi controls, in every human format and table (`config`, `sweep` included)." Two session
// ids that differ only by a zero-width space must not print as the same id.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { sanitize } from '../../src/sanitize.js';
import { canonical, ensureBuilt, repeat, runCli, scratch } from '../cli/helpers.js';
import { entry, report, session } from './fixtures.js';
import { opts } from './helpers.js';

const ZERO_WIDTH = ['\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u2060', '\u2061', '\u2062', '\u2063', '\u2064', '\ufeff'];
const RAW = /[\u200b-\u200f\u2060-\u2064\ufeff]/;
const HIDDEN = ZERO_WIDTH.join('x');

describe('the sanitizer neutralizes zero-width characters', () => {
  it.each(ZERO_WIDTH.map((ch) => [ch.charCodeAt(0).toString(16).padStart(4, '0'), ch] as const))('U+%s becomes a visible escape', (hex, ch) => {
    expect(sanitize(`a${ch}b`)).toBe(`a\\u${hex}b`);
    expect(sanitize(`a${ch}b`, { multiline: true })).toBe(`a\\u${hex}b`);
    expect(sanitize(`a${ch}b`, { max: 10 })).toBe(`a\\u${hex}b`);
  });
});

describe('reports', () => {
  const hostile = () =>
    report([
      session({
        id: `admin${HIDDEN}`,
        path: `runs/a${HIDDEN}.jsonl`,
        model: `m${HIDDEN}`,
        entries: [
          entry({
            kind: `k${HIDDEN}`,
            evidence: { tool: `Bash${HIDDEN}` },
            intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' },
            excerpts: [`x${HIDDEN}`],
            reminder: `r${HIDDEN}`,
          }),
        ],
        outcome: { enforce: { steers: 0, stops: [{ turn: 1, round: 1 }] } },
      }),
    ]);
  for (const format of ['table', 'markdown', 'github', 'junit'] as const) {
    it(`${format}: no raw zero-width character`, async () => {
      const out = await renderReport(hostile(), format, opts({ explain: true, excerpts: true, verbose: true, color: false, width: 120 }));
      expect(out).not.toMatch(RAW);
      expect(out).toContain('\\u200b');
    });
  }

  it('json and sarif stay lossless: escaped as \\uXXXX, parsing back to the same text', async () => {
    const r = hostile();
    const json = await renderReport(r, 'json', opts({ excerpts: true }));
    expect(json).not.toMatch(RAW);
    expect(JSON.parse(json).sessions[0].id).toBe(`admin${HIDDEN}`);
    const sarif = await renderReport(r, 'sarif', opts());
    expect(sarif).not.toMatch(RAW);
  });
});

describe('the built binary', () => {
  const dir = scratch('loopledger-zw-');
  beforeAll(() => ensureBuilt());
  afterAll(() => dir.cleanup());

  it('config: a value carrying zero-width characters prints them escaped', async () => {
    const r = await runCli(['config', '--set', `tool_batch.observation_tools=snap${HIDDEN}shot`]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('snap\\u200bx');
  });

  it('sweep: an unmatched label carrying zero-width characters prints escaped', async () => {
    const t = dir.write('s.jsonl', canonical([{ id: 'one', events: repeat([['Read', { path: 'a' }]], 4, 'same') }]));
    const labels = dir.write('labels.json', JSON.stringify({ [`one${HIDDEN}`]: 'loop' }));
    const r = await runCli(['sweep', t, '--param', 'tool_batch.max_strikes=1:2:1', '--labels', labels]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    expect(r.stdout + r.stderr).toContain('one\\u200b');
  });

  it('table and stderr: a session id and a skip reason with zero-width characters', async () => {
    const t = dir.write(
      'zw.jsonl',
      canonical([{ id: `sess${HIDDEN}`, events: repeat([['Read', { path: 'a' }]], 4, 'same') }]) + `{"broken${HIDDEN}\n`,
    );
    const r = await runCli([t]);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stdout).toContain('sess\\u200bx');
  });
});
