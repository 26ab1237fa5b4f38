// Seed 002's invariants for the output detector: "identical verdicts for repeated runs and across
// chunk boundaries, kind-scoped dedup, reset semantics, detection after window pruning, stride
// throttling of analysis passes, state snapshot/resume, sanitized misconfiguration and
// compression redundancy availability."

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/detect/types.js';
import {
  OUTPUT_KEYS,
  OutputLoopDetector,
  createOutputRoundDetector,
  defaultOutputConfig,
  type OutputConfig,
} from '../../../src/detect/output/index.js';
import { parseConfig } from '../../../src/config/registry.js';
import { ConfigError } from '../../../src/errors.js';
import { lzRedundancy } from '../../../src/detect/text/lz.js';
import { prose, round, splitAt, variedLoop } from './corpus.js';
import { detect, kinds } from './helpers.js';

function chunked(chunks: readonly string[], config: Partial<OutputConfig> = {}): Finding[] {
  const d = new OutputLoopDetector(config);
  const out: Finding[] = [];
  for (const c of chunks) out.push(...d.feed(c));
  out.push(...d.endSegment(), ...d.analyze());
  return out;
}

const SAMPLES = [
  `${prose(1, 900)}\nAnd then ${'la '.repeat(30)}\n${prose(2, 700)}`,
  `Intro.\n\`\`\`\n${'same line\n'.repeat(12)}\`\`\`\n${'Wait, but actually, '.repeat(4)}done. 1, 2, 3, 4, 5, 6.`,
  (prose(3, 500) + '\n').repeat(5),
  variedLoop(6, 4, 3),
  `| a | b |\n|---|---|\n${'| x | y |\n'.repeat(5)}- item\n- item\n# Title\n> quote\n---\nTHE END ${'DONE. '.repeat(8)}`,
];

