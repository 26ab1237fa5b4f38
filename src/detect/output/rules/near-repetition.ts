// near_repetition: character n-gram Jaccard of the last two windows, at the most similar scale
// that has two full windows and whose newer window is at least half text of this segment; the
// ambiguous band (seed 002: 0.85-0.90) is promoted by compression corroboration only.

import { finding, MAX_CONFIDENCE } from '../../text/finding.js';
import { lzRedundancy } from '../../text/lz.js';
import { JACCARD_SCALES, NGRAM_CHARS } from '../../text/ngram.js';
import { compressionThreshold } from '../config.js';
import { overlap, type PassContext, silenced } from './context.js';
import type { Span } from '../state.js';
import { excerpt, tail } from '../window.js';

/** Seed 002: compression corroboration promotes an ambiguous near repetition at this confidence. */
export const PROMOTED_CONFIDENCE = 0.88;
/** A recurring phrase explains a near repetition whose newer window it fills at least half of. */
const NEAR_EXPLAINED = 0.5;
/** Statistic names of the Jaccard scales, built once. */
const JACCARD_STATS: readonly string[] = JACCARD_SCALES.map((len) => `jaccard_${len}`);

export function nearRepetition(p: PassContext): void {
  const { s, c, log, pos } = p;
  let best = -1;
  let bestLen = 0;
  let bestScale = 0;
  const segmentChars = pos - s.segStartPos;
  for (let i = 0; i < JACCARD_SCALES.length; i++) {
    const len = JACCARD_SCALES[i]!;
    if (2 * segmentChars < len) continue;
    const j = s.jac.jaccard(i);
    if (j < 0) continue;
    log.note('near_repetition', JACCARD_STATS[i]!, j, c.nearRepetitionAmbiguous);
    if (j > best) {
      best = j;
      bestLen = len;
      bestScale = i;
    }
  }
  if (!(best >= c.nearRepetitionAmbiguous && pos > s.nearReportedAt)) {
    if (p.repetition) s.nearReportedAt = pos;
    return;
  }
  s.nearReportedAt = pos;
  const region: Span = { start: pos - 2 * bestLen, end: pos };
  // Windows that are mostly a phrase already judged to recur once per round are similar
  // because of it: near repetition would only say the same thing louder.
  const newer: Span = { start: pos - bestLen, end: pos };
  const explained = p.recurringRun !== null && overlap(newer, p.recurringRun) >= NEAR_EXPLAINED * bestLen;
  if (p.repetition || explained || silenced(p, region)) return;
  const crossed = [log.record('near_repetition', JACCARD_STATS[bestScale]!, best, c.nearRepetitionAmbiguous)];
  let ambiguous = best < c.nearRepetitionStrong;
  let confidence = Math.min(MAX_CONFIDENCE, best);
  let redundancy: number | null = null;
  let promoted = false;
  if (ambiguous) {
    const threshold = compressionThreshold(c);
    redundancy = lzRedundancy(tail(s, 2 * bestLen));
    const m = log.record('near_repetition', 'compression_redundancy', redundancy, threshold);
    if (redundancy >= threshold) {
      // Seed 002: compression is the one factor that promotes the ambiguous band.
      ambiguous = false;
      promoted = true;
      confidence = PROMOTED_CONFIDENCE;
      crossed.push(m);
    }
  } else {
    crossed.push(log.record('near_repetition', JACCARD_STATS[bestScale]!, best, c.nearRepetitionStrong));
  }
  p.out.push(
    finding(
      'output',
      'near_repetition',
      confidence,
      {
        similarity: Math.round(best * 1000) / 1000,
        scale_chars: bestLen,
        ngram_chars: NGRAM_CHARS,
        compression_redundancy: redundancy === null ? null : Math.round(redundancy * 1000) / 1000,
        promoted,
        offset: Math.max(0, region.start),
      },
      crossed,
      excerpt(s, { start: pos - bestLen, end: pos }),
      ambiguous,
    ),
  );
}
