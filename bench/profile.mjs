// Where the ledger's CPU goes, by stage of the pipeline (issue 30): runs bench/ledger.mjs on one
// thread under `node --cpu-prof` and sums the samples' self time per stage (read and decode,
// JSON.parse, the format adapter, the transcript model, each detector family, the ledger and
// report, GC, idle), then the functions with the most self time. The same grouping every time, so
// shares from two builds or two stops compare; quote the load (printed) with them. The sampled ms
// are the thread's wall time, so on a loaded machine they add up to more than its CPU time: compare
// shares, not ms.
//   node bench/profile.mjs PATH [--top 25] [--keep DIR]   (PATH: a file or a store folder;
//   --keep writes the .cpuprofile there instead of a temporary folder, for DevTools)

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const input = args[0];
if (input === undefined || input.startsWith('--')) {
  console.error('usage: node bench/profile.mjs PATH [--top 25] [--keep DIR]');
  process.exit(2);
}
const top = Number(arg('--top', '25'));
const keep = arg('--keep', undefined);
const dir = keep ?? mkdtempSync(join(tmpdir(), 'loopledger-profile-'));

const load = loadavg()[0];
const result = JSON.parse(
  execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, join(here, 'ledger.mjs'), input, '--jobs', '1'], { encoding: 'utf8' }),
);
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
if (keep === undefined) rmSync(dir, { recursive: true, force: true });

/** A sample's stage, from its function's script and name (first match wins). */
const STAGES = [
  ['GC', (url, name) => name === '(garbage collector)'],
  ['idle (waiting on reads)', (url, name) => name === '(idle)' || name === '(program)'],
  ['JSON.parse of lines', (url, name) => url.endsWith('/formats/ingest/json.js') && name.startsWith('parseJson')],
  ['read and decode', (url, name) => url.includes('/dist/read/') || url === 'node:buffer' || url === 'node:internal/encoding' || ['read', 'utf8Slice', 'openFileHandle', 'latin1Slice'].includes(name)],
  ['format adapter', (url) => url.includes('/dist/formats/')],
  ['transcript model', (url) => url.includes('/dist/model/')],
  ['tool-batch detectors (SHA-256 included)', (url) => url.includes('/dist/detect/tool-batch/') || url.startsWith('node:internal/crypto')],
  ['text detectors (output, thinking, shared text)', (url) => /\/dist\/detect\/(text|output|thinking)\//.test(url)],
  ['other detectors', (url) => url.includes('/dist/detect/')],
  ['ladder, ledger, money, report', (url) => /\/dist\/(ladder|ledger|money|report|run)\//.test(url)],
  ['module loading', (url) => url.startsWith('node:internal/modules')],
  // A native regular expression's frame names its pattern, not its caller.
  ['regular expressions (any stage)', (url, name) => name.startsWith('RegExp:')],
];

const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
const selfUs = new Map();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const us = profile.timeDeltas[i] ?? 0;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + us);
  total += us;
}
const stages = new Map();
const functions = new Map();
for (const [id, us] of selfUs) {
  const { url, functionName, lineNumber } = byId.get(id);
  const name = functionName || '(anonymous)';
  const stage = STAGES.find(([, test]) => test(url, name))?.[0] ?? 'other';
  stages.set(stage, (stages.get(stage) ?? 0) + us);
  const where = url === '' ? '(native)' : `${url.replace(/^.*\/dist\//, 'dist/')}:${lineNumber + 1}`;
  const key = `${name}  ${where}`;
  functions.set(key, (functions.get(key) ?? 0) + us);
}

const rows = (m, n) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`)
    .join('\n');
console.log(`${input}: ${result.rounds} rounds, wall ${(result.ms / 1000).toFixed(2)} s, user CPU ${(result.cpuMs / 1000).toFixed(2)} s, peak RSS ${result.rssMb.toFixed(0)} MB; one thread; load average ${load.toFixed(2)} before the run`);
console.log(`\nself time by stage (of ${(total / 1000).toFixed(0)} ms sampled)\n${rows(stages, STAGES.length + 1)}`);
console.log(`\nfunctions by self time\n${rows(functions, top)}`);
