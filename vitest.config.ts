import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// A unit test starts no process and needs no build: a test file that spawns the binary, a worker,
// an agent or a browser, reads dist/ or generates a store is an end-to-end one. The rule is read
// from each file, so a new test file is sorted without touching a list.
const NEEDS_MORE = /\b(spawn|spawnSync|execFile|execFileSync|execSync|fork|ensureBuilt|runCli|spawnCli|new Worker|generateHome)\b|['"/]dist\/|\/helpers\.js'|chromium/;
const OUT_OF_PROCESS = ['agents/', 'browser/', 'package/'];

/** The unit test files, as `test/...` paths (`npm run test:quick` runs these alone). */
export const unitFiles = (readdirSync('test', { recursive: true, encoding: 'utf8' }) as string[])
  .filter((f) => f.endsWith('.test.ts') && !OUT_OF_PROCESS.some((d) => f.startsWith(d)))
  .filter((f) => !NEEDS_MORE.test(readFileSync(`test/${f}`, 'utf8')))
  .map((f) => `test/${f}`);

const shared = { testTimeout: 60_000, hookTimeout: 60_000 };
/**
 * Most end-to-end files spend their time waiting on the processes they spawn (the CLI, the hook,
 * the agents, Chromium), not on their own CPU: one worker per core left the second core idle half
 * the run. Two per core, at least four, keeps both busy (issue 31, item 6).
 */
const END_TO_END_WORKERS = Math.max(4, 2 * availableParallelism());

export default defineConfig({
  test: {
    ...shared,
    maxWorkers: END_TO_END_WORKERS,
    projects: [
      // The unit files share the modules a worker loaded instead of importing src/ afresh for each
      // (isolate: false): half their CPU (issue 31 item 6). They pass in shuffled order too
      // (--sequence.shuffle.files), so none leans on state another left behind. A shared worker
      // keeps what its files allocated (~400 MB by the end), so they run first, one worker per
      // core (they only compute), and their workers are gone before the end-to-end files start.
      { test: { ...shared, name: 'unit', include: unitFiles, isolate: false, maxWorkers: availableParallelism(), sequence: { groupOrder: 0 } } },
      // A file that spawns processes or generates stores gets a fresh worker, as a user's run does.
      { test: { ...shared, name: 'end-to-end', include: ['test/**/*.test.ts'], exclude: unitFiles, maxWorkers: END_TO_END_WORKERS, sequence: { groupOrder: 1 } } },
    ],
  },
});
