// `npm run test:quick`: the unit tests alone (under a minute on 2 cores), for the edit loop. Which
// files are unit tests is decided in vitest.config.ts; `npm test` runs them the same way (its
// "unit" project, isolate: false) beside the end-to-end files.

import { performance } from 'node:perf_hooks';
import type { Reporter, TestModule } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import { RUN_TEMP, unitRun } from './vitest.config.js';

/** What the edit loop may cost (issue 57, item 6): the run's time is printed against it. */
const BUDGET_SECONDS = 60;

/** Prints the run's wall time, its counts and whether it kept to the budget, after vitest's summary. */
function budget(): Reporter {
  let started = 0;
  return {
    onInit: () => {
      started = performance.now();
    },
    onTestRunEnd: (modules: ReadonlyArray<TestModule>) => {
      const seconds = (performance.now() - started) / 1000;
      const tests = modules.flatMap((m) => [...m.children.allTests()]);
      const skipped = tests.filter((t) => t.result().state === 'skipped').length;
      const verdict = seconds <= BUDGET_SECONDS ? 'within' : 'OVER';
      console.log(`test:quick: ${tests.length - skipped} tests run, ${skipped} skipped, in ${seconds.toFixed(1)} s (${verdict} the ${BUDGET_SECONDS} s budget)`);
    },
  };
}

export default defineConfig({ test: { ...unitRun, globalSetup: RUN_TEMP, reporters: ['default', budget()] } });
