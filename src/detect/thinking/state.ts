// The thinking detector's state: what a snapshot carries (version 1's JSON shape, which the
// live hook saves between calls), and the per-word trackers of connector stalling.

import { isConnectorHash } from '../text/connectors.js';
import type { MeasurementLog } from '../text/finding.js';
import { MarkdownNormalizer } from '../text/normalize.js';
import { OpeningTracker, PeriodTracker } from '../text/period.js';
import type { ArrayPool } from '../text/pool.js';
import { assignState, encodeState } from '../text/state.js';
import { WordTokenizer, type Word } from '../text/tokens.js';
import type { ThinkingConfig } from './config.js';

/** Connector units: one to three words ("wait", "but actually", "wait, but actually"). */
const CONNECTOR_MAX_UNITS = 3;

export interface State {
  blocks: number;
  prevSet: Int32Array | null;
  prevMask: number;
  /** The previous block's normalized tail (bounded by max_block_chars), for the identity check. */
  prevText: Uint16Array;
  prevChars: number;
  norm: MarkdownNormalizer;
  tok: WordTokenizer;
  period: PeriodTracker;
  openings: OpeningTracker;
  words: number;
  /** Index of the first word after the last dropped line of structure: no connector run spans it. */
  breakWord: number;
  runBest: { period: number; region: number } | null;
  runMax: number;
  openBest: number;
  openMax: number;
  streak: number;
  streakTokens: number;
}

export function freshState(c: ThinkingConfig, pool: ArrayPool): State {
  return {
    blocks: 0,
    prevSet: null,
    prevMask: 0,
    prevText: new Uint16Array(0),
    prevChars: 0,
    norm: new MarkdownNormalizer(pool),
    tok: new WordTokenizer(),
    period: new PeriodTracker(CONNECTOR_MAX_UNITS),
    openings: new OpeningTracker(c.connectorOpeningWindow),
    words: 0,
    breakWord: 0,
    runBest: null,
    runMax: 0,
    openBest: 0,
    openMax: 0,
    streak: 0,
    streakTokens: 0,
  };
}

/** Connector runs inside the block and connector openers across the turn's blocks. */
export function trackWord(s: State, c: ThinkingConfig, w: Word): void {
  const n = s.words++;
  const p = s.period.push(w.hash);
  if (p > 0 && s.period.allConnectors(p)) {
    // Connectors with a dropped list line or heading between them were not a run as written.
    const region = Math.min(s.period.regionWords(p), n - s.breakWord + 1);
    const reps = Math.floor(region / p);
    if (reps > s.runMax) s.runMax = reps;
    if (reps >= c.connectorMinRepeats && (!s.runBest || region >= s.runBest.region)) s.runBest = { period: p, region };
  }
  if (w.sentenceStart) {
    const conn = isConnectorHash(w.hash);
    const same = s.openings.push(conn ? w.hash : 0);
    if (same > s.openMax) s.openMax = same;
    if (conn && same >= c.connectorOpeningMin && same >= s.openBest) s.openBest = same;
  }
}

export function encodeSnapshot(s: State, log: MeasurementLog): unknown {
  return encodeState({
    v: 1,
    scalars: { ...s, norm: undefined, tok: undefined, period: undefined, openings: undefined },
    norm: { ...s.norm },
    tok: { ...s.tok },
    period: { ...s.period },
    openings: { ...s.openings },
    measurements: log.entries(),
  });
}

/** Whether `snapshot` is one `decodeSnapshot` can read (checked before anything is touched). */
export function isSnapshot(snapshot: unknown): snapshot is Record<string, unknown> {
  const o = snapshot as Record<string, unknown>;
  return !!o && typeof o === 'object' && o['v'] === 1;
}

export function decodeSnapshot(o: Record<string, unknown>, c: ThinkingConfig, pool: ArrayPool): { state: State; measurements: Parameters<MeasurementLog['load']>[0] } {
  const s = freshState(c, pool);
  const scalars = { ...(o['scalars'] as Record<string, unknown>) };
  for (const k of ['norm', 'tok', 'period', 'openings']) delete scalars[k];
  assignState(s, scalars);
  assignState(s.norm, o['norm']);
  assignState(s.tok, o['tok']);
  assignState(s.period, o['period']);
  assignState(s.openings, o['openings']);
  return { state: s, measurements: (o['measurements'] as Parameters<MeasurementLog['load']>[0]) ?? [] };
}
