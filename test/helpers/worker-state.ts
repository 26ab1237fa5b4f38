// A setup file of the projects whose workers run file after file (isolate: false, vitest.config.ts):
// what one file changes in its process (an environment variable, the working directory, the umask)
// would reach every file after it in that worker, and a test would then pass or fail by the order
// it ran in. A file that leaves any of them changed fails here, naming what, and the worker is put
// back as it was, so the files after it still start clean. Where the worker has --expose-gc, a full
// collection follows each file, so what it left dead is not carried into the next one.

import { afterAll, beforeAll } from 'vitest';
import { restore, snapshot, type ProcessState } from './process-state.js';

let before: ProcessState;
beforeAll(() => {
  before = snapshot();
});
afterAll(() => {
  (globalThis as { gc?: () => void }).gc?.();
  const changed = restore(before);
  if (changed.length > 0) throw new Error(`this file left its worker changed (${changed.join(', ')}): put it back in an afterAll, as the files after it share the process`);
});
