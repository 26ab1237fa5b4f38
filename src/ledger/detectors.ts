// The real detectors, as the ledger builds them for each turn from the (tier-scaled) config.

import { createOutputRoundDetector } from '../detect/output/index.js';
import { ArrayPool } from '../detect/text/pool.js';
import { createThinkingRoundDetector } from '../detect/thinking/index.js';
import {
  createNoProgressRoundDetector,
  createRecurringFailureRoundDetector,
  createToolBatchDetector,
  createToolCycleDetector,
  RoundDigester,
} from '../detect/tool-batch/index.js';
import type { ResumableRoundDetector } from '../detect/types.js';
import type { DetectorFactories } from './turn.js';

/**
 * Factories for one ledger (one file). The tool-batch and cycle detectors share one digester, so
 * each round's batch is canonicalized once and its tool results hashed at most once; the
 * configuration arrives parsed (once per tier), so a turn's detectors cost no reading; the text
 * detectors share `pool`, so a turn's windows are an earlier turn's, given back (a pool may
 * serve several ledgers, as the files analyzed on one thread).
 */
export function createDetectorFactories(pool = new ArrayPool()): Required<DetectorFactories<ResumableRoundDetector>> {
  const digester = new RoundDigester();
  return {
    toolBatch: (config) => createToolBatchDetector(config.toolBatch, digester),
    toolCycle: (config) => createToolCycleDetector(config.toolBatch, digester),
    output: (config) => createOutputRoundDetector(config.output, pool),
    thinking: (config) => createThinkingRoundDetector(config.thinking, pool),
    session: (config) => createRecurringFailureRoundDetector(config.toolBatch),
    noProgress: (config) => createNoProgressRoundDetector(config.toolBatch),
  };
}
