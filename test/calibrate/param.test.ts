import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gridPoints, MAX_PARAM_VALUES, parseParam, parseParams } from '../../src/calibrate/param.js';
import type { ConfigKeySpec } from '../../src/config/spec.js';
import { ConfigError } from '../../src/errors.js';

const SPECS: readonly ConfigKeySpec[] = [
  { key: 'tool_batch.max_strikes', type: 'integer', default: 2, min: 0, reason: 'seed 000' },
  { key: 'tool_batch.max_observation_steps', type: 'integer', default: 15, nullable: true, min: 0, reason: 'seed 000' },
  { key: 'output.similarity', type: 'ratio', default: 0.85, reason: 'seed 002' },
  { key: 'output.weight', type: 'number', default: 1.5, reason: 'test' },
  { key: 'tool_batch.observation_tools', type: 'list', default: [], reason: 'seed 000' },
  { key: 'scope', type: 'enum', values: ['turn', 'replay'], default: 'turn', reason: 'scope' },
];

function fails(text: string, pattern: RegExp): void {
  let err: unknown;
  try {
    parseParam(text, SPECS);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as Error).message).toMatch(pattern);
}

describe('parseParam', () => {
  it('integer range, inclusive of TO', () => {
    expect(parseParam('tool_batch.max_strikes=1:4:1', SPECS)).toEqual({ key: 'tool_batch.max_strikes', values: [1, 2, 3, 4] });
    expect(parseParam('tool_batch.max_strikes=1:6:2', SPECS).values).toEqual([1, 3, 5]);
    expect(parseParam('tool_batch.max_strikes=3:3:1', SPECS).values).toEqual([3]);
  });

  it('0.80:0.95:0.05 gives exactly four values, without float drift', () => {
    expect(parseParam('output.similarity=0.80:0.95:0.05', SPECS).values).toEqual([0.8, 0.85, 0.9, 0.95]);
    expect(parseParam('output.similarity=0.1:0.3:0.1', SPECS).values).toEqual([0.1, 0.2, 0.3]);
    expect(parseParam('output.similarity=0:1:0.1', SPECS).values).toHaveLength(11);
    expect(parseParam('output.weight=1e-3:3e-3:1e-3', SPECS).values).toEqual([0.001, 0.002, 0.003]);
    expect(parseParam('output.weight=-1:1:0.5', SPECS).values).toEqual([-1, -0.5, 0, 0.5, 1]);
  });

  it('a list form for uneven values, with none for a nullable key', () => {
    expect(parseParam('tool_batch.max_observation_steps=5,15,none', SPECS).values).toEqual([5, 15, null]);
    expect(parseParam('output.similarity=0.9', SPECS).values).toEqual([0.9]);
  });

  it('issue 28: an enum key is swept by its words, listed or all, in the order given ("the sweep shows both")', () => {
    expect(parseParam('scope=replay,turn', SPECS)).toEqual({ key: 'scope', values: ['replay', 'turn'] });
    expect(parseParam('scope=all', SPECS).values).toEqual(['turn', 'replay']);
    expect(gridPoints([parseParam('scope=all', SPECS), parseParam('tool_batch.max_strikes=1:2:1', SPECS)])).toEqual([
      { scope: 'turn', 'tool_batch.max_strikes': 1 },
      { scope: 'turn', 'tool_batch.max_strikes': 2 },
      { scope: 'replay', 'tool_batch.max_strikes': 1 },
      { scope: 'replay', 'tool_batch.max_strikes': 2 },
    ]);
  });

  it('property: a decimal range has floor((to-from)/step)+1 values, each exactly the decimal it prints as', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 20 }), (a, span, s) => {
        const from = a / 100;
        const to = (a + span) / 100;
        const step = s / 100;
        const { values } = parseParam(`output.weight=${from}:${to}:${step}`, SPECS);
        expect(values).toHaveLength(Math.floor(span / s) + 1);
        values.forEach((v, i) => expect(v).toBe(Number(((a + s * i) / 100).toFixed(2))));
      }),
    );
  });

  it('errors', () => {
    fails('tool_batch.max_strikes', /KEY=FROM:TO:STEP/);
    fails('tool_batch.max_strike=1:4:1', /unknown configuration key "tool_batch.max_strike"; did you mean tool_batch.max_strikes/);
    fails('tool_batch.observation_tools=1:2:1', /only numeric thresholds/);
    fails('scope=1:2:1', /"1:2:1" is not one of scope's values \(turn, replay\)/);
    fails('scope=turn,maybe', /"maybe" is not one of scope's values/);
    fails('scope=turn,turn', /turn is given twice/);
    fails('scope=', /expected scope=turn,replay \(or all\)/);
    fails('tool_batch.max_strikes=1:4', /FROM:TO:STEP/);
    fails('tool_batch.max_strikes=1:4:1:1', /FROM:TO:STEP/);
    fails('tool_batch.max_strikes=a:4:1', /"a" is not a number/);
    fails('tool_batch.max_strikes=1:4:0', /STEP must be greater than 0/);
    fails('tool_batch.max_strikes=1:4:-1', /STEP must be greater than 0/);
    fails('tool_batch.max_strikes=4:1:1', /FROM \(4\) is greater than TO \(1\)/);
    fails('tool_batch.max_strikes=1:2:0.5', /whole numbers/);
    fails('tool_batch.max_strikes=-1:2:1', /below tool_batch.max_strikes's minimum 0/);
    fails('output.similarity=0.5:1.5:0.5', /above output.similarity's maximum 1/);
    fails(`tool_batch.max_strikes=0:${MAX_PARAM_VALUES}:1`, /at most 1000/);
    fails('tool_batch.max_strikes=1,none', /does not accept none/);
    fails('tool_batch.max_strikes=1,,2', /expected/);
  });
});

describe('parseParams and the grid', () => {
  it('a grid of two, first parameter slowest', () => {
    const params = parseParams(['tool_batch.max_strikes=1:2:1', 'output.similarity=0.8,0.9'], SPECS);
    expect(gridPoints(params)).toEqual([
      { 'tool_batch.max_strikes': 1, 'output.similarity': 0.8 },
      { 'tool_batch.max_strikes': 1, 'output.similarity': 0.9 },
      { 'tool_batch.max_strikes': 2, 'output.similarity': 0.8 },
      { 'tool_batch.max_strikes': 2, 'output.similarity': 0.9 },
    ]);
  });

  it('none, three, a repeated key or a huge grid are errors', () => {
    expect(() => parseParams([], SPECS)).toThrow(ConfigError);
    expect(() => parseParams(['tool_batch.max_strikes=1:2:1', 'output.similarity=0.8', 'output.weight=1'], SPECS)).toThrow(/at most 2/);
    expect(() => parseParams(['tool_batch.max_strikes=1:2:1', 'tool_batch.max_strikes=3'], SPECS)).toThrow(/given twice/);
    expect(() => parseParams(['tool_batch.max_strikes=0:999:1', 'output.weight=0:99:1'], SPECS)).toThrow(/100000 points/);
  });
});