describe('output invariants (seed 002)', () => {
  it('identical verdicts for repeated runs', () => {
    for (const s of SAMPLES) expect(detect(s)).toEqual(detect(s));
  });

  it('identical verdicts across chunk boundaries (any chunking)', () => {
    for (const s of SAMPLES) {
      const whole = detect(s);
      fc.assert(
        fc.property(fc.array(fc.nat({ max: s.length }), { maxLength: 40 }), (cuts) => {
          expect(chunked(splitAt(s, cuts))).toEqual(whole);
        }),
        { numRuns: 60, seed: 42 },
      );
    }
  });

  it('identical verdicts when fed one character at a time', () => {
    const s = SAMPLES[0]!;
    expect(chunked(s.split(''))).toEqual(detect(s));
  });

  it('kind-scoped dedup: the same evidence is not re-reported; new repetition reports again', () => {
    const d = new OutputLoopDetector();
    d.feed(`Then ${'la '.repeat(20)}`);
    d.endSegment();
    expect(kinds(d.analyze())).toEqual(['short_period']);
    expect(d.analyze()).toEqual([]);
    // A different kind later reports only itself …
    d.feed('Wait, wait, wait, wait, the sign.');
    d.endSegment();
    expect(kinds(d.analyze())).toEqual(['connector_stalling']);
    // … and the chant continuing in later text reports again.
    d.feed(`${'la '.repeat(10)}`);
    d.endSegment();
    expect(kinds(d.analyze())).toEqual(['short_period']);
  });

  it('a loop continuing across rounds reports in every round (the ladder counts unheeded steers)', () => {
    const det = createOutputRoundDetector(defaultOutputConfig());
    const block = prose(9, 400).replace(/\n/g, ' ');
    const seen: string[][] = [];
    for (let i = 1; i <= 6; i++) seen.push(det.observe(round(block, { index: i })).findings.map((f) => f.kind));
    expect(seen.slice(0, 2).flat()).toEqual([]);
    // Text-only responses: the third identical one is a repeated_response (SPEC 0.2) …
    expect(seen[2]).toEqual(['repeated_response']);
    // … and from the fourth copy on the block is an exact block as well.
    for (const k of seen.slice(3)) expect(k).toEqual(expect.arrayContaining(['exact_block', 'repeated_response']));
  });

  it('reset clears everything', () => {
    const d = new OutputLoopDetector();
    const s = SAMPLES[0]!;
    const firstRun = [...d.feed(s), ...d.endSegment(), ...d.analyze()];
    d.reset();
    expect(d.stats()).toMatchObject({ passes: 0, chars: 0, words: 0, windowChars: 0, shingles: 0 });
    expect([...d.feed(s), ...d.endSegment(), ...d.analyze()]).toEqual(firstRun);
  });

  it('detection after window pruning, with memory bounded by the window', () => {
    const d = new OutputLoopDetector({ windowChars: 8192 });
    d.feed(prose(5, 300_000));
    d.endSegment();
    d.analyze();
    const st = d.stats();
    expect(st.chars).toBeGreaterThan(290_000);
    expect(st.windowChars).toBeLessThanOrEqual(2 * 8192);
    expect(st.shingles).toBeLessThanOrEqual(2048);
    const unit = prose(6, 420).replace(/\n/g, ' ');
    const late = [...d.feed((unit + ' ').repeat(8)), ...d.endSegment(), ...d.analyze()];
    expect(kinds(late)).toContain('exact_block');
    // The verdict on the late loop is the one a fresh detector gives on the same tail.
    const fresh = detect((unit + ' ').repeat(8), { windowChars: 8192 }).map((f) => f.kind);
    expect(new Set(late.map((f) => f.kind))).toEqual(new Set(fresh));
  });

  it('"feed() is strided and analyze() forces a pass"', () => {
    // One sentence a line: passes happen where committed text crosses the stride.
    const text = prose(8, 10_000).replace(/\. /g, '.\n');
    const d = new OutputLoopDetector({ strideChars: 1000 });
    for (const ch of text) d.feed(ch);
    const strided = d.stats().passes;
    expect(strided).toBeGreaterThanOrEqual(8);
    expect(strided).toBeLessThanOrEqual(11);
    d.analyze();
    expect(d.stats().passes).toBe(strided + 1);
    const fine = new OutputLoopDetector({ strideChars: 100 });
    fine.feed(text);
    expect(fine.stats().passes).toBeGreaterThan(5 * strided);
    // A chant is reported by feed() itself once a stride is crossed, before any analyze().
    const s = new OutputLoopDetector({ strideChars: 64 });
    expect(kinds(s.feed(`Go ${'la '.repeat(60)}\n`))).toContain('short_period');
  });

  it('state snapshot/resume: a restored detector continues exactly (through JSON)', () => {
    for (const s of SAMPLES) {
      const whole = detect(s);
      const half = Math.floor(s.length / 2);
      const a = new OutputLoopDetector();
      const before = a.feed(s.slice(0, half));
      const snap = JSON.parse(JSON.stringify(a.snapshot())) as unknown;
      const b = new OutputLoopDetector();
      b.restore(snap);
      const after = [...b.feed(s.slice(half)), ...b.endSegment(), ...b.analyze()];
      expect([...before, ...after]).toEqual(whole);
    }
  });

  it("misconfiguration: out of range is the loader's error naming key and range; relations between keys are repaired with a warning", () => {
    expect(() => new OutputLoopDetector({ nearRepetitionAmbiguous: 1.7 })).toThrow(ConfigError);
    expect(() => new OutputLoopDetector({ windowChars: -5 })).toThrow(/output\.window_chars=-5 is out of range: output\.window_chars takes a whole number from 4096 to 4194304/);
    expect(() => new OutputLoopDetector({ strideChars: 0 })).toThrow(/output\.stride_chars/);
    expect(() => new OutputLoopDetector({ exactBlockMinRepeats: Number.NaN })).toThrow(/output\.exact_block_min_repeats/);
    expect(() => parseConfig({ 'output.near_repetition_strong': '2' })).toThrow(/configuration output\.near_repetition_strong=2 is out of range: output\.near_repetition_strong takes a ratio from 0 to 1/);
    const d = new OutputLoopDetector({ nearRepetitionAmbiguous: 0.95, connectorOpeningMin: 50 });
    expect(d.config.nearRepetitionStrong).toBe(0.95);
    expect(d.config.connectorOpeningMin).toBe(d.config.connectorOpeningWindow);
    expect(d.configWarnings()).toHaveLength(2);
    const warnings: string[] = [];
    const c = parseConfig({ 'output.connector_opening_min': 50, 'output.window_compression_ratio_min': 'none' }, (w) => warnings.push(w)).output;
    expect(c.connectorOpeningMin).toBe(c.connectorOpeningWindow);
    expect(c.windowCompressionRatioMin).toBeNull();
    expect(warnings).toEqual(['output.connector_opening_min (50) exceeds output.connector_opening_window (8); clamped']);
    // A parsed section is trusted as it is: the detector keeps the very object.
    expect(new OutputLoopDetector(c).config).toBe(c);
  });

  it('compression redundancy is available: high for loops, low for prose', () => {
    const loop = new OutputLoopDetector();
    loop.feed(variedLoop(8, 4, 1));
    loop.endSegment();
    expect(loop.redundancy()).toBeGreaterThan(0.65);
    const plain = new OutputLoopDetector();
    plain.feed(prose(12, 8000));
    plain.endSegment();
    expect(plain.redundancy()).toBeLessThan(0.55);
    expect(lzRedundancy('')).toBe(0);
    expect(lzRedundancy('abcdefgh'.repeat(100))).toBeGreaterThan(0.95);
  });
});

