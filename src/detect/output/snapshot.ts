// The output detector's state as plain JSON, for the live hook, which saves it between calls.
// The shape is version 1's and must stay so: a state file written by an earlier build resumes in
// this one (test/detect/fast-path.property.test.ts restores main's snapshots).

import type { MeasurementLog } from '../text/finding.js';
import type { ArrayPool } from '../text/pool.js';
import { assignState, encodeState } from '../text/state.js';
import type { OutputConfig } from './config.js';
import { freshState, type State } from './state.js';

export function encodeSnapshot(s: State, config: Readonly<OutputConfig>, log: MeasurementLog): unknown {
  // The n-gram counts catch up lazily; the saved state is the caught-up one, as it always was.
  s.jac.settle();
  return encodeState({
    v: 1,
    config,
    scalars: {
      words: s.words,
      passes: s.passes,
      nextPassAt: s.nextPassAt,
      nearReportedAt: s.nearReportedAt,
      segStartPos: s.segStartPos,
      segStartWord: s.segStartWord,
      segFirstShingle: s.segFirstShingle,
      segEnded: s.segEnded,
      segRaw: s.segRaw,
      rawFresh: s.rawFresh,
      exRun: s.exRun,
      exBest: s.exBest,
      exMax: s.exMax,
      shBest: s.shBest,
      shMax: s.shMax,
      shStart: s.shStart,
      cnStart: s.cnStart,
      cnBreakWord: s.cnBreakWord,
      cnBest: s.cnBest,
      cnMax: s.cnMax,
      opBest: s.opBest,
      opMax: s.opMax,
      progressions: s.progressions,
      drBest: s.drBest,
      drMax: s.drMax,
    },
    wordStart: s.wordStart,
    wordEnd: s.wordEnd,
    dataPrefix: s.dataPrefix,
    chars: s.chars,
    norm: { ...s.norm },
    tok: { ...s.tok },
    jac: { ...s.jac },
    shingles: { ...s.shingles },
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

/** A fresh state with the snapshot's fields, and the measurements it carried. */
export function decodeSnapshot(o: Record<string, unknown>, config: OutputConfig, pool: ArrayPool): { state: State; measurements: Parameters<MeasurementLog['load']>[0] } {
  const s = freshState(config, pool);
  assignState(s, o['scalars']);
  assignState(s.norm, o['norm']);
  assignState(s.tok, o['tok']);
  assignState(s.jac, o['jac']);
  s.jac.restored();
  assignState(s.shingles, o['shingles']);
  assignState(s.period, o['period']);
  assignState(s.openings, o['openings']);
  const arrays = assignState(
    { wordStart: s.wordStart, wordEnd: s.wordEnd, dataPrefix: s.dataPrefix, chars: s.chars },
    { wordStart: o['wordStart'], wordEnd: o['wordEnd'], dataPrefix: o['dataPrefix'], chars: o['chars'] },
  );
  s.chars = arrays.chars;
  s.wordStart = arrays.wordStart;
  s.wordEnd = arrays.wordEnd;
  s.dataPrefix = arrays.dataPrefix;
  return { state: s, measurements: (o['measurements'] as Parameters<MeasurementLog['load']>[0]) ?? [] };
}
