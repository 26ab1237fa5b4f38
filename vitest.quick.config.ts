// `npm run test:quick`: the unit tests, for the edit loop (under a minute on 2 cores). A unit test
// starts no process and needs no build: a test file that spawns the binary, a worker, an agent or
// a browser, reads dist/ or generates a store is left to `npm test`, which runs every file.
// The rule is read from each file, so a new test file is sorted without touching this list.

import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const NEEDS_MORE = /\b(spawn|spawnSync|execFile|execFileSync|execSync|fork|ensureBuilt|runCli|spawnCli|new Worker|generateHome)\b|['"/]dist\/|\/helpers\.js'|chromium/;
const OUT_OF_PROCESS = ['agents/', 'browser/', 'package/'];

const unit = (readdirSync('test', { recursive: true, encoding: 'utf8' }) as string[])
  .filter((f) => f.endsWith('.test.ts') && !OUT_OF_PROCESS.some((d) => f.startsWith(d)))
  .filter((f) => !NEEDS_MORE.test(readFileSync(`test/${f}`, 'utf8')))
  .map((f) => `test/${f}`);

// Not mergeConfig: it would append this list to the base's glob, not replace it.
// isolate: false lets a worker's test files share the modules it loaded instead of importing
// src/ afresh for each: 113 -> 56 CPU-seconds, 90 -> 41 s (issue 31 item 6). A unit test leaning
// on state another left behind would pass here and fail in `npm test`, which keeps isolation
// (the files also pass here in shuffled order, --sequence.shuffle.files).
export default defineConfig({ ...base, test: { ...base.test, include: unit, isolate: false } });
