// SPEC "What real sessions showed the seeds leave open (0.2)": "`repeated_response` (output):
// text-only responses of one turn, identical after normalization, three in a row, whatever their
// length; the third steers." Issue 13 item 2: a 55-word plan repeated three times was a near miss
// (exact blocks need four copies) and "I'm doing well, thanks for asking." ×3 is under the 8-word
// block minimum.

import { describe, expect, it } from 'vitest';
import { defaultConfigValues, parseConfig } from '../../../src/config/registry.js';
import { createOutputRoundDetector, defaultOutputConfig } from '../../../src/detect/output/index.js';
import { responseKey } from '../../../src/detect/output/response.js';
import type { Finding } from '../../../src/detect/types.js';
import { LedgerBuilder } from '../../../src/ledger/build.js';
import { createDetectorFactories } from '../../../src/ledger/detectors.js';
import type { Round } from '../../../src/model/transcript.js';
import { round } from './corpus.js';

const PLAN =
  'Here is my plan. First I will read the failing migration and the schema it expects. Then I will compare it with the current ' +
  'production schema to find the column that differs. After that I will write a follow-up migration that adds the missing column ' +
  'with a safe default, run it on staging, and only then apply it to production.';

type Step = string | { text: string; call: true };

function observe(steps: readonly Step[], values = {}): Finding[][] {
  const det = createOutputRoundDetector(parseConfig(values).output);
  return steps.map((s, i) => {
    const r = typeof s === 'string' ? round(s, { index: i + 1 }) : { ...round(s.text, { index: i + 1 }), calls: [{ id: `c${i}`, name: 'bash', arguments: { i } }] };
    return det.observe(r).findings.filter((f) => f.kind === 'repeated_response');
  });
}

describe('repeated_response', () => {
  it('a 55-word plan three times: the third is a repeated_response (exact blocks need four)', () => {
    expect(PLAN.split(' ').length).toBeGreaterThanOrEqual(55);
    const r = observe([PLAN, PLAN, PLAN]);
    expect(r[0]).toEqual([]);
    expect(r[1]).toEqual([]);
    expect(r[2]).toHaveLength(1);
    expect(r[2]![0]).toMatchObject({ detector: 'output', kind: 'repeated_response', confidence: 0.9, ambiguous: false, dominant: true });
    expect(r[2]![0]!.evidence).toMatchObject({ repeats: 3, response_words: PLAN.split(' ').length, response_chars: PLAN.length });
  });

  it('"whatever their length": a six-word status line, identical after normalization (case, spacing, punctuation)', () => {
    const r = observe(["I'm doing well, thanks for asking.", "I'm doing well, thanks for asking.", "i'm  DOING well thanks for asking!"]);
    expect(r.map((x) => x.length)).toEqual([0, 0, 1]);
    expect(r[2]![0]!.excerpts).toEqual(['im doing well thanks for asking']);
  });

  it('each further identical response extends the streak and its confidence', () => {
    const r = observe(Array.from({ length: 6 }, () => 'Done.'));
    expect(r.map((x) => x[0]?.evidence['repeats'] ?? 0)).toEqual([0, 0, 3, 4, 5, 6]);
    expect(r.map((x) => x[0]?.confidence ?? 0)).toEqual([0, 0, 0.9, 0.92, 0.94, 0.96]);
  });

  it('"in a row": a different response, a round with tool calls or an empty one starts the count over', () => {
    expect(observe(['Done.', 'Done.', 'Working on it.', 'Done.', 'Done.']).flat()).toEqual([]);
    expect(observe(['Done.', 'Done.', { text: 'Done.', call: true }, 'Done.', 'Done.']).flat()).toEqual([]);
    expect(observe(['Done.', 'Done.', '', 'Done.', 'Done.']).flat()).toEqual([]);
    // "text-only": identical text beside tool calls is the tool-batch detector's to judge.
    expect(observe(Array.from({ length: 5 }, () => ({ text: 'Done.', call: true as const }))).flat()).toEqual([]);
  });

  it('structure is not excluded: the same table three times is the same response', () => {
    const table = '| job | state |\n|---|---|\n| export | failed |';
    expect(observe([table, table, table])[2]).toHaveLength(1);
    // A response with no word at all (only punctuation) is not one.
    expect(observe(['---', '---', '---']).flat()).toEqual([]);
  });

  it('output.repeated_response_min moves the bar', () => {
    expect(observe(['Done.', 'Done.'], { 'output.repeated_response_min': 2 })[1]).toHaveLength(1);
    expect(observe(['Done.', 'Done.', 'Done.'], { 'output.repeated_response_min': 4 }).flat()).toEqual([]);
    expect(defaultOutputConfig().repeatedResponseMin).toBe(3);
  });

  it('the streak survives a snapshot and restore (the live guard resumes a turn between calls)', () => {
    const a = createOutputRoundDetector(defaultOutputConfig());
    a.observe(round('Done.', { index: 1 }));
    a.observe(round('Done.', { index: 2 }));
    const b = createOutputRoundDetector(defaultOutputConfig());
    b.restore(JSON.parse(JSON.stringify(a.snapshot())));
    expect(b.observe(round('Done.', { index: 3 })).findings.map((f) => f.kind)).toEqual(['repeated_response']);
  });

  it('responseKey: word cores, lowercased, single-spaced', () => {
    expect(responseKey("  It's   DONE,\n\tfinally!  ")).toBe('its done finally');
    expect(responseKey('... --- !!!')).toBe('');
    expect(responseKey('Größe 42')).toBe('größe 42');
  });
});

describe('repeated_response under the ladder: "the third steers"', () => {
  function ledger(texts: readonly string[]) {
    const b = new LedgerBuilder({ config: defaultConfigValues(), factories: createDetectorFactories() });
    b.session({ id: 's', path: 's.jsonl', format: 'canonical', parent: null });
    b.turn('s', 1, 1);
    texts.forEach((text, i) => {
      const r: Round = { ...round(text, { index: i + 1 }), model: 'test-model' };
      b.round('s', r);
    });
    b.end('s');
    return b.sessions()[0]!;
  }

  it('three identical short responses: the third steers', () => {
    const s = ledger(["I'm doing well, thanks for asking.", "I'm doing well, thanks for asking.", "I'm doing well, thanks for asking."]);
    expect(s.entries.map((e) => [e.round, e.kind, e.intervention.enforce])).toEqual([[3, 'repeated_response', 'steer']]);
  });

  it('six in a row: three unheeded steers, then a stop', () => {
    const s = ledger(Array.from({ length: 7 }, () => PLAN));
    const rr = s.entries.filter((e) => e.kind === 'repeated_response');
    expect(rr.map((e) => e.intervention.enforce)).toEqual(['steer', 'steer', 'steer', 'stop', 'none']);
    expect(s.outcome.enforce.stops).toEqual([{ turn: 1, round: 6 }]);
  });
});
