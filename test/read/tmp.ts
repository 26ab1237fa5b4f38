// Scratch files for reader tests, under the OS temp directory (never in the repository).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function scratchDir(): { dir: string; file(name: string, content: string | Uint8Array): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'loopledger-read-'));
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
