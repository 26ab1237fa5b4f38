// Seed 002's output-detector test list, positives and negatives. Each case names the seed
// sentence that fixes it: "Positives: irregular verbatim phrase repetition, inline chanting, near
// repetition with controlled variation, a ~936-token block repeated four times, connector
// stalling (single token and alternating n-gram), periods of one to five units, numeric and
// letter counter series …" and "Negatives: every entry of the plan's false-positive exclusion
// list (…) plus batch labels with a constant counter, legitimate polling status lines, ordinary
// prose with a repeated sentence, and short or empty input."

import { describe, expect, it } from 'vitest';
import { PROMOTED_CONFIDENCE } from '../../../src/detect/output/index.js';
import { prose, variedLoop } from './corpus.js';
import { detect, first, kinds, loopKinds } from './helpers.js';

describe('output positives (seed 002 test list)', () => {
  it('irregular verbatim phrase repetition: a phrase recurring between unrelated sentences', () => {
    const phrase = 'the migration script has to run before the service restarts';
    const fillers = [prose(1, 180), prose(2, 420), prose(3, 90), prose(4, 300), prose(5, 150)];
    const text = fillers.map((f) => `${f.trim()} Remember that ${phrase}.`).join('\n\n');
    const f = first(detect(text), 'exact_block');
    expect(f.evidence['repeats']).toBeGreaterThanOrEqual(4);
    expect(f.evidence['unit_words']).toBeGreaterThanOrEqual(8);
    expect(f.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('inline chanting: "la la la" inside a sentence is a period of one unit', () => {
    const f = first(detect(`And then the chorus goes ${'la '.repeat(24)}until the end.`), 'short_period');
    expect(f.evidence['period_units']).toBe(1);
    expect(f.evidence['repeats']).toBeGreaterThanOrEqual(20);
  });

  it('"DONE. DONE." chanting is a short period', () => {
    const f = first(detect('All tasks finished. ' + 'DONE. '.repeat(12)), 'short_period');
    expect(f.evidence['period_units']).toBe(1);
  });

  for (let p = 1; p <= 5; p++) {
    it(`periods of one to five units: period ${p}`, () => {
      const unit = ['done', 'ready', 'steady', 'go', 'fine'].slice(0, p).join(' ');
      const text = `The build said ${`${unit} `.repeat(8)}and stopped.`;
      const f = first(detect(text), 'short_period');
      expect(f.evidence['period_units']).toBe(p);
      expect(f.evidence['repeats']).toBeGreaterThanOrEqual(6);
    });
  }

  it('an all-caps chant is prose, not a divider: "an all-caps sentence is not a divider"', () => {
    expect(kinds(detect('WARNING THIS IS LOUD.\nSTOP STOP STOP STOP STOP STOP STOP STOP'))).toContain('short_period');
  });

  it('near repetition with controlled variation (window similarity, exact blocks held back)', () => {
    // The same text also forms verbatim blocks; raising their repeat bar isolates the n-gram signal.
    const f = first(detect(variedLoop(14, 4, 99), { exactBlockMinRepeats: 1000 }), 'near_repetition');
    expect(f.evidence['similarity']).toBeGreaterThanOrEqual(0.85);
    expect(f.ambiguous).toBe(false);
  });

  it('near repetition with controlled variation is a loop with default thresholds too', () => {
    expect(loopKinds(detect(variedLoop(14, 4, 99))).length).toBeGreaterThan(0);
  });

  it('"compression corroboration … is the only detector-level factor that promotes a verdict into the strong band (0.88 confidence, no arbitration …)"', () => {
    const text = variedLoop(20, 2, 5);
    const cfg = { exactBlockMinRepeats: 1000 };
    const promoted = detect(text, cfg).filter((f) => f.kind === 'near_repetition' && f.evidence['promoted'] === true);
    expect(promoted.length).toBeGreaterThan(0);
    for (const f of promoted) {
      expect(f.confidence).toBe(PROMOTED_CONFIDENCE);
      expect(f.ambiguous).toBe(false);
      expect(f.evidence['compression_redundancy']).toBeGreaterThanOrEqual(0.65);
      expect(f.crossed.map((m) => m.statistic)).toContain('compression_redundancy');
    }
    // Without corroboration the same evidence stays in the ambiguous band (the judge is asked).
    const bare = detect(text, { ...cfg, compressionMinRedundancy: 0.99 }).filter((f) => f.kind === 'near_repetition');
    expect(bare.length).toBeGreaterThan(0);
    expect(bare.some((f) => f.ambiguous && f.confidence! >= 0.85 && f.confidence! < 0.9)).toBe(true);
    // "override window_compression_ratio_min": when set it replaces compression_min_redundancy.
    const overridden = detect(text, { ...cfg, compressionMinRedundancy: 0.1, windowCompressionRatioMin: 0.99 });
    expect(overridden.some((f) => f.kind === 'near_repetition' && f.evidence['promoted'] === true)).toBe(false);
  });

  it('a ~936-token block repeated four times is an exact block', () => {
    const block = prose(21, 3744).slice(0, 3744); // ~936 tokens at ~4 characters a token
    // Strided passes report the fourth copy as it arrives; together they cover the whole block.
    const found = detect((block + '\n\n').repeat(4)).filter((f) => f.kind === 'exact_block');
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((f) => f.evidence['repeats'] === 4)).toBe(true);
    expect(Math.max(...found.map((f) => f.evidence['unit_chars'] as number))).toBeGreaterThan(3000);
    expect(Math.max(...found.map((f) => f.evidence['period_words'] as number))).toBeGreaterThan(500);
  });

  it('a 400-character unit repeated 8 times is a loop ("no upper bound on the period")', () => {
    const unit = prose(31, 400).replace(/\n/g, ' ').slice(0, 400);
    const text = (unit + ' ').repeat(8);
    const f = first(detect(text), 'exact_block');
    expect(f.evidence['unit_chars']).toBeGreaterThanOrEqual(350);
    expect(f.evidence['period_words']).toBeGreaterThan(50);
  });

  it('connector stalling: a single connector token repeated', () => {
    const f = first(detect('The answer is four. Wait, wait, wait, wait, the sign flips.'), 'connector_stalling');
    expect(f.evidence['pattern']).toBe('run');
    expect(f.evidence['period_units']).toBe(1);
  });

  it('connector stalling: an alternating connector n-gram ("wait, but actually, wait, but actually")', () => {
    const f = first(detect('So the total is 12. Wait, but actually, wait, but actually, wait, but actually, it is 13.'), 'connector_stalling');
    expect(f.evidence['period_units']).toBe(3);
    expect(f.evidence['repeats']).toBe(3);
    expect(kinds(detect('Wait, but actually, wait, but actually, wait, but actually.'))).not.toContain('short_period');
  });

  it('connector stalling: one connector re-opening most sentences', () => {
    const text =
      'Hmm. Wait, the cache is stale. Wait, the key was rotated. Wait, that breaks the login. Wait, the session survives. ' +
      'Wait, unless the token is reused. Wait, I should check the logs. Wait, the logs are empty.';
    const f = first(detect(text), 'connector_stalling');
    expect(f.evidence['pattern']).toBe('openings');
    expect(f.confidence).toBeLessThan(0.9);
  });

  it('a numeric counter series is predictable_drift at the low predictable_drift_confidence, never a loop', () => {
    const f = detect('Counting the replicas: 1, 2, 3, 4, 5, 6, 7 and that is all of them.');
    expect(kinds(f)).toEqual(['predictable_drift']);
    expect(f[0]!.confidence).toBe(0.35);
    expect(f[0]!.loop).toBe(false);
    expect(f[0]!.evidence['series']).toBe('numeric');
  });

  it('a letter counter series ("a) b) c)") is predictable_drift', () => {
    const f = detect('Pick one: a) red b) green c) blue d) pink e) gray f) teal.');
    expect(kinds(f)).toEqual(['predictable_drift']);
    expect(f[0]!.evidence['series']).toBe('letter');
  });

  it('"the progression that explains an otherwise-repetitive region (the repetition candidates stay silent for that analysis)"', () => {
    let text = '';
    for (let i = 1; i <= 40; i++) {
      text += `Attempt ${i}: I will check the cache configuration, compare it with the deployed manifest, and retry the request against the primary endpoint once more. `;
    }
    // Without the classifier the region reads as near repetition …
    expect(kinds(detect(text, { predictableDriftMinTerms: 10000 }))).toContain('near_repetition');
    // … with it, only the low-confidence drift is reported, and it says it explained repetition.
    const f = detect(text);
    expect(kinds(f)).toEqual(['predictable_drift']);
    expect(f.some((x) => x.evidence['explains_repetition'] === true)).toBe(true);
  });
});

describe('output negatives (seed 002 test list)', () => {
  const none = (text: string) => expect(detect(text)).toEqual([]);

  it('repeated code lines in fenced blocks', () => {
    none('Here is the loop:\n```js\n' + 'console.log("retrying the same request again");\n'.repeat(40) + '```\nThat prints forty lines.');
    none('~~~\n' + 'la la la la la la la la la la\n'.repeat(10) + '~~~\n');
  });

  it('table rows', () => {
    none('| name | status |\n|---|---|\n' + '| worker | healthy and serving traffic normally |\n'.repeat(30));
  });

  it('numeric tables (a counter column in a table is no series)', () => {
    let t = '| # | value | delta |\n| --- | ---: | ---: |\n';
    for (let i = 1; i <= 30; i++) t += `| ${i} | ${i * 10} | 10 |\n`;
    none(t);
  });

  it('"a table needs pipes": the same chant without pipes is prose', () => {
    expect(kinds(detect('la la la la la la la la la la'))).toContain('short_period');
  });

  it('list labels (a dash bullet is a list item; numbered items are no series)', () => {
    none('- Status: pending review by the owning team\n'.repeat(20));
    let t = '';
    for (let i = 1; i <= 20; i++) t += `${i}. Step: run the same migration script again\n`;
    none(t);
    none('* la la la la la la la la la\n+ la la la la la la la la la\n');
  });

  it('headings', () => {
    let t = '';
    for (let i = 0; i < 12; i++) t += `## Results for the nightly integration run\n\n${prose(40 + i, 200)}\n\n`;
    none(t);
  });

  it('quotes', () => {
    none('> Note: the retry budget is shared across all workers in the pool.\n'.repeat(25));
  });

  it('thematic breaks', () => {
    let t = '';
    for (let i = 0; i < 15; i++) t += `${prose(60 + i, 120)}\n\n---\n\n* * *\n\n___\n\n`;
    none(t);
  });

  it('batch labels with a constant counter', () => {
    const files = ['orders_0117.csv', 'refunds_9921.csv', 'ledger_eu.csv', 'ledger_us.csv', 'returns_q3.csv', 'vendors.csv', 'skus_2024.csv', 'carts_live.csv'];
    const rows = [1204, 88, 3120, 977, 15, 402, 2210, 61];
    none(files.map((f, i) => `Batch 3: wrote ${f} with ${rows[i]} rows to the staging bucket.`).join('\n'));
  });

  it('legitimate polling status lines (the attempt counter explains them; no loop kind)', () => {
    const secs = [30, 30, 45, 30, 60, 30, 30];
    const text = secs.map((s, i) => `Build 4821 is still running (attempt ${i + 1} of 10); the next status check is in ${s}s.`).join('\n');
    expect(loopKinds(detect(text))).toEqual([]);
  });

  it('ordinary prose with one repeated sentence', () => {
    const p = prose(70, 3000);
    const s = 'Make sure the migration finished before you restart the service.';
    none(`${p.slice(0, 1500)} ${s} ${p.slice(1500)} ${s}`);
    none(prose(71, 60000));
  });

  it('short and empty input', () => {
    none('');
    none('ok');
    none('Done.');
    none('\n\n   \n');
  });
});
