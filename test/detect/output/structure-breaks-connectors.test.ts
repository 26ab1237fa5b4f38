// Issue 54, "Structure taken for prose": "short closing lines ("OK.") of numbered sections joined
// into one run once the list lines are dropped". The seed drops list lines, headings, fences and
// tables so repetition inside them forms no connector runs; the lines on either side of them were
// not next to each other as written, so they form none either. Prose connectors still do, on one
// line or across blank lines.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { OutputLoopDetector } from '../../../src/detect/output/index.js';
import { ThinkingLoopDetector } from '../../../src/detect/thinking/index.js';
import type { Finding } from '../../../src/detect/types.js';
import { ensureBuilt, runCli } from '../../cli/helpers.js';
import { detect } from './helpers.js';

const connector = (fs: readonly Finding[]) => fs.filter((f) => f.kind === 'connector_stalling');

/** Numbered sections, each a heading line, a bullet, and a closing line of prose. */
function review(closing: string, sections = 6, bullet = (i: number) => `- check ${i} passed without remarks`): string {
  const parts = ['Going through the report one section at a time.', ''];
  for (let i = 1; i <= sections; i++) parts.push(`${i}) **Section ${i}**`, bullet(i), closing, '');
  parts.push('Shall I fix the two gaps next?');
  return parts.join('\n');
}

/** Feed `text` cut at the given offsets, then end the segment and force a pass. */
function chunked(text: string, cuts: number[]): Finding[] {
  const d = new OutputLoopDetector();
  const out: Finding[] = [];
  let at = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    out.push(...d.feed(text.slice(at, c)));
    at = c;
  }
  out.push(...d.feed(text.slice(at)), ...d.endSegment(), ...d.analyze());
  return out;
}

describe('dropped structure breaks a connector run and the openings between its sides', () => {
  it('"OK." closing six numbered sections is no run and no openings, with or without a full stop', () => {
    for (const closing of ['OK.', 'OK', 'Okay.', 'Fine, OK.']) expect(connector(detect(review(closing))), closing).toEqual([]);
  });

  it('the same closings with only blank lines between (prose as written) still stall', () => {
    const text = ['Going through the report.', '', 'OK.', '', 'OK.', '', 'OK.', '', 'OK.', '', 'Shall I go on?'].join('\n');
    expect(connector(detect(text)).map((f) => f.evidence['pattern'])).toEqual(['run']);
    expect(connector(detect('The answer is four. Wait,\nwait,\nwait, the sign flips.')).length).toBe(1);
  });

  it('a fence, a heading or a table between connectors breaks the run too; a run inside one section still stalls', () => {
    const between = ['Wait.', '```', 'x = 1', '```', 'Wait.', '## Next', 'Wait.', '| a | b |', '|---|---|', '| 1 | 2 |', 'Wait.'].join('\n');
    expect(connector(detect(between))).toEqual([]);
    const inside = review('OK.').replace('3) **Section 3**\n- check 3 passed without remarks\nOK.', '3) **Section 3**\n- check 3\nWait, wait, wait, wait.');
    expect(connector(detect(inside)).map((f) => f.evidence['pattern'])).toEqual(['run']);
  });

  it('the verdict does not depend on where the text is cut', () => {
    const text = review('OK.');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 12 }), (cuts) => {
        expect(connector(chunked(text, cuts))).toEqual([]);
      }),
      { numRuns: 200 },
    );
    const stall = 'Going through it.\n\nOK.\nOK.\nOK.\nOK.\n\nDone?';
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: stall.length }), { maxLength: 8 }), (cuts) => {
        expect(connector(chunked(stall, cuts)).length).toBeGreaterThan(0);
      }),
      { numRuns: 200 },
    );
  });

  it('in thinking: list lines between "Wait." are no run; "Wait, wait, wait." on one line is', () => {
    const listed = new ThinkingLoopDetector().feedBlock(['Planning the fix.', 'Wait.', '- the parser', 'Wait.', '- the loader', 'Wait.', '- the cache', 'Wait.'].join('\n'));
    expect(connector(listed)).toEqual([]);
    const said = new ThinkingLoopDetector().feedBlock('Planning the fix. Wait, wait, wait. The loader runs first.');
    expect(connector(said).map((f) => f.evidence['pattern'])).toEqual(['run']);
  });
});

describe('through the binary', () => {
  beforeAll(() => ensureBuilt());
  it('a review whose numbered sections close with "OK." has no connector_stalling; the seed\'s "Wait," case still steers', async () => {
    const r = await runCli(['analyze', 'fixtures/canonical/clean-review-sections.jsonl', 'fixtures/canonical/kinds.jsonl', '--format', 'json']);
    expect(r.code, r.stderr).not.toBe(2);
    const j = JSON.parse(r.stdout) as { sessions: { id: string; entries: { kind: string; intervention: { enforce: string } }[] }[] };
    const review = j.sessions.find((s) => s.id === 'clean-review-sections')!;
    expect(review.entries.filter((e) => e.kind === 'connector_stalling')).toEqual([]);
    expect(review.entries.every((e) => e.intervention.enforce === 'noted')).toBe(true);
    const wait = j.sessions.find((s) => s.id === 'kinds-connector-output')!;
    expect(wait.entries.filter((e) => e.kind === 'connector_stalling').map((e) => e.intervention.enforce)).toEqual(['steer']);
  });
});
