// `npm run bench`: generate the corpora inside the repo (bench/corpus/, git-ignored, seeded) and
// time, per corpus and in one run, a bare readline+JSON.parse pass and the whole ledger over the
// same input, each in its own process so its peak memory is its own. Compare the ratios, not
// seconds: the machine is shared and noisy. The corpora (SPEC "Performance"):
//   bench        Claude Code JSONL, tool results heavy (the original bench corpus), at 1× and 2×
//   text-heavy   Claude Code JSONL heavy in assistant text and thinking (~120 KB visible text per MB)
//   store        2,000 session files of realistic sizes (median ~30 KB, max 4.6 MB, ~305 MB)
// ccusage's time over the store is shown when `ccusage` (18.0.11) is installed where it is found:
// $CCUSAGE, node_modules/.bin, /tmp/ccu/node_modules/.bin, or on PATH. It is never a dependency.
//   npm run bench -- --mb 150                (the size of the single-file corpora; default 150)
//   npm run bench -- --only text-heavy,store (a subset: bench, bench-2x, text-heavy, store, 1gb)
//   npm run bench -- --only 1gb              (a 1 GB text-heavy file: peak RSS; deleted afterwards
//                                             unless --keep)
//   npm run bench -- --runs 3                (each measurement alternated N times, the fastest kept)
//   npm run bench -- --against ../other-checkout   (also time that checkout's ledger, built, in the
//                                             same run, alternating: before/after ratios of a change)
//   npm run bench -- --jobs 1                (the ledger on one thread)

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';
import { generateStore } from './store.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const mb = Number(arg('--mb', '150'));
const runs = Number(arg('--runs', '1'));
const only = arg('--only', 'bench,bench-2x,text-heavy,store').split(',');
const jobs = arg('--jobs', undefined);
const against = arg('--against', undefined);
const corpus = join(here, 'corpus');
mkdirSync(corpus, { recursive: true });

const node = (script, input, extra = []) =>
  JSON.parse(execFileSync(process.execPath, [script, input, ...extra], { encoding: 'utf8', maxBuffer: 1 << 20 }));
const ledgerArgs = jobs === undefined ? [] : ['--jobs', jobs];

function findCcusage() {
  const candidates = [process.env.CCUSAGE, join(here, '..', 'node_modules', '.bin', 'ccusage'), '/tmp/ccu/node_modules/.bin/ccusage'];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) candidates.push(join(dir, 'ccusage'));
  return candidates.find((c) => c && existsSync(c));
}
const ccusage = findCcusage();

/** ccusage over a store folder (DIR/projects/…), offline, its JSON discarded; time and peak RSS. */
function timeCcusage(dir) {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', ccusage, 'session', '--offline', '--json'], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: resolve(dir), NO_COLOR: '1' },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) return null;
  return { ms, rssMb: Number(r.stderr.trim().split('\n').pop()) / 1024 };
}

const sizeOf = (path) =>
  statSync(path).isDirectory() ? readdirSync(path, { withFileTypes: true }).reduce((s, e) => s + sizeOf(join(path, e.name)), 0) : statSync(path).size;

async function ensure(name) {
  if (name === 'bench' || name === 'bench-2x') {
    const k = name === 'bench' ? 1 : 2;
    const file = join(corpus, `claude-code-${mb * k}mb.jsonl`);
    if (!existsSync(file)) await generate(file, mb * k * 1024 * 1024);
    return file;
  }
  if (name === 'text-heavy' || name === '1gb') {
    const size = name === '1gb' ? 1024 : mb;
    const file = join(corpus, `text-heavy-${size}mb.jsonl`);
    if (!existsSync(file)) await generate(file, size * 1024 * 1024, 7, { profile: 'text' });
    return file;
  }
  if (name === 'store') {
    const dir = join(corpus, 'store-2000');
    if (!existsSync(join(dir, 'projects'))) await generateStore(dir);
    return dir;
  }
  throw new Error(`unknown corpus ${name}`);
}

const best = (xs) => xs.reduce((a, b) => (b.ms < a.ms ? b : a));
const rows = [];
for (const name of only) {
  const input = await ensure(name);
  const size = sizeOf(input) / 1048576;
  const base = [];
  const ledger = [];
  const other = [];
  const cc = [];
  for (let i = 0; i < runs; i++) {
    base.push(node(join(here, 'baseline.mjs'), input));
    ledger.push(node(join(here, 'ledger.mjs'), input, ledgerArgs));
    if (against) other.push(node(join(resolve(against), 'bench', 'ledger.mjs'), input, ledgerArgs));
    if (ccusage && name === 'store') {
      const c = timeCcusage(input);
      if (c) cc.push(c);
    }
  }
  const b = best(base);
  const l = best(ledger);
  const row = {
    corpus: name,
    size: `${size.toFixed(0)} MB`,
    'bare MB/s': (size / (b.ms / 1000)).toFixed(1),
    'ledger MB/s': (size / (l.ms / 1000)).toFixed(1),
    ratio: (l.ms / b.ms).toFixed(2),
    'bare RSS': b.rssMb.toFixed(0),
    'ledger RSS': l.rssMb.toFixed(0),
  };
  if (against) {
    const o = best(other);
    row['against ratio'] = (o.ms / b.ms).toFixed(2);
    row['against RSS'] = o.rssMb.toFixed(0);
  }
  if (cc.length > 0) {
    const c = best(cc);
    row['ccusage s'] = (c.ms / 1000).toFixed(2);
    row['ledger/ccusage'] = (l.ms / c.ms).toFixed(2);
  }
  row.rounds = l.rounds;
  row.entries = l.entries;
  rows.push(row);
  if (name === '1gb' && !args.includes('--keep')) rmSync(input);
}
console.table(rows);
if (only.includes('store') && !ccusage) console.log('ccusage: not installed (e.g. mkdir /tmp/ccu && cd /tmp/ccu && npm i ccusage@18.0.11), not timed.');
console.log('target (SPEC): ratio ≤ 1.5 on text-heavy and store; faster than ccusage on the store; peak RSS < 200 MB at 1 GB and on the store.');
