// thinking_stagnation: a block compared with the previous one by hash-sampled character n-grams;
// an identical block is stagnation with identical=true, as seed 002 folds it into adjacent-block
// similarity. Both blocks are compared at the coarser of their two samplings (the masks nest).

import type { Finding } from '../types.js';
import { finding, MAX_CONFIDENCE, type MeasurementLog } from '../text/finding.js';
import type { BlockSets } from '../text/ngram.js';
import type { ThinkingConfig } from './config.js';
import type { State } from './state.js';

/** A verbatim repeat of the previous block: as sure as text evidence gets. */
const IDENTICAL_CONFIDENCE = 0.95;

/** `set` (sampled at `mask`) is the last one `sets` built: the block `norm`'s. */
export function thinkingStagnation(
  s: State,
  c: ThinkingConfig,
  log: MeasurementLog,
  sets: BlockSets,
  norm: Uint16Array,
  set: Int32Array,
  mask: number,
): Finding | null {
  if (!s.prevSet) return null;
  const identical = sameCodes(norm, s.prevText);
  const sim = identical ? 1 : sets.similarityToLast(set, mask, s.prevSet, s.prevMask);
  const m = log.record('thinking_stagnation', 'similarity', sim, c.similarityAmbiguous);
  if (sim < c.similarityAmbiguous) return null;
  const ambiguous = !identical && sim < c.similarityStrong;
  const crossed = [m];
  if (!ambiguous) crossed.push(log.record('thinking_stagnation', 'similarity', sim, c.similarityStrong));
  const f = finding(
    'thinking',
    'thinking_stagnation',
    identical ? IDENTICAL_CONFIDENCE : Math.min(MAX_CONFIDENCE, sim),
    {
      similarity: Math.round(sim * 1000) / 1000,
      identical,
      block_chars: norm.length,
      previous_chars: s.prevChars,
      block: s.blocks,
    },
    crossed,
    [String.fromCharCode(...norm.subarray(0, 80))],
    ambiguous,
  );
  // A block that is the previous one verbatim is a loop filling the round's reasoning.
  f.dominant = identical;
  return f;
}

function sameCodes(a: Uint16Array, b: Uint16Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
