// The lane's side of run/file-stream.ts: every file of the lane read by a reading thread of the
// lane's own and analyzed here, answered in order with its index.

import { statSync } from 'node:fs';
import { auditFile, auditFileReadElsewhere } from './audit.js';
import type { StreamMessage } from './file-pool.js';
import type { AuditOptions, FileLedger } from './options.js';
import { ReaderThread } from './reader-thread.js';

/** Read in the reading thread: regular files (stdin, FIFOs and conversation folders are read here). */
function isRegularFile(file: string): boolean {
  if (file === '-') return false;
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/**
 * The lane's side: each file read by the reading thread and analyzed here, answered in order with
 * its index. A reading thread that dies (a record past its capped heap) is replaced for the files
 * after the one it died on, which is analyzed here alone.
 */
export async function auditStreamInLane(files: readonly string[], options: AuditOptions, post: (m: StreamMessage) => void): Promise<void> {
  const read = files.map(isRegularFile);
  const readable = files.filter((_, i) => read[i]);
  const inputFormat = options.inputFormat ?? 'auto';
  let reader: ReaderThread | null = null;
  /** Where the current reading thread's list starts in `readable`. */
  let from = 0;
  let next = 0;
  for (let index = 0; index < files.length; index++) {
    const said: AuditOptions = {
      ...options,
      onSkip: (path, skipped) => post({ type: 'skip', index, path, skipped }),
      onWarning: (message) => post({ type: 'warning', index, message }),
    };
    try {
      let result: FileLedger;
      if (read[index]) {
        const at = next++;
        if (reader === null || !reader.alive) {
          reader?.close();
          reader = ReaderThread.start(readable.slice(at), inputFormat);
          from = at;
        }
        const thread = reader;
        result =
          thread === null
            ? await auditFile(files[index]!, { ...said, jobs: 1 })
            : await auditFileReadElsewhere(files[index]!, said, (sink, onSkip) => thread.ingest(at - from, sink, onSkip));
      } else {
        result = await auditFile(files[index]!, { ...said, jobs: 1 });
      }
      post({ type: 'done', index, result });
    } catch (e) {
      post({ type: 'failed', index, message: (e as Error)?.message ?? String(e) });
    }
  }
  reader?.close();
}
