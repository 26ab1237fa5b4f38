// The real detectors, as the ledger builds them for each turn from the (tier-scaled) config.

import { createOutputRoundDetector, readOutputConfig } from '../detect/output/index.js';
import { createThinkingRoundDetector, readThinkingConfig } from '../detect/thinking/index.js';
import {
  createToolBatchDetector,
  createToolCycleDetector,
  readToolBatchConfig,
  RoundDigester,
} from '../detect/tool-batch/index.js';
import type { DetectorFactories } from './build.js';

/**
 * Factories for one ledger (one file). The tool-batch and cycle detectors share one digester, so
 * each round's batch is canonicalized once and its tool results hashed at most once.
 */
export function createDetectorFactories(): DetectorFactories {
  const digester = new RoundDigester();
  return {
    toolBatch: (values) => createToolBatchDetector(readToolBatchConfig(values), digester),
    toolCycle: (values) => createToolCycleDetector(readToolBatchConfig(values), digester),
    output: (values) => createOutputRoundDetector(readOutputConfig(values)),
    thinking: (values) => createThinkingRoundDetector(readThinkingConfig(values)),
  };
}
