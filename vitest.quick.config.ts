// `npm run test:quick`: the unit tests alone (under a minute on 2 cores), for the edit loop. Which
// files are unit tests is decided in vitest.config.ts; `npm test` runs them the same way (its
// "unit" project, isolate: false) beside the end-to-end files.

import { defineConfig } from 'vitest/config';
import { unitRun } from './vitest.config.js';

export default defineConfig({ test: unitRun });
