// Writes test/durations.json from a vitest log (`npm test`'s output, or .ci/run's): each test
// file's duration, by project and path, for test/helpers/sequencer.ts to start the longest first
// where vitest has no durations of its own (a fresh clone, CI).
//
//   node bench/suite-durations.mjs LOG [LOG …]      (several logs: each file's longest)

import { readFileSync, writeFileSync } from 'node:fs';

const logs = process.argv.slice(2);
if (logs.length === 0) {
  console.error('usage: node bench/suite-durations.mjs LOG [LOG …]');
  process.exit(2);
}
/** vitest's colours (ESC [ … m): built from its code, a control character in a regex literal being a lint error. */
const COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const durations = {};
for (const log of logs) {
  // " ✓  end-to-end  test/cli/x.test.ts (12 tests) 5321ms", colours removed
  for (const line of readFileSync(log, 'utf8').replace(COLOUR, '').split('\n')) {
    const m = /^ [✓×↓] +(\S+) +(test\/\S+\.test\.ts) \(\d+ tests?(?:[^)]*)\) (\d+(?:\.\d+)?)(ms|s)\s*$/.exec(line);
    if (m === null) continue;
    const seconds = m[4] === 'ms' ? Number(m[3]) / 1000 : Number(m[3]);
    const key = `${m[1]}:${m[2]}`;
    durations[key] = Math.max(durations[key] ?? 0, Math.round(seconds * 10) / 10);
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync('test/durations.json', `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files`);
