#!/usr/bin/env node
// `npm test` and `npm run test:quick` start vitest through this file: it is vitest's own command
// line, with one variable set before vitest loads. Vite transforms TypeScript in rolldown's native
// module, whose allocator (mimalloc) commits each 1 GB arena eagerly in transparent huge pages: the
// vitest process then held ~250 MB where ~140 MB is in use (issue 31 item 6: the suite's peak).
// Set for this process's own allocator; the processes the tests start inherit it and ignore it.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

process.env.MIMALLOC_ARENA_EAGER_COMMIT ??= '0';
const require = createRequire(import.meta.url);
const manifest = require.resolve('vitest/package.json');
await import(pathToFileURL(join(dirname(manifest), require(manifest).bin.vitest)).href);
