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
});
