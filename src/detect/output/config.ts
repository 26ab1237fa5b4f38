import type { ConfigKeySpec } from '../../config/spec.js';

/** `output.*` keys (placeholder until the detector lands). */
export const OUTPUT_KEYS: readonly ConfigKeySpec[] = [];
