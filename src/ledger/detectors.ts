// The real detectors, as the ledger builds them for each turn from the (tier-scaled) config.

import type { ConfigValues } from '../config/spec.js';
import { createOutputRoundDetector, readOutputConfig } from '../detect/output/index.js';
import { createThinkingRoundDetector, readThinkingConfig } from '../detect/thinking/index.js';
import {
  createRecurringFailureRoundDetector,
  createToolBatchDetector,
  createToolCycleDetector,
  readToolBatchConfig,
  RoundDigester,
} from '../detect/tool-batch/index.js';
import type { DetectorFactories } from './build.js';

/** Reads a config section once per values object: the ledger reuses one object per tier. */
function memo<T>(read: (values: ConfigValues) => T): (values: ConfigValues) => T {
  const cache = new WeakMap<ConfigValues, T>();
  return (values) => {
    let config = cache.get(values);
    if (config === undefined) {
      config = read(values);
      cache.set(values, config);
    }
    return config;
  };
}

/**
 * Factories for one ledger (one file). The tool-batch and cycle detectors share one digester, so
 * each round's batch is canonicalized once and its tool results hashed at most once; each
 * section of the configuration is read and sanitized once, not at every turn.
 */
export function createDetectorFactories(): DetectorFactories {
  const digester = new RoundDigester();
  const toolBatch = memo(readToolBatchConfig);
  const output = memo(readOutputConfig);
  const thinking = memo(readThinkingConfig);
  return {
    toolBatch: (values) => createToolBatchDetector(toolBatch(values), digester),
    toolCycle: (values) => createToolCycleDetector(toolBatch(values), digester),
    output: (values) => createOutputRoundDetector(output(values)),
    thinking: (values) => createThinkingRoundDetector(thinking(values)),
    session: (values) => createRecurringFailureRoundDetector(toolBatch(values)),
  };
}
