// Reading a whole file the hook already holds open: blocking reads (the hook is one short
// process), stopping early if the file shrank under it.

import { readSync } from 'node:fs';

/** The first `size` bytes of `fd` as UTF-8, or fewer when the file ended sooner. */
export function readWholeFd(fd: number, size: number): string {
  const buffer = Buffer.allocUnsafe(size);
  let read = 0;
  while (read < size) {
    const n = readSync(fd, buffer, read, size - read, read);
    if (n <= 0) break;
    read += n;
  }
  return buffer.toString('utf8', 0, read);
}
