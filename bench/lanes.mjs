// Per-lane throughput (issue 59, item 4; docs/scale.md): the CLI over one store with each `--jobs`
// given, one run each, alternated, printing wall time, MB/s, sessions/s, CPU, peak RSS and the
// main thread's CPU (read from /proc while the run goes: what it spends receiving and adding up
// the lanes' ledgers and writing the report, the part more lanes do not divide).
//   node bench/lanes.mjs STORE [--jobs 1,2,3,4] [--runs 1]
// The store: `node bench/real-store.mjs claude DIR` (the real-shaped store of `npm run bench`).

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const { values: opts, positionals } = parseArgs({ allowPositionals: true, options: { jobs: { type: 'string', default: '1,2,3,4' }, runs: { type: 'string', default: '1' } } });
const store = positionals[0];
if (store === undefined) {
  console.error('usage: node bench/lanes.mjs STORE [--jobs 1,2,3,4] [--runs 1]');
  process.exit(2);
}
const runs = Math.min(3, Number(opts.runs));
const jobsList = opts.jobs.split(',').map(Number);
const CLOCK_TICKS = 100;

/** Bytes under `dir`, every file. */
function bytesUnder(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  let sum = 0;
  for (const name of readdirSync(path)) sum += bytesUnder(join(path, name));
  return sum;
}

/** utime + stime of one thread, in seconds; null once it has ended. */
function threadCpu(pid, tid) {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

async function runOnce(jobs, out) {
  const cli = join(here, '..', 'bin', 'loopledger.js');
  const child = spawn('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, cli, resolve(store), '--format', 'json', '--jobs', String(jobs), '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // The node process is /usr/bin/time's child: find it once it exists, then sample its main thread.
  // `whileLanes`: the main thread's CPU at the last sample the process had its most threads (the
  // lanes alive), i.e. what it spent beside them; the rest is after them (the report, written alone).
  let main = 0;
  let whileLanes = 0;
  let mostThreads = 0;
  const sampler = setInterval(() => {
    try {
      const node = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim();
      if (node === '') return;
      const threads = readdirSync(`/proc/${node}/task`).length;
      const cpu = threadCpu(node, node);
      if (cpu === null) return;
      main = cpu;
      if (threads >= mostThreads) {
        mostThreads = threads;
        whileLanes = cpu;
      }
    } catch {
      // the run has ended
    }
  }, 25);
  const code = await new Promise((done) => child.on('close', done));
  clearInterval(sampler);
  const [wall, user, sys, rssKb] = stderr.trim().split('\n').at(-1).split(' ').map(Number);
  if (code !== 0 && code !== 1) throw new Error(`--jobs ${jobs}: exit ${code}\n${stderr}`);
  const sessions = JSON.parse(readFileSync(out, 'utf8')).summary.sessions;
  return { wall, cpu: user + sys, rssMb: rssKb / 1024, main, whileLanes, sessions };
}

const mb = bytesUnder(store) / 2 ** 20;
const dir = mkdtempSync(join(tmpdir(), 'loopledger-lanes-'));
console.log(`${store}: ${mb.toFixed(0)} MB; ${availableParallelism()} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log('jobs | wall s | MB/s | sessions/s | CPU s | main thread CPU s (beside the lanes) | peak RSS MB');
try {
  for (let run = 0; run < runs; run++) {
    for (const jobs of jobsList) {
      const r = await runOnce(jobs, join(dir, 'ledger.json'));
      console.log(`${jobs} | ${r.wall.toFixed(2)} | ${(mb / r.wall).toFixed(1)} | ${(r.sessions / r.wall).toFixed(0)} | ${r.cpu.toFixed(2)} | ${r.main.toFixed(2)} (${r.whileLanes.toFixed(2)}) | ${r.rssMb.toFixed(0)}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
