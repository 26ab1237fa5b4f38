// A worker thread of `--jobs`: runs whole files through the pipeline and posts the result back.

import { parentPort, workerData } from 'node:worker_threads';
import { ResolvedConfig } from '../config/resolved.js';
import { auditFile } from './audit.js';
import type { LaneData, StreamRequest, WorkerMessage, WorkerRequest } from './file-pool.js';
import { auditStreamInLane } from './file-stream-lane.js';

const port = parentPort;
if (port) {
  // Once for every file of the lane; what the values call for was said by the run's own parse.
  const lane = workerData as LaneData | null;
  const config = lane?.config !== undefined ? ResolvedConfig.parse(lane.config) : undefined;
  port.on('message', (request: WorkerRequest | StreamRequest) => {
    if ('files' in request) {
      // All the lane's files at once (run/file-stream.ts), read in a thread of the lane's.
      void auditStreamInLane(request.files, { ...request.options, ...(config ? { config } : {}) }, (m) => port.postMessage(m));
      return;
    }
    const post = (m: WorkerMessage) => port.postMessage(m);
    auditFile(request.file, {
      ...request.options,
      ...(config ? { config } : {}),
      jobs: request.jobs,
      onSkip: (path, skipped) => post({ type: 'skip', path, skipped }),
      onWarning: (message) => post({ type: 'warning', message }),
    }).then(
      (result) => post({ type: 'done', result }),
      (e: unknown) => post({ type: 'failed', message: (e as Error)?.message ?? String(e) }),
    );
  });
}
