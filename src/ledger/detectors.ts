// The real detectors, as the ledger builds them for each turn from the (tier-scaled) config.

import { createOutputRoundDetector, readOutputConfig } from '../detect/output/index.js';
import { createThinkingRoundDetector, readThinkingConfig } from '../detect/thinking/index.js';
import {
  createToolBatchDetector,
  createToolCycleDetector,
  readToolBatchConfig,
} from '../detect/tool-batch/index.js';
import type { DetectorFactories } from './build.js';

export const DEFAULT_DETECTORS: DetectorFactories = {
  toolBatch: (values) => createToolBatchDetector(readToolBatchConfig(values)),
  toolCycle: (values) => createToolCycleDetector(readToolBatchConfig(values)),
  output: (values) => createOutputRoundDetector(readOutputConfig(values)),
  thinking: (values) => createThinkingRoundDetector(readThinkingConfig(values)),
};
