// A deterministic synthetic corpus for the text detectors: seeded prose without loops, and the
// loop shapes of seed 002's test list built on top of it.

import type { Round, ThinkingBlock, Usage } from '../../../src/model/transcript.js';

/** mulberry32: a tiny seeded PRNG, so every generated text is the same on every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = [
  'the', 'a', 'of', 'to', 'in', 'is', 'that', 'for', 'it', 'with', 'as', 'was', 'on', 'be', 'by',
  'this', 'from', 'are', 'at', 'which', 'not', 'have', 'has', 'its', 'their', 'can', 'will', 'more',
  'when', 'one', 'all', 'would', 'there', 'each', 'other', 'into', 'these', 'some', 'only', 'what',
];
const SYLLABLES = [
  'ka', 'ro', 'mi', 'tel', 'sun', 'dra', 'ven', 'lo', 'pra', 'zi', 'mor', 'qua', 'bel', 'fin', 'gri',
  'sto', 'nev', 'ul', 'tor', 'es', 'an', 'vi', 'den', 'sar', 'cor', 'pil', 'mut', 'hex', 'yon', 'rab',
];

export function pseudoWord(r: () => number): string {
  const n = 2 + Math.floor(r() * 2);
  let w = '';
  for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
  return w;
}

/** One sentence of 8–20 words: about half function words, half a large pseudo vocabulary. */
function sentence(r: () => number): string {
  const n = 8 + Math.floor(r() * 13);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(r() < 0.45 ? COMMON[Math.floor(r() * COMMON.length)]! : pseudoWord(r));
  const s = words.join(' ');
  return s[0]!.toUpperCase() + s.slice(1) + '.';
}

/** Loop-free prose of at least `chars` characters, in paragraphs. */
export function prose(seed: number, chars: number): string {
  const r = rng(seed);
  let out = '';
  let inPara = 0;
  while (out.length < chars) {
    out += sentence(r);
    inPara++;
    if (inPara >= 5) {
      out += '\n\n';
      inPara = 0;
    } else out += ' ';
  }
  return out;
}

export function round(text: string, opts: { index?: number; thinking?: ThinkingBlock[]; usage?: Usage | null } = {}): Round {
  return {
    turn: 1,
    index: opts.index ?? 1,
    line: null,
    text,
    thinking: opts.thinking ?? [],
    calls: [],
    answers: [],
    usage: opts.usage ?? null,
    model: null,
    timestamp: null,
  };
}

/** Split `text` at the given offsets (sorted, deduplicated, inside the text). */
export function splitAt(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(text.length, c))))].sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(text.slice(prev, p));
    prev = p;
  }
  out.push(text.slice(prev));
  return out;
}

/** A loop whose copies differ in every `every`-th word, drawn from three synonyms. */
export function variedLoop(copies: number, every: number, seed: number): string {
  const base = prose(11, 600).replace(/\n/g, ' ').split(' ');
  const synonyms = [
    ['quickly', 'rapidly', 'swiftly'],
    ['file', 'document', 'record'],
    ['checks', 'verifies', 'inspects'],
    ['again', 'anew', 'twice'],
  ];
  const r = rng(seed);
  let t = '';
  for (let k = 0; k < copies; k++) {
    t += base.map((w, i) => (i % every === 0 ? synonyms[i % 4]![Math.floor(r() * 3)] + ' ' + w : w)).join(' ') + '\n\n';
  }
  return t;
}
