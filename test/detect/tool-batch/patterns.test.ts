// SPEC "Bad input": "`observation_tools` and `costly_tools` patterns match a tool name
// case-insensitively when equal to it or ending with it after a separator (`_`, `-`, `.`, `:`,
// `/`), `*` a wildcard: `browser_click` is a `click`, `clickhouse_query` is not."

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileToolPatterns,
  createToolBatchDetector,
  isCostlyBatch,
  isObservationBatch,
} from '../../../src/detect/tool-batch/index.js';
import type { ToolCall } from '../../../src/model/transcript.js';
import { config, drive, Rounds, stops, type CallSpec } from './rounds.js';

const call = (name: string): ToolCall => ({ id: null, name, arguments: {} });
const matches = (patterns: string[], name: string) => compileToolPatterns(patterns)(name);

describe('SPEC: tool-name patterns match by name segment', () => {
  it('"`browser_click` is a `click`, `clickhouse_query` is not"', () => {
    expect(matches(['click'], 'browser_click')).toBe(true);
    expect(matches(['click'], 'clickhouse_query')).toBe(false);
  });

  it('"equal to it", any case', () => {
    for (const name of ['click', 'Click', 'CLICK']) expect(matches(['click'], name)).toBe(true);
    expect(matches(['Read_Page'], 'read_page')).toBe(true);
  });

  it('"ending with it after a separator (`_`, `-`, `.`, `:`, `/`)"', () => {
    for (const sep of ['_', '-', '.', ':', '/']) expect(matches(['snapshot'], `browser${sep}snapshot`), sep).toBe(true);
    expect(matches(['snapshot'], 'mcp__playwright__browser_snapshot')).toBe(true);
    expect(matches(['read_page'], 'mcp__chrome__read_page')).toBe(true);
  });

  it('a suffix that does not start a name segment, a prefix or an infix is not a match', () => {
    expect(matches(['click'], 'doubleclick')).toBe(false);
    expect(matches(['click'], 'click_button')).toBe(false);
    expect(matches(['navigate'], 'browser_navigate_back')).toBe(false);
    expect(matches(['snapshot'], 'snapshot_paid_api')).toBe(false);
    expect(matches(['screenshot'], 'screenshots')).toBe(false);
    // The separator must come right before the pattern: a longer segment ending alike is another name.
    expect(matches(['page'], 'read_page')).toBe(true);
    expect(matches(['page'], 'read_homepage')).toBe(false);
  });

  it('"`*` a wildcard", still anchored at a segment start and at the end', () => {
    expect(matches(['navigate*'], 'browser_navigate_back')).toBe(true);
    expect(matches(['navigate*'], 'navigate')).toBe(true);
    expect(matches(['browser_*'], 'mcp__pw__browser_hover')).toBe(true);
    expect(matches(['*click*'], 'clickhouse_query')).toBe(true);
    expect(matches(['click*'], 'doubleclick_x')).toBe(false);
    expect(matches(['*'], 'anything at all')).toBe(true);
    expect(matches(['read_*_page'], 'Read_Home_Page')).toBe(true);
  });

  it('regular-expression characters in a pattern are literal', () => {
    expect(matches(['a.b'], 'x_a.b')).toBe(true);
    expect(matches(['a.b'], 'x_acb')).toBe(false);
    expect(matches(['(x)+'], 'tool/(x)+')).toBe(true);
    expect(matches(['(x)+'], 'tool/xx')).toBe(false);
  });

  it('empty patterns match nothing (an empty pattern would make every batch read-only)', () => {
    expect(matches(['', '  '], 'anything')).toBe(false);
    expect(matches([], 'click')).toBe(false);
  });

  it('property: a pattern without `*` matches exactly the names equal to it or ending in separator + it', () => {
    const word = fc.stringMatching(/^[a-zA-Z0-9]{1,8}$/);
    const sep = fc.constantFrom('_', '-', '.', ':', '/', '__', '');
    fc.assert(
      fc.property(word, fc.option(word, { nil: undefined }), sep, word, (pattern, prefix, s, extra) => {
        const named = prefix === undefined ? pattern : `${prefix}${s}${pattern}`;
        const expectHit = prefix === undefined || s !== '';
        expect(matches([pattern], named)).toBe(expectHit);
        expect(matches([pattern.toUpperCase()], named.toLowerCase())).toBe(expectHit);
        // What follows decides: only a last segment that is the pattern itself matches.
        expect(matches([pattern], `${named}_${extra}`)).toBe(extra.toLowerCase() === pattern.toLowerCase());
      }),
    );
  });
});

describe('the patterns in the detector', () => {
  it('seed 000 "if every call matches an observation pattern": `clickhouse_query` is not read-only under the default `click`', () => {
    const r = new Rounds();
    const query: CallSpec[] = [['clickhouse_query', { sql: 'select 1' }]];
    const out = drive(createToolBatchDetector(config()), [1, 2, 3].map(() => r.batch(query, ['1'])));
    expect(stops(out)).toEqual([3]);
    expect(out[1]![0]!.strike).toMatchObject({ read_only: false, threshold: 2 });
    const click: CallSpec[] = [['browser_click', { ref: 'e12' }]];
    const out2 = drive(createToolBatchDetector(config()), [1, 2, 3].map(() => r.batch(click, ['clicked'])));
    expect(stops(out2)).toEqual([]);
    expect(out2[2]![0]!.strike).toMatchObject({ read_only: true, threshold: 15 });
  });

  it('costly_tools uses the same matching: `paid_search` withholds the waiver from `web.paid_search`, not from `paid_search_cache`', () => {
    const observe = ['search', 'paid_search', 'paid_search_cache'];
    expect(isCostlyBatch([call('web.paid_search')], ['paid_search'])).toBe(true);
    expect(isCostlyBatch([call('paid_search_cache')], ['paid_search'])).toBe(false);
    expect(isObservationBatch([call('web.paid_search'), call('paid_search_cache')], observe)).toBe(true);
  });
});
