import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { characterBoundary, sniff } from '../../src/read/sniff.js';

const bytes = (...b: number[]) => new Uint8Array(b);

describe('sniff', () => {
  it('accepts UTF-8 text, with or without a BOM', () => {
    expect(sniff(Buffer.from('{"t":"héllo 🦀"}\n'), true)).toEqual({ ok: true });
    expect(sniff(Buffer.from('\ufeff{"a":1}\n'), true)).toEqual({ ok: true });
    expect(sniff(new Uint8Array(0), true)).toEqual({ ok: true });
  });

  it('calls a file with a NUL byte binary and says where', () => {
    const v = sniff(bytes(0x7b, 0x22, 0x00, 0x22), true);
    expect(v).toMatchObject({ ok: false, kind: 'binary' });
    expect(!v.ok && v.message).toMatch(/NUL byte at offset 2/);
  });

  it('calls Latin-1 text non-UTF-8 and names the offset', () => {
    const v = sniff(Buffer.from('{"t":"caf\xe9"}', 'latin1'), true);
    expect(v).toMatchObject({ ok: false, kind: 'encoding' });
    expect(!v.ok && v.message).toBe('not UTF-8 text (invalid byte at offset 9)');
  });

  it('names UTF-16 and compressed files instead of calling them garbage', () => {
    expect(sniff(Buffer.from('\ufeff{"a":1}', 'utf16le'), true)).toMatchObject({ ok: false, kind: 'encoding' });
    expect(sniff(bytes(0x1f, 0x8b, 0x08, 0x00), true)).toMatchObject({ ok: false, kind: 'compressed' });
    expect(sniff(bytes(0x50, 0x4b, 0x03, 0x04), true)).toMatchObject({ ok: false, kind: 'compressed' });
  });

  it('does not blame a character cut by the end of the sample, only by the end of the file', () => {
    const crab = Buffer.from('ab🦀');
    const cut = crab.subarray(0, crab.length - 1);
    expect(sniff(cut, false)).toEqual({ ok: true });
    expect(sniff(cut, true)).toMatchObject({ ok: false, kind: 'encoding' });
  });

  it('finds the last character boundary', () => {
    const s = Buffer.from('aé🦀');
    expect(characterBoundary(s)).toBe(s.length);
    expect(characterBoundary(s.subarray(0, s.length - 1))).toBe(3);
    expect(characterBoundary(s.subarray(0, 2))).toBe(1);
    expect(characterBoundary(new Uint8Array(0))).toBe(0);
  });

  it('refuses what a strict UTF-8 decoder refuses: overlong forms, surrogates, code points past U+10FFFF', () => {
    for (const bad of [bytes(0x61, 0xc0, 0x80), bytes(0x61, 0xed, 0xa0, 0x80), bytes(0x61, 0xf4, 0x90, 0x80, 0x80), bytes(0x61, 0x80)]) {
      expect(sniff(bad, true)).toEqual({ ok: false, kind: 'encoding', message: 'not UTF-8 text (invalid byte at offset 1)' });
    }
    expect(sniff(bytes(0x61, 0xf4, 0x8f, 0xbf, 0xbf), true)).toEqual({ ok: true });
  });

  it('judges any bytes as the strict TextDecoder does (no NUL, no magic number)', () => {
    const strict = new TextDecoder('utf-8', { fatal: true });
    const decodes = (b: Uint8Array) => {
      try {
        strict.decode(b);
        return true;
      } catch {
        return false;
      }
    };
    // Bytes around the multi-byte ranges, where validators differ, more often than uniform ones.
    const byte = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constantFrom(0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0x80, 0xbf));
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 40 }).map((a) => a.map((b) => b || 0x41)), fc.array(byte, { maxLength: 40 }), (random, chosen) => {
        const all = new Uint8Array([0x7b, ...random, ...chosen]);
        expect(sniff(all, true).ok).toBe(decodes(all));
      }),
      { numRuns: 3000 },
    );
  });
});
