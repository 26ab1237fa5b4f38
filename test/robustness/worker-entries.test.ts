// Worker threads are started by path (`new URL('./x.js', import.meta.url)`), which the compiler
// does not check: a moved or renamed module leaves a URL to nothing, and both pools then fall back
// to one thread in silence. So the built tree is searched for every such URL, each must name a
// file that exists, and the file pool's worker must answer a request from dist/.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ROOT } from './helpers.js';

const DIST = join(ROOT, 'dist');
// Single quotes in tsc's modules, double in esbuild's bundles; `__bundleUrl` is import.meta.url in
// the CommonJS bundles (package.json's build:bundle defines it).
const ENTRY = /new URL\(['"](\.{1,2}\/[^'"]+\.js)['"], (?:import\.meta\.url|__bundleUrl)\)/g;

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsFiles(join(dir, e.name)) : /\.c?js$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Every module URL a built file builds relative to itself: [the file, the URL's target]. */
function workerUrls(): [string, string][] {
  return jsFiles(DIST).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(ENTRY)].map((m): [string, string] => [file, fileURLToPath(new URL(m[1]!, pathToFileURL(file)))]),
  );
}

describe('worker entry files in dist/', () => {
  beforeAll(() => ensureBuilt());

  it('every worker started by path exists where its starter looks for it', () => {
    const urls = workerUrls();
    const targets = urls.map(([, target]) => relative(DIST, target).split('\\').join('/'));
    // The CLI's bundle starts both bundled workers.
    expect(urls.filter(([file]) => file.endsWith('loopledger.cjs')).map(([, t]) => relative(DIST, t)).sort()).toEqual(['file-pool-worker.js', 'reader-thread-worker.js']);
    // Not vacuous: both pools' entries are among them, as modules and as bundles (npm run build:bundle).
    expect(targets).toEqual(expect.arrayContaining(['run/file-pool-worker.js', 'run/reader-thread-worker.js', 'file-pool-worker.js', 'reader-thread-worker.js']));
    for (const [file, target] of urls) expect(existsSync(target), `${relative(DIST, file)} starts ${relative(DIST, target)}`).toBe(true);
  });

  it("the file pool's worker analyzes a file sent to it", async () => {
    const [, entry] = workerUrls().find(([, t]) => t.endsWith('file-pool-worker.js'))!;
    const worker = new Worker(entry);
    try {
      const file = join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl');
      const reply = await new Promise<{ type: string; result?: { input: { path: string; sessions: number } } }>((resolve, reject) => {
        worker.on('message', (m: { type: string }) => {
          if (m.type === 'done' || m.type === 'failed') resolve(m);
        });
        worker.once('error', reject);
        worker.postMessage({ file, options: {} });
      });
      expect(reply.type).toBe('done');
      expect(reply.result?.input.path).toBe(file);
      expect(reply.result?.input.sessions).toBe(1);
    } finally {
      await worker.terminate();
    }
  });
});
