// `npm run test:agents`: the suites that drive the real agents at their pinned releases against a
// scripted model server (test/agents/). `.ci/run` runs it after `npm test`; `npm test` leaves these
// files out (vitest.config.ts says why).

import { defineConfig } from 'vitest/config';
import { agentRun, END_TO_END_WORKERS } from './vitest.config.js';

export default defineConfig({ test: { ...agentRun, maxWorkers: END_TO_END_WORKERS } });
