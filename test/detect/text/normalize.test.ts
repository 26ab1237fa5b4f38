// The markdown exclusions that need a line's neighbours. SPEC "What real sessions showed the seeds
// leave open (0.2)": "A line is a table row only inside a table (a delimiter row such as
// `|---|---|`, or two or more consecutive rows of the same column count); a sentence holding a
// shell pipeline (`npm ls | grep react | sort`) is prose. A line made only of box-drawing or block
// characters (U+2500–U+259F) is a thematic break."

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MarkdownNormalizer, rowShape } from '../../../src/detect/text/normalize.js';
import { ThinkingLoopDetector } from '../../../src/detect/thinking/index.js';
import { createOutputRoundDetector, defaultOutputConfig } from '../../../src/detect/output/index.js';
import { round, splitAt } from '../output/corpus.js';
import { detect, kinds } from '../output/helpers.js';

/** The normalized stream of `chunks`, through the string sink (one segment). */
function normalize(chunks: readonly string[]): string {
  const n = new MarkdownNormalizer();
  let out = '';
  const sink = { text: (p: string) => (out += p), boundary: () => (out += '¶') };
  for (const c of chunks) n.push(c, sink);
  n.boundary(sink);
  return out;
}

const norm = (text: string) => normalize([text]);

describe('table rows only inside a table', () => {
  it('a sentence holding a shell pipeline is prose', () => {
    expect(norm('Run npm ls | grep react | sort -u to list them.')).toBe('run npm ls | grep react | sort -u to list them.¶');
  });

  it('a table with a delimiter row is dropped, header included', () => {
    const t = 'Before.\n| name | status |\n|---|---|\n| api | up |\n| db | down |\nAfter.';
    expect(norm(t)).toBe('before. after.¶');
  });

  it('a table without outer pipes needs its delimiter row', () => {
    expect(norm('name | status\n--- | ---\napi | up\ndb | down\nAfter.')).toBe('after.¶');
    // Without the delimiter, two lines each quoting a pipeline are two sentences.
    expect(norm('Try ps aux | grep node | wc -l first.\nThen cat log | tail -5 | less again.')).toBe(
      'try ps aux | grep node | wc -l first. then cat log | tail -5 | less again.¶',
    );
  });

  it('two or more consecutive pipe-edged rows of the same column count are a table', () => {
    expect(norm('| a | b |\n| c | d |\nDone.')).toBe('done.¶');
    expect(norm('| a | b |\n| c | d |\n| e | f |\n| g | h | i |\nDone.')).toBe('done.¶');
  });

  it('a lone pipe-edged line, or edged rows of different column counts, are prose', () => {
    expect(norm('| just one |')).toBe('| just one |¶');
    expect(norm('Intro.\n| a | b |\nOutro.')).toBe('intro. | a | b | outro.¶');
    expect(norm('| a | b |\n| c | d | e |')).toBe('| a | b | | c | d | e |¶');
  });

  it('a table ends at the first line without a pipe; a blank line ends it too', () => {
    expect(norm('| a | b |\n|---|---|\n| 1 | 2 |\nx | y | z\n\nnext | line | here\nEnd.')).toBe(
      'next | line | here end.¶',
    );
  });

  it('a segment boundary ends a table: the next segment starts outside it', () => {
    const n = new MarkdownNormalizer();
    let out = '';
    const sink = { text: (p: string) => (out += p), boundary: () => (out += '¶') };
    n.push('| a | b |\n|---|---|\n| 1 | 2 |', sink);
    n.boundary(sink);
    n.push('| c | d | e |', sink);
    n.boundary(sink);
    expect(out).toBe('¶| c | d | e |¶');
  });

  it('escaped pipes are cell text, not separators', () => {
    expect(rowShape('| a \\| b | c |')).toEqual({ cols: 2, edged: true, delimiter: false });
    expect(rowShape('a | b | c')).toEqual({ cols: 3, edged: false, delimiter: false });
    expect(rowShape('|---|:--:|')).toEqual({ cols: 2, edged: true, delimiter: true });
    expect(rowShape('no pipes')).toBeNull();
  });

  it('lists, headings and fences still end a table and release a held line as prose', () => {
    expect(norm('| a | b |\n- item\nText.')).toBe('| a | b | text.¶');
    expect(norm('| a | b |\n```\ncode\n```\nText.')).toBe('| a | b | text.¶');
  });

  it('the classification does not depend on chunking (any cuts)', () => {
    const samples = [
      'Intro.\n| a | b |\n|---|---|\n| 1 | 2 |\nnpm ls | grep react | sort -u\n| x | y |\n| z | w |\nEnd | of | it\n',
      `${'x'.repeat(1500)} | a | b |\n| a | b |\n| c | d |\n${'| long | row |'.repeat(120)}\n| e | f |\ndone`,
      '╭─╭─╭─╭─\nText │ with a bar.\n━━━━━━\n| a |\n| b |\n',
    ];
    for (const s of samples) {
      const whole = norm(s);
      fc.assert(
        fc.property(fc.array(fc.nat({ max: s.length }), { maxLength: 30 }), (cuts) => {
          expect(normalize(splitAt(s, cuts))).toBe(whole);
        }),
        { numRuns: 80, seed: 7 },
      );
    }
  });
});

