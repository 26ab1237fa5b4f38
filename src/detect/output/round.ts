// The output detector as the ledger drives it: one instance per turn, each round's visible text
// fed as one segment, then a forced pass. A round reports each kind at most once (its strongest
// evidence), and a loop that continues into later rounds keeps reporting, which is what the
// ladder counts as an unheeded steer. A round whose own text adds no repetition reports nothing,
// however much of the loop the windows still hold (each round is a segment: see the detector).
// Whole text-only responses repeated in a row are `repeated_response` (response.ts).

import type { Round } from '../../model/transcript.js';
import type { ResumableRoundDetector, RoundObservation } from '../types.js';
import { markCarried, strongestPerKind } from '../text/finding.js';
import type { ArrayPool } from '../text/pool.js';
import type { OutputConfig } from './config.js';
import { OutputLoopDetector } from './detector.js';
import { analysedText, RepeatedResponses } from './response.js';

/** `pool`: shared by the detectors of successive turns, which reuse each other's windows. */
export function createOutputRoundDetector(config: OutputConfig, pool?: ArrayPool): ResumableRoundDetector {
  const detector = new OutputLoopDetector(config, pool);
  const responses = new RepeatedResponses(detector.config);
  return {
    name: 'output',
    snapshot: () => ({ detector: detector.snapshot(), responses: responses.snapshot() }),
    restore: (state: unknown) => {
      const o = state as { detector?: unknown; responses?: unknown } | null;
      // A snapshot from before repeated_response was the detector's state alone.
      if (o && typeof o === 'object' && 'detector' in o) {
        detector.restore(o.detector);
        responses.restore(o.responses);
      } else {
        detector.restore(state);
        responses.restore(null);
      }
    },
    release: () => detector.release(),
    observe(round: Round): RoundObservation {
      detector.beginRound();
      const findings = [...detector.feed(analysedText(round.text)), ...detector.endSegment(), ...detector.analyze()];
      markCarried(findings, detector.openingsCarried());
      const measurements = detector.takeMeasurements();
      const repeated = responses.observe(round);
      if (repeated.finding) findings.push(repeated.finding);
      if (repeated.measurement) measurements.push(repeated.measurement);
      return { findings: strongestPerKind(findings), measurements };
    },
  };
}
