// `npm run bench`: generate a Claude Code corpus inside the repo (bench/corpus/, git-ignored), then
// time a bare readline+JSON.parse pass and the full ledger over the same file in one run, at 1× and
// 2× the size, each in its own process so peak memory is its own. Compare the ratios, not seconds.
//   npm run bench -- --mb 150        (default 150 MB; 1× and 2×)
//   npm run bench -- --mb 1024 --sizes 1
//   npm run bench -- --jobs 1      (the ledger on one thread; by default a large file is pipelined
//                                   across two threads, as the CLI does)

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const mb = Number(arg('--mb', '150'));
const sizes = arg('--sizes', '1,2').split(',').map(Number);
const corpus = join(here, 'corpus');
mkdirSync(corpus, { recursive: true });

const jobs = arg('--jobs', undefined);
const run = (script, file, extra = []) =>
  JSON.parse(execFileSync(process.execPath, [join(here, script), file, ...extra], { encoding: 'utf8', maxBuffer: 1 << 20 }));

const rows = [];
for (const k of sizes) {
  const file = join(corpus, `claude-code-${mb * k}mb.jsonl`);
  if (!existsSync(file)) await generate(file, mb * k * 1024 * 1024);
  const size = statSync(file).size / 1048576;
  const base = run('baseline.mjs', file);
  const ledger = run('ledger.mjs', file, jobs === undefined ? [] : ['--jobs', jobs]);
  rows.push({
    size: `${size.toFixed(0)} MB`,
    'baseline MB/s': (size / (base.ms / 1000)).toFixed(1),
    'ledger MB/s': (size / (ledger.ms / 1000)).toFixed(1),
    ratio: (ledger.ms / base.ms).toFixed(2),
    'baseline RSS MB': base.rssMb.toFixed(0),
    'ledger RSS MB': ledger.rssMb.toFixed(0),
    rounds: ledger.rounds,
    entries: ledger.entries,
  });
}
console.table(rows);
console.log('target (SPEC): ratio ≤ 2 (aim 1.5); peak RSS < 200 MB at 1 GB; time linear in size.');
