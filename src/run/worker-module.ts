// Which file a worker thread starts from. tsc's modules run as the library (dist/index.js) and as
// `node dist/cli.js`; the build also bundles each worker entry into one file at dist/'s top
// (`npm run build:bundle`), which the CLI's own bundle starts. A thread loads that one file in far
// less time than tsc's tree of modules (through the library, a lane and its reading thread started
// in 105 ms against 170-190 ms, on two cores), so tsc's modules start the bundle too where the
// build wrote it with them.

import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `entry`, a worker entry beside the module that starts it, or, when `entry` is tsc's output in
 * dist/run/, the bundle of the same name in dist/ if it is at least as new: a `tsc` run alone
 * leaves an older bundle, which is passed over, as bin/loopledger.js passes over an older CLI bundle.
 */
export function bundledWorker(entry: URL): URL {
  if (entry.protocol !== 'file:') return entry;
  const path = fileURLToPath(entry);
  const run = dirname(path);
  const dist = dirname(run);
  if (basename(run) !== 'run' || basename(dist) !== 'dist') return entry;
  const bundle = join(dist, basename(path));
  try {
    const bundled = statSync(bundle, { throwIfNoEntry: false });
    const own = statSync(path, { throwIfNoEntry: false });
    return bundled?.isFile() && own !== undefined && bundled.mtimeMs >= own.mtimeMs ? pathToFileURL(bundle) : entry;
  } catch {
    // Unreadable (permissions): the entry beside, as before the bundles existed.
    return entry;
  }
}
