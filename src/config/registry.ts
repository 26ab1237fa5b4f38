// Every configuration section, collected from the modules that own them, and the one parse of the
// flat configuration into their typed settings.

import { OUTPUT_SECTION, type OutputConfig } from '../detect/output/config.js';
import { THINKING_SECTION, type ThinkingConfig } from '../detect/thinking/config.js';
import { TOOL_BATCH_SECTION, type ToolBatchConfig } from '../detect/tool-batch/config.js';
import { LADDER_SECTION, type LadderConfig } from '../ladder/config.js';
import { INTERRUPT_SECTION, type InterruptConfig } from '../ledger/interrupts.js';
import { defineSection, readSection } from './section.js';
import type { ConfigKeySpec, ConfigValues } from './spec.js';

/** Settings the run itself owns (not a detector's). */
export interface RunConfig {
  scope: 'turn' | 'replay';
}

const RUN_SECTION = defineSection<RunConfig>({
  scope: {
    key: 'scope',
    type: 'enum',
    values: ['turn', 'replay'],
    default: 'turn',
    reason: 'fresh guards per user turn, as on the agent path; replay walks one tool-batch detector across the conversation like a proxy',
  },
});

/** The whole configuration, typed: one frozen object per section. */
export interface Config {
  run: Readonly<RunConfig>;
  ladder: Readonly<LadderConfig>;
  toolBatch: Readonly<ToolBatchConfig>;
  output: Readonly<OutputConfig>;
  thinking: Readonly<ThinkingConfig>;
  interrupts: Readonly<InterruptConfig>;
}

/** In the order `loopledger config` lists them. */
export const CONFIG_KEYS: readonly ConfigKeySpec[] = [
  ...RUN_SECTION.keys,
  ...LADDER_SECTION.keys,
  ...TOOL_BATCH_SECTION.keys,
  ...OUTPUT_SECTION.keys,
  ...THINKING_SECTION.keys,
  ...INTERRUPT_SECTION.keys,
];

export function defaultConfigValues(): ConfigValues {
  const values: Record<string, ConfigKeySpec['default']> = {};
  for (const spec of CONFIG_KEYS) values[spec.key] = spec.default;
  return values;
}

/**
 * The flat configuration (dotted key → value; missing keys take their defaults) parsed into every
 * section with the loader's rules: a wrong type or an out-of-range value is a ConfigError naming
 * the key; the sections' cross-key repairs are reported through `warn`.
 */
export function parseConfig(values: ConfigValues, warn: (message: string) => void = () => {}): Readonly<Config> {
  return Object.freeze({
    run: readSection(RUN_SECTION, values, warn),
    ladder: readSection(LADDER_SECTION, values, warn),
    toolBatch: readSection(TOOL_BATCH_SECTION, values, warn),
    output: readSection(OUTPUT_SECTION, values, warn),
    thinking: readSection(THINKING_SECTION, values, warn),
    interrupts: readSection(INTERRUPT_SECTION, values, warn),
  });
}
