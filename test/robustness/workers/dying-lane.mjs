// A lane worker for test/robustness/lanes.test.ts and stream.test.ts: the real one
// (dist/run/file-pool-worker.js), except that it dies on a file whose name says so: "die-exit" ends
// the thread with no error event, "die-throw" with an uncaught exception. Given one file at a time,
// it dies before it starts on the file; given all its files at once (a stream), once it has
// analyzed the file, its answer withheld; and on a file named "lane-fails" it answers that it failed.
import { parentPort } from 'node:worker_threads';
import '../../../dist/run/file-pool-worker.js';

const dies = (file) => file.includes('die-exit') || file.includes('die-throw');
const die = (file) => {
  if (file.includes('die-exit')) process.exit(7);
  throw new Error('the lane worker crashed');
};

// Before the real worker's listener, so it never starts on a file this one dies on.
parentPort.prependListener('message', (request) => {
  if (request.files === undefined) {
    if (dies(request.file)) die(request.file);
    return;
  }
  const post = parentPort.postMessage.bind(parentPort);
  parentPort.postMessage = (m) => {
    const file = request.files[m.index];
    // Outside the lane's own try: an uncaught exception, as a crash would be.
    if (m.type === 'done' && dies(file)) setImmediate(() => die(file));
    else if (m.type === 'done' && file.includes('lane-fails')) post({ type: 'failed', index: m.index, message: 'the lane failed on it' });
    else post(m);
  };
});
