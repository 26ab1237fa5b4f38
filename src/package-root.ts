import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder that holds loopledger's package.json (and bin/), found by walking up from this module.
 * This module runs from src/ (tests), from dist/ (tsc's modules) and from inside the one-file
 * bundles at dist/'s top (`npm run build:bundle`), so a fixed `../` would be right in only some.
 */
function findPackageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(here);
  }
}

export const PACKAGE_ROOT = findPackageRoot();
