// Issue 53, item 11: the output detector reads at most MAX_ANALYSED_CHARS of a round's text (a
// 50 MB response cost 72 s and 1 GB; now 8.4 s and 351 MB through the CLI, most of it reading the
// file). A repeat of such a text is still judged on the whole: the analysed part and the length.

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/registry.js';
import { createOutputRoundDetector } from '../../../src/detect/output/index.js';
import { MAX_ANALYSED_CHARS } from '../../../src/detect/output/response.js';
import { round } from './corpus.js';

const det = () => createOutputRoundDetector(parseConfig({}).output);
const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 7919 + seed) % 50_021}`).join(' ');

describe('a response past what the output detector analyses (issue 53, item 11)', () => {
  const head = words(Math.ceil(MAX_ANALYSED_CHARS / 5), 1);

  it('three identical 6 MB responses are repeated_response; one that differs only past the analysed part in length is not', () => {
    const long = `${head} ${words(300_000, 2)}`;
    expect(long.length).toBeGreaterThan(MAX_ANALYSED_CHARS + 1_000_000);
    const d = det();
    const kinds = [long, long, long].map((t, i) => d.observe(round(t, { index: i + 1 })).findings.map((f) => f.kind));
    expect(kinds[2]).toContain('repeated_response');
    const e = det();
    const texts = [long, long, `${long} more`];
    const other = texts.map((t, i) => e.observe(round(t, { index: i + 1 })).findings.map((f) => f.kind));
    expect(other[2]).not.toContain('repeated_response');
  }, 120_000);

  it('a 24 MB response is observed in bounded time', () => {
    const text = `${head} ${'x'.repeat(20 * 1024 * 1024)}`;
    const started = performance.now();
    det().observe(round(text, { index: 1 }));
    expect(performance.now() - started).toBeLessThan(30_000);
  }, 120_000);
});
