import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { defineConfig } from 'vitest/config';
import { DurationSequencer } from './test/helpers/sequencer.js';

// A unit test starts no process and needs no build: a test file that spawns the binary, a worker,
// an agent or a browser, reads dist/ or generates a store is an end-to-end one. The rule is read
// from each file, so a new test file is sorted without touching a list.
const NEEDS_MORE = /\b(spawn|spawnSync|execFile|execFileSync|execSync|fork|ensureBuilt|runCli|spawnCli|new Worker|generateHome)\b|['"/]dist\/|chromium/;
const OUT_OF_PROCESS = ['agents/', 'browser/', 'package/'];

/** Every test file's text, read once: both rules below read it. */
const testSources = new Map(
  (readdirSync('test', { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.test.ts')).map((f) => [f, readFileSync(`test/${f}`, 'utf8')] as const),
);

/** The test/ helper modules a file imports (`./x.js` → `test/…/x.ts`), by path under test/. */
function localHelpers(file: string, text: string): string[] {
  return [...text.matchAll(/from '(\.\.?\/[^']+)\.js'/g)]
    .map((m) => normalize(join(dirname(file), `${m[1]}.ts`)))
    .filter((f) => !f.startsWith('..') && existsSync(`test/${f}`));
}

/** The capability gates spawn only `command -v` probes, not what a test checks: a gated file is sorted by its own code. */
const spawningHelpers = new Map<string, boolean>([['helpers/capabilities.ts', false]]);
/**
 * Whether a test/ helper, or one it imports, starts processes or reads dist/: a test importing it
 * is end-to-end. A helper that only generates inputs (test/detect/output/helpers.ts) leaves a
 * file a unit one; a test that imports test/cli/helpers.ts (which spawns) stays end-to-end even
 * when it only uses the transcript generators, since which import spawns is not read here.
 */
function helperSpawns(file: string): boolean {
  const known = spawningHelpers.get(file);
  if (known !== undefined) return known;
  spawningHelpers.set(file, false); // an import cycle ends here
  const text = readFileSync(`test/${file}`, 'utf8');
  const spawns = NEEDS_MORE.test(text) || localHelpers(file, text).some(helperSpawns);
  spawningHelpers.set(file, spawns);
  return spawns;
}

const needsMore = (file: string, text: string): boolean => NEEDS_MORE.test(text) || localHelpers(file, text).some(helperSpawns);

/**
 * The files whose cases hold hundreds of MB at once (a JSON document read up to V8's string limit,
 * a 50 MB line, a 48 MB record, a 32 MB merged value, 200k sessions in one merge): each calls
 * oneHeavyCaseAtATime (test/helpers/one-heavy.ts), which is how they are found (the lock's own test
 * excepted). They keep their heavy cases and little else, and run in the soak tier, last, one at a time, once the
 * other workers are gone: beside four workers one of them took the suite past 1.3 GB.
 */
const heavy = new Set([...testSources].filter(([f, text]) => f !== 'helpers/one-heavy.test.ts' && /\boneHeavyCaseAtATime\(/.test(text)).map(([f]) => f));
const heavyFiles = [...heavy].map((f) => `test/${f}`);

/**
 * The soak tier (`npm run test:soak`, vitest.soak.config.ts; `.ci/run` runs it after `npm test`):
 * the files that prove a bound at scale (a million-round loop, 100 MB merges, every golden case as
 * shards, every fixture through both thread paths, signals landing in runs made to take seconds,
 * a generated store of a thousand sessions), the release checks (the packed package installed with
 * npm, the bundles against tsc's modules), the timing of every agent's installed hook, and the heavy files above. They took ~40% of
 * the suite's time, so `npm test` leaves them out to keep to its five minutes (issue 57 item 6). A
 * file joins by its first line: `// Soak tier (npm run test:soak): <why it is one>`.
 */
const SOAK_MARK = /^\/\/ Soak tier \(npm run test:soak\): \S/;
const soakFiles = [...testSources].filter(([f, text]) => SOAK_MARK.test(text) && !heavy.has(f)).map(([f]) => `test/${f}`);

/**
 * The files that start Chromium (~375 MB of PSS over its eight processes, however small the page):
 * beside three end-to-end workers it took the suite past 1 GB (1,044 and 1,134 MB in two runs of
 * four; 894 and 933 in the others), so they run on their own, after the end-to-end files.
 */
const browserFiles = [...testSources.keys()].filter((f) => f.startsWith('browser/')).map((f) => `test/${f}`);

/**
 * The files that drive the real agents (test/agents/install.mjs installs them): `npm run
 * test:agents` (vitest.agents.config.ts), which `.ci/run` runs after `npm test`. Eleven agents
 * driven live took ~650 s of the suite's ~1,000 here, so `npm test` leaves them out to keep to its
 * five minutes (issue 57 item 6) while CI still runs every one (issue 55 item 4).
 */
const agentFiles = [...testSources.keys()].filter((f) => f.startsWith('agents/')).map((f) => `test/${f}`);

/** The unit test files, as `test/...` paths (`npm run test:quick` runs these alone). */
export const unitFiles = [...testSources]
  .filter(([f, text]) => !OUT_OF_PROCESS.some((d) => f.startsWith(d)) && !heavy.has(f) && !SOAK_MARK.test(text) && !needsMore(f, text))
  .map(([f]) => `test/${f}`);

/**
 * The build (dist/) is imported by Node itself, as bin/loopledger.js imports it, not by Vite's module
 * runner: vitest inlines every module outside node_modules, so each end-to-end file that called the
 * built `main` had Vite transform and evaluate the ~240 modules of dist/ again (issue 57 item 6: the
 * whole `npm test` went from 900 to 704 CPU-s, every file passing). Sources (src/, test/) are still Vite's.
 */
const BUILD_IMPORTED_BY_NODE = { deps: { external: [/\/dist\//] } };

/**
 * How deep the robustness properties dig (`runs(n)`, test/robustness/helpers.ts): `npm test` runs
 * half the count each file writes, and the soak tier runs the same files again at twice it, so CI
 * draws five times the cases `npm test` does. At the written count they took ~70 CPU-s of
 * `npm test` (cli.property 36, chunking.property 26: every case runs the CLI on a fixture) for
 * issue 57 item 6's five minutes. ROBUSTNESS_SCALE set by hand wins over both.
 */
const propertyFiles = [...testSources].filter(([f, text]) => /numRuns: runs\(/.test(text) && !heavy.has(f) && !SOAK_MARK.test(text)).map(([f]) => `test/${f}`);
const propertyScale = (scale: string) => ({ ROBUSTNESS_SCALE: process.env['ROBUSTNESS_SCALE'] ?? scale });
const PROPERTY_SCALE_IN_NPM_TEST = propertyScale('0.5');

const shared = { testTimeout: 60_000, hookTimeout: 60_000, server: BUILD_IMPORTED_BY_NODE };

/** The run's own temporary folder, named where the run ends if a test left anything in it (test/helpers/run-temp.ts). */
export const RUN_TEMP = ['test/helpers/run-temp.ts'];

/** The real agents' files, run by `npm run test:agents` alone. */
export const agentRun = {
  ...shared,
  name: 'agents',
  include: agentFiles,
  // Installs the pinned agents once per run, behind a lock, and only when one of these files runs
  // (never when a file is merely loaded or listed).
  globalSetup: [...RUN_TEMP, 'test/agents/global-setup.ts'],
};

/**
 * The soak tier's and the agents' files, a fresh worker each, wait on the processes they spawn (the
 * CLI, the hook, the agents) as well as computing. Three workers on two cores (measured when npm
 * test's end-to-end files ran this way too): on this tree, quiet, the suite took 314 s of wall,
 * 580 CPU-s and peaked at 1,122 MB of PSS, against 327-333 s, ~625 CPU-s and 1,178-1,304 MB with
 * four (node bench/suite.mjs; issue 31, item 6): the fourth worker added contention, not speed.
 */
export const END_TO_END_WORKERS = availableParallelism() + 1;
/**
 * npm test's end-to-end files share their workers (isolate: false), one per core: a fresh process
 * per file cost each file its start and its imports again, about 150 of the ~490 CPU-s those files
 * took (node bench/suite.mjs, one run after the other: 262 s of wall isolated, 185 s shared, every
 * file passing). Three shared workers peaked at 1,046-1,345 MB of PSS and two at 806 MB (issue 31's
 * bound is 1 GB), for 214 s of wall against three's 185-259 s on this noisy machine. The soak tier
 * keeps a process per file: its files prove bounds at scale, one beside another.
 */
const SHARED_END_TO_END_WORKERS = availableParallelism();
/**
 * Their old generation, and a full collection after each file (--expose-gc, worker-state.ts): the
 * largest heap of any file is ~170 MB (read/lines), and without both a worker kept what earlier
 * files left dead, at up to ~400 MB of PSS: the suite peaked at 1,086 MB, and 896-899 with them.
 */
const SHARED_END_TO_END_HEAP_MB = 256;
/**
 * What a file leaves changed in a shared worker (the environment, the working directory, the
 * umask) fails that file and is put back (test/helpers/worker-state.ts).
 */
const WORKER_STATE = ['test/helpers/worker-state.ts'];
/**
 * The unit workers' old generation. Uncapped, V8 let each grow to ~450 MB of mostly dead objects
 * (a shared worker keeps running file after file); at 128 MB one worker running every unit file
 * ran out, at 192 MB it peaked at 350 MB of PSS instead of 452, for 3% more CPU.
 */
const UNIT_HEAP_MB = 192;

/** How the unit files run, here and in `npm run test:quick` (vitest.quick.config.ts). */
export const unitRun = { ...shared, include: unitFiles, isolate: false, setupFiles: WORKER_STATE, maxWorkers: availableParallelism(), execArgv: [`--max-old-space-size=${UNIT_HEAP_MB}`], env: PROPERTY_SCALE_IN_NPM_TEST };


/** The soak tier's projects: its end-to-end files, then the heavy ones, one at a time, once the others are gone, then the properties at depth. */
export const soakProjects = [
  { test: { ...shared, name: 'soak', include: soakFiles, maxWorkers: END_TO_END_WORKERS, sequence: { groupOrder: 0 } } },
  { test: { ...shared, name: 'heavy', include: heavyFiles, maxWorkers: 1, sequence: { groupOrder: 1 } } },
  // Last, on their own: run beside the soak files while other work shared the machine, they took
  // merge-long-values' 100 MB merges past its 180 s (CI at db40d35).
  { test: { ...shared, name: 'properties', include: propertyFiles, env: propertyScale('2'), testTimeout: 300_000, maxWorkers: END_TO_END_WORKERS, sequence: { groupOrder: 2 } } },
];

export default defineConfig({
  test: {
    ...shared,
    // One temporary folder for the whole run, removed at its end (test/helpers/run-temp.ts).
    globalSetup: RUN_TEMP,
    maxWorkers: END_TO_END_WORKERS,
    // The longest files first, also in a fresh clone (test/helpers/sequencer.ts).
    sequence: { sequencer: DurationSequencer },
    projects: [
      // The unit files share the modules a worker loaded instead of importing src/ afresh for each
      // (isolate: false): half their CPU (issue 31 item 6). They pass in shuffled order too
      // (--sequence.shuffle.files), so none leans on state another left behind. A shared worker
      // keeps what its files allocated (hence UNIT_HEAP_MB), so they run first, one worker per
      // core (they only compute), and their workers are gone before the end-to-end files start.
      { test: { ...unitRun, name: 'unit', sequence: { groupOrder: 0 } } },
      // The files that spawn processes or generate stores, a worker per core, shared (SHARED_END_TO_END_WORKERS).
      {
        test: {
          ...shared,
          name: 'end-to-end',
          include: ['test/**/*.test.ts'],
          exclude: [...unitFiles, ...heavyFiles, ...soakFiles, ...browserFiles, ...agentFiles],
          isolate: false,
          setupFiles: WORKER_STATE,
          maxWorkers: SHARED_END_TO_END_WORKERS,
          execArgv: [`--max-old-space-size=${SHARED_END_TO_END_HEAP_MB}`, '--expose-gc'],
          env: PROPERTY_SCALE_IN_NPM_TEST,
          sequence: { groupOrder: 1 },
        },
      },
      { test: { ...shared, name: 'browser', include: browserFiles, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
