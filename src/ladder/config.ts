import type { ConfigKeySpec } from '../config/spec.js';

/** `mode`, `ladder.*`, `judge.*`, `policy.*` keys (placeholder until the ladder lands). */
export const LADDER_KEYS: readonly ConfigKeySpec[] = [];
