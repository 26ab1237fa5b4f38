// The JSON scanner merge reads shards with (issue 27.17): fed in pieces cut anywhere, it gives
// the top-level members and the streamed array's elements exactly as JSON.parse of the whole
// text would, and places what is not JSON (cut short, bad tokens, trailing text) by line and byte.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonScanError, JsonScanner } from '../../src/merge/json-scan.js';

interface Scanned {
  members: Record<string, unknown>;
  elements: unknown[];
  ended: number;
  other?: unknown;
}

/** `text` fed in pieces cut at `cuts` (character offsets). */
function scan(text: string, cuts: number[] = [], streamed = 'sessions'): Scanned {
  const out: Scanned = { members: {}, elements: [], ended: 0 };
  const scanner = new JsonScanner(streamed, {
    member: (k, v) => {
      Object.defineProperty(out.members, k, { value: v, writable: true, enumerable: true, configurable: true });
    },
    element: (v, i) => {
      expect(i).toBe(out.elements.length);
      out.elements.push(v);
    },
    elementsEnd: () => {
      out.ended += 1;
    },
    other: (v) => {
      out.other = v;
    },
  });
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    scanner.feed(text.slice(at, cut));
    at = cut;
  }
  scanner.feed(text.slice(at));
  scanner.end();
  return out;
}

/** Every way of cutting `text` in two, and in single characters. */
function everyCut(text: string, check: (s: Scanned) => void): void {
  for (let i = 0; i <= text.length; i++) check(scan(text, [i]));
  check(scan(text, [...text].map((_, i) => i)));
}

function failure(text: string, cuts: number[] = []): JsonScanError {
  try {
    scan(text, cuts);
  } catch (e) {
    expect(e).toBeInstanceOf(JsonScanError);
    return e as JsonScanError;
  }
  throw new Error('no error');
}

