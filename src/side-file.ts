// The small files a run is given beside its inputs (--config, --prices, --labels, --batch): read
// whole, but only up to a size no such file reaches, so that a wrong path (/dev/zero, a log, a
// device) costs a clear message at once instead of the whole memory and then V8's "Invalid
// string length" (issue 53, item 13).

import { open } from 'node:fs/promises';

/** The file is longer than its bound: its `message` is the reason, for the caller to name the flag and file. */
export class SideFileTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`larger than ${maxBytes / (1024 * 1024)} MB (no such file is that large: is it the right file?)`);
    this.name = 'SideFileTooLarge';
  }
}

const CHUNK_BYTES = 256 * 1024;

/**
 * `path`'s text (UTF-8), read to its end whatever size it reports (a pipe or a device reports
 * none); SideFileTooLarge past `maxBytes`, and the file system's own error where it cannot be read.
 */
export async function readSideFile(path: string, maxBytes: number): Promise<string> {
  const file = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      const { bytesRead } = await file.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw new SideFileTooLarge(maxBytes);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    await file.close().catch(() => {});
  }
}
