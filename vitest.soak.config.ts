// `npm run test:soak`: the tests that prove a bound at scale, and the heavy ones (vitest.config.ts
// says which and why). `.ci/run` runs it after `npm test`, which leaves these files out.

import { defineConfig } from 'vitest/config';
import { RUN_TEMP, soakProjects } from './vitest.config.js';
import { DurationSequencer } from './test/helpers/sequencer.js';

export default defineConfig({ test: { globalSetup: RUN_TEMP, projects: soakProjects, sequence: { sequencer: DurationSequencer } } });
