// connector_stalling inside thinking: a run made only of connectors within the block, else the
// same connector opening sentence after sentence across the turn's blocks. The block's
// candidates are judged once it is complete and then start over.

import type { Finding } from '../types.js';
import { CONNECTOR_OPENING_CONFIDENCE, CONNECTOR_RUN_CONFIDENCE, finding, type MeasurementLog } from '../text/finding.js';
import type { ThinkingConfig } from './config.js';
import type { State } from './state.js';

export function connectorStalling(s: State, c: ThinkingConfig, log: MeasurementLog): Finding | null {
  if (s.runMax > 0) log.note('connector_stalling', 'run_repeats', s.runMax, c.connectorMinRepeats);
  if (s.openMax > 0) log.note('connector_stalling', 'openings', s.openMax, c.connectorOpeningMin);
  let out: Finding | null = null;
  if (s.runBest) {
    const reps = Math.floor(s.runBest.region / s.runBest.period);
    const m = log.record('connector_stalling', 'run_repeats', reps, c.connectorMinRepeats);
    out = finding(
      'thinking',
      'connector_stalling',
      CONNECTOR_RUN_CONFIDENCE,
      { pattern: 'run', period_units: s.runBest.period, repeats: reps, run_words: s.runBest.region, block: s.blocks },
      [m],
      [],
    );
  } else if (s.openBest > 0) {
    const m = log.record('connector_stalling', 'openings', s.openBest, c.connectorOpeningMin);
    out = finding(
      'thinking',
      'connector_stalling',
      CONNECTOR_OPENING_CONFIDENCE,
      { pattern: 'openings', openings: s.openBest, window_sentences: c.connectorOpeningWindow, block: s.blocks },
      [m],
      [],
    );
  }
  s.runBest = null;
  s.runMax = 0;
  s.openBest = 0;
  s.openMax = 0;
  return out;
}
