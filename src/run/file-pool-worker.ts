// A worker thread of `--jobs`: runs whole files through the pipeline and posts the result back.

import { parentPort } from 'node:worker_threads';
import { auditFile } from './audit.js';
import type { WorkerMessage, WorkerRequest } from './file-pool.js';

const port = parentPort;
if (port) {
  port.on('message', (request: WorkerRequest) => {
    const post = (m: WorkerMessage) => port.postMessage(m);
    auditFile(request.file, {
      ...request.options,
      jobs: request.jobs,
      onSkip: (path, skipped) => post({ type: 'skip', path, skipped }),
      onWarning: (message) => post({ type: 'warning', message }),
    }).then(
      (result) => post({ type: 'done', result }),
      (e: unknown) => post({ type: 'failed', message: (e as Error)?.message ?? String(e) }),
    );
  });
}
