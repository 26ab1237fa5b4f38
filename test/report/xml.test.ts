// The junit tests lean on this checker, so it must reject what a real parser rejects.

import { describe, expect, it } from 'vitest';
import { parseXml } from './xml.js';

describe('xml well-formedness checker', () => {
  it('accepts well-formed documents', () => {
    const root = parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a x="1 &amp; &#65;"><b/>t&lt;</a>\n');
    expect(root.attrs['x']).toBe('1 & A');
    expect(root.text).toBe('t<');
    expect(root.children[0]!.name).toBe('b');
  });

  for (const bad of [
    '<a><b></a>',
    '<a x=1/>',
    '<a x="1" x="2"/>',
    '<a>&foo;</a>',
    '<a>x & y</a>',
    '<a>x<y</a>',
    '<a x="<"/>',
    '<a>\x1b</a>',
    '<a>\ufffe</a>',
    '<a/><b/>',
    '<a>',
  ]) {
    it(`rejects ${JSON.stringify(bad)}`, () => {
      expect(() => parseXml(bad)).toThrow();
    });
  }
});
