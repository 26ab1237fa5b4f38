// Scratch files for reader tests, under the OS temp directory (never in the repository).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Scratch {
  dir: string;
  file(name: string, content: string | Uint8Array): string;
  cleanup(): void;
}

export function scratchDir(prefix = 'loopledger-read-'): Scratch {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Cut `bytes` at the given offsets (taken modulo its length) into chunks that concatenate back. */
export function splitAt(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let at = 0;
  for (const p of points) {
    if (p > at) parts.push(bytes.subarray(at, p));
    at = p;
  }
  if (at < bytes.length) parts.push(bytes.subarray(at));
  return parts;
}