describe('json-scan', () => {
  it('strings with every escape, cut anywhere (an escape split from what follows it included)', () => {
    const tricky = 'a"b\\c/d\b\f\n\r\t\u0001 \u2028 é ẞ 🎉 ] } [ { , :';
    const doc = { 'k"ey\\': tricky, sessions: [tricky, { s: tricky, '\\': '\\' }, '\\"'], after: '"]' };
    const text = JSON.stringify(doc, null, 2);
    everyCut(text, (s) => {
      expect(s.members).toEqual({ 'k"ey\\': tricky, after: '"]' });
      expect(s.elements).toEqual(doc.sessions);
      expect(s.ended).toBe(1);
    });
    // \u escapes as written by hand, and a lone surrogate JSON.stringify escapes.
    everyCut('{"sessions":["\\u0041\\ud83c\\udf89\\u00e9","\\udc00"],"x":"\\/"}', (s) => {
      expect(s.elements).toEqual(['A🎉é', '\udc00']);
      expect(s.members).toEqual({ x: '/' });
    });
  });

  it('numbers, literals and empty containers as JSON.parse reads them', () => {
    const text = '{"a":-0,"b":1e308,"c":-1.5E-7,"d":123456789012345678901234,"e":true,"f":false,"g":null,"h":{},"i":[],"sessions":[0,-12.5e+3,null,[],{},true]}';
    everyCut(text, (s) => {
      expect(s.members).toEqual({ a: -0, b: 1e308, c: -1.5e-7, d: Number('123456789012345678901234'), e: true, f: false, g: null, h: {}, i: [] });
      expect(Object.is(s.members['a'], -0)).toBe(true);
      expect(s.elements).toEqual([0, -12500, null, [], {}, true]);
    });
    expect(scan('{"sessions":[]}').elements).toEqual([]);
    expect(scan('{"sessions":[]}').ended).toBe(1);
    expect(scan('{}').members).toEqual({});
  });

  it('only the named array streams: the same name deeper down, or not an array, is a member', () => {
    const s = scan('{"inner":{"sessions":[1,2]},"sessions":{"not":"a list"}}');
    expect(s.members).toEqual({ inner: { sessions: [1, 2] }, sessions: { not: 'a list' } });
    expect(s.elements).toEqual([]);
    expect(s.ended).toBe(0);
  });

  it('several named arrays stream, each element with its name and its own count, cut anywhere', () => {
    const text = JSON.stringify({ schema: 's', inputs: [{ path: 'a' }, { path: 'b' }], mid: [1], sessions: [{ id: 1 }], empty: [], after: 2 });
    const cuts = (at: number[]) => {
      const got: [string, number, unknown][] = [];
      const events: string[] = [];
      const members: Record<string, unknown> = {};
      const scanner = new JsonScanner(['inputs', 'sessions', 'empty'], {
        member: (k, v) => (members[k] = v),
        elementsStart: (k) => events.push(`start ${k}`),
        element: (v, i, k) => got.push([k, i, v]),
        elementsEnd: (k) => events.push(`end ${k}`),
        other: () => {},
      });
      let from = 0;
      for (const cut of at) {
        scanner.feed(text.slice(from, cut));
        from = cut;
      }
      scanner.feed(text.slice(from));
      scanner.end();
      return { got, events, members };
    };
    for (let i = 0; i <= text.length; i++) {
      const { got, events, members } = cuts([i]);
      expect(got).toEqual([
        ['inputs', 0, { path: 'a' }],
        ['inputs', 1, { path: 'b' }],
        ['sessions', 0, { id: 1 }],
      ]);
      expect(events).toEqual(['start inputs', 'end inputs', 'start sessions', 'end sessions', 'start empty', 'end empty']);
      expect(members).toEqual({ schema: 's', mid: [1], after: 2 });
    }
  });

  it('a long string in many pieces, an escape ending one of them, reads as JSON.parse reads it', () => {
    const long = `${'a'.repeat(5000)}\\"${'b'.repeat(5000)}`;
    const text = JSON.stringify({ sessions: [{ s: long }, 2], after: long });
    const backslash = text.indexOf('\\');
    const s = scan(text, [3, 100, backslash + 1, backslash + 2, 9000, text.length - 20]);
    expect(s.elements).toEqual([{ s: long }, 2]);
    expect(s.members).toEqual({ after: long });
  });

  it('deep nesting inside an element: 100k levels, no stack overflow', () => {
    const depth = 100_000;
    const text = `{"sessions":[${'['.repeat(depth)}${']'.repeat(depth)},1]}`;
    const s = scan(text, [10, 50_000, 150_000]);
    expect(s.elements).toHaveLength(2);
    expect(s.elements[1]).toBe(1);
  });

  it('a BOM is skipped; a document that is no object is given whole', () => {
    expect(scan('\ufeff{"a":1}').members).toEqual({ a: 1 });
    expect(scan('\ufeff{"a":1}', [1]).members).toEqual({ a: 1 });
    expect(scan(' [1, {"sessions": [2]}] ', [3]).other).toEqual([1, { sessions: [2] }]);
    expect(scan('"text"').other).toBe('text');
  });

  it('a document cut short is placed at its end, by line and byte (multi-byte characters counted as bytes)', () => {
    const text = '{\n  "a": "é",\n  "sessions": [\n    {"x": 1},\n    {"y": ';
    for (const cuts of [[], [7, 30]]) {
      const e = failure(text, cuts);
      expect(e.message).toMatch(/ends inside the document/);
      expect(e.line).toBe(5);
      expect(e.byte).toBe(Buffer.byteLength(text));
    }
    expect(failure('').message).toMatch(/no JSON at all/);
    expect(failure('{"sessions": [1, 2').message).toMatch(/ends inside/);
    expect(failure('{"a": "unclosed').message).toMatch(/ends inside/);
  });

  it('bad tokens are placed on their line; trailing text is told apart (ndjson)', () => {
    const bad = failure('{\n"a": 1,\n"sessions": [\n{"x": tru}\n]}');
    expect(bad.line).toBe(4);
    expect(bad.trailing).toBe(false);
    // The bad session spanning four pieces, its start in the first: the same place, line and byte.
    const spanning = failure('{\n"a": 1,\n"sessions": [\n{"x": tru}\n]}', [24, 26, 29]);
    expect([spanning.line, spanning.byte]).toEqual([bad.line, bad.byte]);
    expect(failure('{"a" 1}').message).toMatch(/expected ':'/);
    expect(failure('{"a": 1 "b": 2}').message).toMatch(/expected ',' or '}'/);
    expect(failure('{"sessions": [1 2]}').message).toMatch(/expected ',' or '\]' after sessions\[0\]/);
    expect(failure('{a: 1}').message).toMatch(/expected a member's name/);
    expect(failure('{"sessions": [1,]}').line).toBe(1);
    const two = failure('{"a":1}\n{"a":2}\n');
    expect(two.trailing).toBe(true);
    expect(two.line).toBe(2);
  });

  it('any JSON object, cut anywhere, scans to what JSON.parse gives (property)', () => {
    const doc = fc.record({
      head: fc.dictionary(fc.string(), fc.jsonValue()),
      sessions: fc.array(fc.jsonValue(), { maxLength: 8 }),
      tail: fc.dictionary(fc.string(), fc.jsonValue()),
    });
    fc.assert(
      fc.property(doc, fc.boolean(), fc.array(fc.nat(), { maxLength: 12 }), ({ head, sessions, tail }, pretty, rawCuts) => {
        delete head['sessions'];
        delete tail['sessions'];
        const text = JSON.stringify({ ...head, sessions, ...tail }, null, pretty ? 2 : undefined);
        const whole = JSON.parse(text) as Record<string, unknown>;
        const s = scan(text, rawCuts.map((c) => c % (text.length + 1)));
        const { sessions: expected, ...members } = whole;
        expect(s.members).toEqual(members);
        expect(s.elements).toEqual(expected);
        expect(s.ended).toBe(1);
      }),
      { numRuns: 300 },
    );
  });
});
