// With a judge a file may be analyzed more than once (judge/run.ts), and stdin reads only once:
// what it gives is kept in a private temporary file for the run, streamed there (no memory bound
// is lost), and removed at the end.

import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface Spool {
  path: string;
  remove(): Promise<void>;
}

export async function spoolStdin(stdin: Readable): Promise<Spool> {
  const dir = await mkdtemp(join(tmpdir(), 'loopledger-stdin-'));
  const path = join(dir, 'stdin');
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await pipeline(stdin, createWriteStream(path, { mode: 0o600 }));
  } catch (e) {
    await remove();
    throw e;
  }
  return { path, remove };
}