describe('shell pipelines are visible to both text detectors (issue 13 item 1)', () => {
  const chant = 'I will run npm ls | grep react | sort -u again to see which copy of react is installed.';

  it('output: a chanted sentence with a pipeline is a loop, one sentence per line or inline', () => {
    expect(kinds(detect(`${chant}\n`.repeat(6)))).toContain('exact_block');
    expect(kinds(detect(`${chant} `.repeat(6)))).toContain('exact_block');
  });

  it('thinking: circular thinking that quotes a pipeline is stagnation', () => {
    const block = `The duplicate react comes from a nested dependency. ${chant} Then I can dedupe it.`;
    const d = new ThinkingLoopDetector();
    d.feedBlock(block);
    const f = d.feedBlock(block);
    expect(f.map((x) => x.kind)).toEqual(['thinking_stagnation']);
    expect(f[0]!.evidence['identical']).toBe(true);
  });

  it('the seed negatives still hold: table rows and numeric tables form no loop', () => {
    expect(detect('| name | status |\n|---|---|\n' + '| worker | healthy and serving traffic normally |\n'.repeat(30))).toEqual([]);
    expect(detect('| worker | healthy and serving traffic normally |\n'.repeat(30))).toEqual([]);
  });
});

describe('box-drawing and block characters are dividers (issue 13 item 4)', () => {
  it('a line made only of U+2500–U+259F characters is dropped like ---', () => {
    expect(norm('Title\n╭─╭─╭─╭─╭─╭─╭─\nBody.\n━━━━━━━━━━\n▀▀▀ ▄▄▄ ███\nEnd.')).toBe('title body. end.¶');
  });

  it('a line with text between box characters is prose', () => {
    expect(norm('│ status: ok │')).toBe('│ status: ok │¶');
  });

  it('a divider repeated in every round is not near repetition (it was steered before this rule)', () => {
    const det = createOutputRoundDetector(defaultOutputConfig());
    const steps = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    steps.forEach((s, i) => {
      for (const divider of ['╭─'.repeat(300), '━'.repeat(600), '▀▄'.repeat(300)]) {
        const f = det.observe(round(`${divider}\nStep ${s} is done.`, { index: i + 1 })).findings;
        expect(f).toEqual([]);
      }
    });
    // The same rounds with a letter divider: the shape the detector would see without the rule.
    const plain = createOutputRoundDetector(defaultOutputConfig());
    const seen = steps.map((s, i) => plain.observe(round(`${'abcd'.repeat(150)}\nStep ${s} is done.`, { index: i + 1 })).findings);
    expect(seen.flat().map((f) => f.kind)).toContain('near_repetition');
  });
});