describe('degenerate input', () => {
  it('one huge token, one-character lines, pipes, fences, control and astral characters: no throw, sane kinds', () => {
    expect(kinds(detect('a'.repeat(100_000)))).toEqual(['near_repetition']);
    expect(kinds(detect('x\n'.repeat(20_000)))).toEqual(['short_period']);
    expect(detect('|'.repeat(5000))).toEqual([]);
    expect(detect('```\n'.repeat(1000))).toEqual([]);
    expect(detect('\u0000\u0001 \u001b[31m '.repeat(100))).toEqual(detect('\u0000\u0001 \u001b[31m '.repeat(100)));
    expect(kinds(detect('𝒳𝒴 '.repeat(3000)))).toContain('short_period');
  });
});

describe('output findings and config contract', () => {
  it('evidence is statistics only; at most three excerpts of at most 80 characters', () => {
    const texts = [...SAMPLES, variedLoop(14, 4, 99), (prose(13, 3744) + '\n').repeat(4)];
    for (const t of texts) {
      for (const f of detect(t)) {
        expect(f.detector).toBe('output');
        expect(f.strike).toBeNull();
        expect(f.confidence).toBeGreaterThanOrEqual(0);
        expect(f.confidence).toBeLessThanOrEqual(1);
        expect(f.excerpts.length).toBeLessThanOrEqual(3);
        for (const e of f.excerpts) expect(e.length).toBeLessThanOrEqual(80);
        for (const v of Object.values(f.evidence)) {
          if (typeof v === 'string') expect(['run', 'openings', 'numeric', 'letter']).toContain(v);
        }
        expect(f.crossed.length).toBeGreaterThan(0);
      }
    }
  });

  it('every round reports its measurements, near misses included', () => {
    const det = createOutputRoundDetector(defaultOutputConfig());
    const obs = det.observe(round(`Then ${'la '.repeat(4)} and ${prose(3, 1200)}`));
    expect(obs.findings).toEqual([]);
    const sp = obs.measurements.find((m) => m.kind === 'short_period');
    expect(sp).toMatchObject({ detector: 'output', statistic: 'repeats', value: 4, threshold: 6, direction: 'above' });
    expect(obs.measurements.some((m) => m.statistic === 'jaccard_256')).toBe(true);
  });

  it('every key has a reason, a default inside its range, and thresholds declare their tier', () => {
    expect(OUTPUT_KEYS.length).toBeGreaterThan(10);
    for (const k of OUTPUT_KEYS) {
      expect(k.key.startsWith('output.')).toBe(true);
      expect(k.reason.length).toBeGreaterThan(10);
      if (typeof k.default === 'number') {
        if (k.min !== undefined) expect(k.default).toBeGreaterThanOrEqual(k.min);
        if (k.max !== undefined) expect(k.default).toBeLessThanOrEqual(k.max);
      }
    }
    const tiered = OUTPUT_KEYS.filter((k) => k.tier).map((k) => k.key);
    expect(tiered).toEqual(
      expect.arrayContaining([
        'output.exact_block_min_repeats',
        'output.near_repetition_ambiguous',
        'output.near_repetition_strong',
        'output.compression_min_redundancy',
        'output.short_period_min_repeats',
      ]),
    );
    const values = Object.fromEntries(OUTPUT_KEYS.map((k) => [k.key, k.default]));
    expect(parseConfig(values).output).toEqual(defaultOutputConfig());
    expect(defaultOutputConfig()).toMatchObject({ nearRepetitionAmbiguous: 0.85, nearRepetitionStrong: 0.9 });
  });
});
