// The .jsonl files a bench reads from PATH: the file itself, or every one below a folder, walked
// recursively in name order, so every script reads a store in the same order.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** PATH itself, or the .jsonl files below it, sorted by name at each level. */
export const jsonlFiles = (path) =>
  statSync(path).isDirectory()
    ? readdirSync(path, { withFileTypes: true })
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .flatMap((e) => (e.isDirectory() ? jsonlFiles(join(path, e.name)) : e.name.endsWith('.jsonl') ? [join(path, e.name)] : []))
    : [path];
