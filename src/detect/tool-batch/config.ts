import type { ConfigKeySpec } from '../../config/spec.js';

/** `tool_batch.*` keys (placeholder until the detector lands). */
export const TOOL_BATCH_KEYS: readonly ConfigKeySpec[] = [];
