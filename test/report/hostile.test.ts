// A transcript whose session id, path, model, tool kind, evidence, excerpts and skip reasons
// carry ESC, OSC, CSI, BEL, C1 and bidi sequences: nothing of it reaches any output raw.

import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { REPORT_FORMATS } from '../../src/vocabulary.js';
import { hostileReport } from './fixtures.js';
import { opts } from './helpers.js';
import { parseXml } from './xml.js';

const FULL = { explain: true, excerpts: true, verbose: true };

describe('hostile transcript text', () => {
  for (const format of ['table', 'markdown', 'github', 'junit'] as const) {
    it(`${format}: no ESC, BEL, C1, bidi or CR byte from the transcript`, async () => {
      for (const color of [false, true]) {
        let out = await renderReport(hostileReport(), format, opts({ ...FULL, color, width: 100 }));
        // Our own colour codes are allowed in the table; take them out and look for anything else.
        if (format === 'table') out = out.replace(/\x1b\[[0-9;]*m/g, '');
        expect(out).not.toContain('\x1b');
        expect(out).not.toContain('\x07');
        expect(out).not.toContain('\r');
        expect(out).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
        expect(out).toContain('\\x1b');
      }
    });
  }

  it('table in colour only carries SGR colour codes', async () => {
    const out = await renderReport(hostileReport(), 'table', opts({ ...FULL, color: true }));
    expect(out.replace(/\x1b\[[0-9;]*m/g, '')).not.toContain('\x1b');
    for (const m of out.matchAll(/\x1b(.)/g)) expect(m[1]).toBe('[');
  });

  it('github: transcript text cannot start a new workflow command', async () => {
    const out = await renderReport(hostileReport(), 'github', opts());
    for (const line of out.trimEnd().split('\n')) {
      expect(line.startsWith('::') || line.startsWith('loopledger: ')).toBe(true);
    }
  });

  it('junit stays well-formed', async () => {
    const out = await renderReport(hostileReport(), 'junit', opts(FULL));
    expect(() => parseXml(out)).not.toThrow();
  });

  it('every format renders without a raw ESC or BEL', async () => {
    for (const f of REPORT_FORMATS) {
      const out = await renderReport(hostileReport(), f, opts({ ...FULL, color: false }));
      expect(out, f).not.toMatch(/[\x07\x1b]/);
    }
  });

  it('json keeps the text lossless (escaped), so machines still see what was there', async () => {
    const r = hostileReport();
    const out = await renderReport(r, 'json', opts({ excerpts: true }));
    expect(JSON.parse(out)).toEqual(r);
  });
});
