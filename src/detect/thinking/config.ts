import type { ConfigKeySpec } from '../../config/spec.js';

/** `thinking.*` keys (placeholder until the detector lands). */
export const THINKING_KEYS: readonly ConfigKeySpec[] = [];
