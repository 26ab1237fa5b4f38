// The text detectors' fast path against the old, simple one. Issue 30 asked for speed with
// "verdicts byte-identical": the oracle is main's code at fbc8a1f kept verbatim under ./oracle
// (only its imports repointed), and every generated text, however chunked, must give the same
// findings, the same measurements and the same snapshot JSON from both. The snapshots matter on
// their own: the live hook saves detector state between calls, so a state written by the old
// build must resume in the new one (and the other way round) and go on exactly as before.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputLoopDetector, type OutputConfig } from '../../src/detect/output/index.js';
import { ThinkingLoopDetector, type ThinkingConfig } from '../../src/detect/thinking/index.js';
import { ArrayPool } from '../../src/detect/text/pool.js';
import { OutputLoopDetector as OldOutput } from './oracle/output/detector.js';
import { ThinkingLoopDetector as OldThinking } from './oracle/thinking/detector.js';

const WORDS = [
  'the', 'a', 'of', 'step', 'file', 'tests', 'pass', 'Wait,', 'but', 'actually,', 'hmm.', 'so', 'ok',
  'DONE.', 'la', 'b)', 'c)', '3.', 'x|y', 'naïve', 'données', '—', 'end!', 'why?', '12', '2024', 'ka-ro',
  'Let', 'me', 'check', 'output.', 'batch', 'rows', '1204', 'of', '10',
];

/** Lines and runs that exercise every normaliser branch and every signal. */
const piece: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 30 }).map((w) => w.join(' ')),
  fc
    .tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 14 }), fc.integer({ min: 2, max: 9 }), fc.constantFrom(' ', '\n', '. ', '\n\n'))
    .map(([w, n, sep]) => Array.from({ length: n }, () => w.join(' ')).join(sep)),
  fc.integer({ min: 1, max: 30 }).chain((start) => fc.integer({ min: 2, max: 12 }).map((n) => Array.from({ length: n }, (_, i) => `step ${start + i} done`).join('. '))),
  fc.constantFrom(
    '\n```js\nconst x = 1;\nconst x = 1;\n```\n',
    '\n~~~~\nsame\n~~~\nstill code\n~~~~\n',
    '\n- item one\n- item two\n* three\n1. first\n2) second\n',
    '\n| a | b |\n|---|:-:|\n| x | y |\n| x | y |\n',
    '\n| a | b |\n| c | d |\nprose after\n',
    'npm ls | grep react | sort -u',
    '\n# Heading\n> quote\n---\n* * *\n===\n',
    '\n╭──────╮\n━━━━━\n',
    '\u00a0\u2003\u3000 spaced\u200b out\t\r\n',
    '\n\n',
    ' ',
  ),
  // An over-long line is committed in slices (LINE_SLICE) before its newline arrives.
  fc.integer({ min: 1000, max: 3000 }).map((n) => 'wait '.repeat(Math.ceil(n / 5)).slice(0, n)),
  fc.string({ maxLength: 40 }),
);

/** Rounds of text, each cut into deltas at arbitrary points. */
const rounds = fc.array(
  fc.tuple(fc.array(piece, { minLength: 1, maxLength: 12 }).map((p) => p.join(' ')), fc.array(fc.nat(), { maxLength: 6 })),
  { minLength: 1, maxLength: 8 },
);

