// The one-file bundles, as `npm run build:bundle` names them (`name=module` entries, written to
// dist/name.js, or dist/name.cjs by the esbuild call with `--out-extension:.js=.cjs`): read from
// package.json, so a bundle added there is checked by the tests that read this list without being
// named a second time.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Bundle {
  /** The file written, relative to the package: `dist/<name>.js` or `dist/<name>.cjs`. */
  file: string;
  /** The tsc module it starts from, relative to the package. */
  entry: string;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function bundles(): Bundle[] {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['build:bundle'] ?? '';
  return script.split('&&').flatMap((call) => {
    const ext = call.includes('--out-extension:.js=.cjs') ? 'cjs' : 'js';
    return [...call.matchAll(/(?:^|\s)([\w-]+)=(dist\/\S+\.js)(?=\s)/g)].map(([, name, entry]) => ({ file: `dist/${name}.${ext}`, entry: entry! }));
  });
}
