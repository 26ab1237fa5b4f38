// A lane worker for test/robustness/lanes.test.ts: the real one (dist/run/file-pool-worker.js),
// except that it dies on a file whose name says so: "die-exit" ends the thread with no error
// event, "die-throw" with an uncaught exception.
import { parentPort } from 'node:worker_threads';
import '../../../dist/run/file-pool-worker.js';

// Before the real worker's listener, so it never starts on a file this one dies on.
parentPort.prependListener('message', (request) => {
  if (request.file.includes('die-exit')) process.exit(7);
  if (request.file.includes('die-throw')) throw new Error('the lane worker crashed');
});
