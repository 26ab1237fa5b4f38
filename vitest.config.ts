import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Most test files spend their time waiting on the processes they spawn (the CLI, the hook, the
    // agents, Chromium), not on this process's CPU: one worker per core left the second core idle
    // half the run. Two per core, at least four, keeps both busy (issue 31, item 6).
    maxWorkers: Math.max(4, 2 * availableParallelism()),
  },
});
