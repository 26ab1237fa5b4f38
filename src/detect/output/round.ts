// The output detector as the ledger drives it: one instance per turn, each round's visible text
// fed as one segment, then a forced pass. A round reports each kind at most once (its strongest
// evidence), and a loop that continues into later rounds keeps reporting, which is what the
// ladder counts as an unheeded steer. A round whose own text adds no repetition reports nothing,
// however much of the loop the windows still hold (each round is a segment: see the detector).

import type { ConfigValues } from '../../config/spec.js';
import type { Round } from '../../model/transcript.js';
import type { ResumableRoundDetector, RoundDetector, RoundObservation } from '../types.js';
import { strongestPerKind } from '../text/finding.js';
import { readOutputConfig, type OutputConfig } from './config.js';
import { OutputLoopDetector } from './detector.js';

export function createOutputRoundDetector(config: OutputConfig): ResumableRoundDetector {
  const detector = new OutputLoopDetector(config);
  return {
    name: 'output',
    snapshot: () => detector.snapshot(),
    restore: (state: unknown) => detector.restore(state),
    observe(round: Round): RoundObservation {
      const findings = [...detector.feed(round.text), ...detector.endSegment(), ...detector.analyze()];
      return { findings: strongestPerKind(findings), measurements: detector.takeMeasurements() };
    },
  };
}

/** Convenience for callers holding the flat configuration. */
export function createOutputRoundDetectorFrom(values: ConfigValues): RoundDetector {
  return createOutputRoundDetector(readOutputConfig(values));
}
