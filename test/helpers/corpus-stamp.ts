// What a generated corpus cached under .tmp/ is keyed by: the generator's options and the
// generator's own source, so a change to bench/home.mjs regenerates every cached home instead of
// leaving tests to read one made by an older generator (the options alone would still match).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const GENERATOR = fileURLToPath(new URL('../../bench/home.mjs', import.meta.url));

export function corpusStamp(options: object): string {
  const generator = createHash('sha256').update(readFileSync(GENERATOR)).digest('hex').slice(0, 16);
  return JSON.stringify({ ...options, generator });
}