function cut(text: string, at: readonly number[]): string[] {
  const points = [...new Set(at.map((x) => (text.length === 0 ? 0 : x % text.length)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
}

const OUTPUT_CONFIGS: Partial<OutputConfig>[] = [
  {},
  // A small stride and window: many passes, rings that wrap, words leaving the shingle window.
  { strideChars: 37, windowChars: 4096, exactBlockMinWords: 3, exactBlockMinRepeats: 3 },
  { strideChars: 200, shortPeriodMaxUnits: 3, connectorOpeningWindow: 4, predictableDriftMinTerms: 3 },
];

type Output = Pick<OutputLoopDetector, 'feed' | 'endSegment' | 'analyze' | 'takeMeasurements' | 'snapshot' | 'restore' | 'stats' | 'redundancy'>;

/** Every call's answer, in order, as JSON: the two paths must write the same bytes. */
function playOutput(d: Output, fresh: () => Output, input: [string, number[]][], resumeAt: number): string[] {
  const log: string[] = [];
  let cur = d;
  input.forEach(([text, at], i) => {
    if (i === resumeAt) {
      const saved = JSON.stringify(cur.snapshot());
      log.push(saved);
      cur = fresh();
      cur.restore(JSON.parse(saved));
    }
    for (const delta of cut(text, at)) log.push(JSON.stringify(cur.feed(delta)));
    log.push(JSON.stringify(cur.endSegment()), JSON.stringify(cur.analyze()), JSON.stringify(cur.takeMeasurements()));
    log.push(JSON.stringify(cur.stats()), String(cur.redundancy()));
  });
  log.push(JSON.stringify(cur.snapshot()));
  return log;
}

describe('the output detector fast path gives the old path exactly', () => {
  it.each(OUTPUT_CONFIGS.map((c, i) => [i, c] as const))('on random texts, config %i', (_i, config) => {
    const pool = new ArrayPool();
    fc.assert(
      fc.property(rounds, fc.nat({ max: 8 }), (input, resumeAt) => {
        const now = playOutput(new OutputLoopDetector(config, pool), () => new OutputLoopDetector(config, pool), input, resumeAt);
        const old = playOutput(new OldOutput(config), () => new OldOutput(config), input, resumeAt);
        expect(now).toEqual(old);
      }),
      { numRuns: 150 },
    );
  });

  it('a state saved by the old path resumes in the new one, and the other way round', () => {
    fc.assert(
      fc.property(rounds, rounds, (before, after) => {
        const a = new OldOutput({});
        const b = new OutputLoopDetector({});
        for (const [text] of before) {
          a.feed(text);
          a.endSegment();
          a.analyze();
          b.feed(text);
          b.endSegment();
          b.analyze();
        }
        const fromOld = new OutputLoopDetector({});
        fromOld.restore(JSON.parse(JSON.stringify(a.snapshot())));
        const fromNew = new OldOutput({});
        fromNew.restore(JSON.parse(JSON.stringify(b.snapshot())));
        expect(playOutput(fromOld, () => new OutputLoopDetector({}), after, -1)).toEqual(playOutput(fromNew, () => new OldOutput({}), after, -1));
      }),
      { numRuns: 60 },
    );
  });
});

const THINKING_CONFIGS: Partial<ThinkingConfig>[] = [{}, { minBlockChars: 8, maxBlockChars: 256, connectorOpeningWindow: 3 }];

type Thinking = Pick<ThinkingLoopDetector, 'feedBlock' | 'observeUsage' | 'takeMeasurements' | 'snapshot' | 'restore'>;

const blocks = fc.array(
  fc.oneof(
    fc.array(piece, { minLength: 1, maxLength: 10 }).map((p) => ({ text: p.join(' '), usage: null })),
    fc.record({ text: fc.constant(null), usage: fc.record({ reasoningTokens: fc.option(fc.nat({ max: 40000 })), visibleTokens: fc.nat({ max: 200 }), opaque: fc.boolean() }) }),
  ),
  { minLength: 1, maxLength: 12 },
);

function playThinking(d: Thinking, fresh: () => Thinking, input: { text: string | null; usage: Parameters<Thinking['observeUsage']>[0] | null }[], resumeAt: number): string[] {
  const log: string[] = [];
  let cur = d;
  input.forEach((b, i) => {
    if (i === resumeAt) {
      const saved = JSON.stringify(cur.snapshot());
      log.push(saved);
      cur = fresh();
      cur.restore(JSON.parse(saved));
    }
    if (b.text !== null) log.push(JSON.stringify(cur.feedBlock(b.text)));
    if (b.usage) log.push(JSON.stringify(cur.observeUsage(b.usage)));
    log.push(JSON.stringify(cur.takeMeasurements()));
  });
  log.push(JSON.stringify(cur.snapshot()));
  return log;
}

describe('the thinking detector fast path gives the old path exactly', () => {
  it.each(THINKING_CONFIGS.map((c, i) => [i, c] as const))('on random blocks, config %i', (_i, config) => {
    const pool = new ArrayPool();
    fc.assert(
      fc.property(blocks, fc.nat({ max: 12 }), (input, resumeAt) => {
        // A block repeated verbatim is the identical-thinking path.
        const doubled = input.flatMap((b, i) => (i % 3 === 1 ? [b, b] : [b]));
        const now = playThinking(new ThinkingLoopDetector(config, pool), () => new ThinkingLoopDetector(config, pool), doubled, resumeAt);
        const old = playThinking(new OldThinking(config), () => new OldThinking(config), doubled, resumeAt);
        expect(now).toEqual(old);
      }),
      { numRuns: 200 },
    );
  });
});
