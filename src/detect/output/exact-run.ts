// Exact blocks, per word: a stretch of repeated shingles (each seen before, one period back)
// that holds a shingle seen min_repeats times, with a period longer than a short period. The
// stretch is followed from its first repeat, so its extent is exact however long it grows.

import type { Word } from '../text/tokens.js';
import type { OutputConfig } from './config.js';
import type { ExactRun, State } from './state.js';

export function trackExactRun(s: State, c: OutputConfig, w: Word, n: number, inShortPeriod: boolean): void {
  s.shingles.push(w.hash);
  const occ = s.shingles.occurrences;
  const per = s.shingles.period;
  // A repeat counts for this segment once the shingle ending here lies wholly in it.
  if (occ > 1 && per > c.shortPeriodMaxUnits && occ > s.exMax && n >= s.segFirstShingle) s.exMax = occ;
  // Changing data only matters once a copy could be reported (min_repeats): checking it for
  // every second and third copy cost a tenth of the detector on repetitive text.
  if (occ > 1 && per > c.shortPeriodMaxUnits && !inShortPeriod && (occ < c.exactBlockMinRepeats || !changingData(s, c, n))) {
    const r = s.exRun;
    if (r && r.last === n - 1) {
      r.last = n;
      r.occurrences = Math.max(r.occurrences, occ);
      r.period = per;
    } else {
      const k = c.exactBlockMinWords;
      const cap = s.wordStart.length;
      // The shingle's first word and the one a period back are in the ring (period < ring).
      s.exRun = {
        first: n,
        last: n,
        occurrences: occ,
        period: per,
        startChar: s.wordStart[(n - k + 1) % cap]!,
        copyStartChar: s.wordStart[(n - k + 1 - per) % cap]!,
      };
    }
    const cur = s.exRun!;
    if (cur.occurrences >= c.exactBlockMinRepeats && n >= s.segFirstShingle && (!s.exBest || cur.last - cur.first >= s.exBest.last - s.exBest.first)) {
      s.exBest = { ...cur };
    }
  } else {
    s.exRun = null;
  }
}

/**
 * Templated records, not a loop: the text between this copy and the previous one carries
 * different numbers than the text between the two copies before ("Batch 3: wrote orders.csv
 * with 1204 rows …", polling lines with elapsed times). A verbatim loop repeats its numbers too.
 */
function changingData(s: State, c: OutputConfig, n: number): boolean {
  const k = c.exactBlockMinWords;
  const cap = s.dataPrefix.length;
  const last = s.shingles.previous;
  const prev = s.shingles.beforePrevious;
  if (last < 0 || prev < 0 || n - prev >= cap) return false;
  const sum = (a: number, b: number) => (b > a ? s.dataPrefix[b % cap]! - s.dataPrefix[a % cap]! : 0);
  const current = sum(last, n - k);
  const before = sum(prev, last - k);
  return (current !== 0 || before !== 0) && current !== before;
}

/**
 * A run's extent in words and copies. Copies that touch (the run is at least a period long, as in
 * chanting) make one region from the first copy's start; otherwise the run is the repeated text
 * of the latest copy and the count is the shingle's occurrences in the window.
 */
export interface ExactShape {
  unitWords: number;
  runWords: number;
  repeats: number;
  startChar: number;
  /** Copies follow each other with nothing between them. */
  touching: boolean;
}

export function exactShape(run: ExactRun, k: number): ExactShape {
  const repeated = run.last - run.first + k;
  if (repeated >= run.period) {
    return {
      unitWords: run.period,
      runWords: repeated + run.period,
      repeats: Math.max(run.occurrences, Math.floor(repeated / run.period) + 1),
      startChar: run.copyStartChar,
      touching: true,
    };
  }
  return { unitWords: repeated, runWords: repeated, repeats: run.occurrences, startChar: run.startChar, touching: false };
}
