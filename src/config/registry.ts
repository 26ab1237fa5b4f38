// Every configuration key, collected from the modules that own them.

import { OUTPUT_KEYS } from '../detect/output/config.js';
import { THINKING_KEYS } from '../detect/thinking/config.js';
import { TOOL_BATCH_KEYS } from '../detect/tool-batch/config.js';
import { LADDER_KEYS } from '../ladder/config.js';
import type { ConfigKeySpec, ConfigValues } from './spec.js';

/** Keys the run itself owns (not a detector's). */
const RUN_KEYS: readonly ConfigKeySpec[] = [
  {
    key: 'scope',
    type: 'enum',
    values: ['turn', 'replay'],
    default: 'turn',
    reason: 'fresh guards per user turn, as on the agent path; replay walks one tool-batch detector across the conversation like a proxy',
  },
];

export const CONFIG_KEYS: readonly ConfigKeySpec[] = [
  ...RUN_KEYS,
  ...LADDER_KEYS,
  ...TOOL_BATCH_KEYS,
  ...OUTPUT_KEYS,
  ...THINKING_KEYS,
];

export function defaultConfigValues(): ConfigValues {
  const values: Record<string, ConfigKeySpec['default']> = {};
  for (const spec of CONFIG_KEYS) values[spec.key] = spec.default;
  return values;
}
