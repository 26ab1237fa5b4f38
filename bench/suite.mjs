#!/usr/bin/env node
// The test suite's own footprint (issue 31, item 6): wall time, CPU and the peak memory of the
// process tree it starts, sampled from /proc, so the figure is the suite's and not whatever else
// the machine runs (system-wide "memory in use" counts other sessions and the page cache too).
//
//   node bench/suite.mjs                      # npx vitest run
//   node bench/suite.mjs -- npm test          # any command
//   node bench/suite.mjs --every 250 -- npx vitest run test/cli
//   node bench/suite.mjs --log samples.tsv     # every sample: seconds, MB, the three largest
//
// Memory is the sum of PSS (proportional set size: a page shared by N processes counts 1/N in
// each) over every live descendant, so forked workers sharing Node's code are not counted twice.
// At the peak it names the largest processes, which says which test file drove it.

import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

const argv = process.argv.slice(2);
let every = 500;
let log;
const dash = argv.indexOf('--');
const own = dash === -1 ? argv : argv.slice(0, dash);
for (let i = 0; i < own.length; i++) {
  if (own[i] === '--every') every = Number(own[++i]);
  else if (own[i] === '--log') log = own[++i];
  else {
    console.error(`bench/suite.mjs: unknown option ${own[i]} (usage: node bench/suite.mjs [--every MS] [-- command…])`);
    process.exit(2);
  }
}
const command = dash === -1 ? ['npx', 'vitest', 'run'] : argv.slice(dash + 1);
if (command.length === 0 || !Number.isFinite(every) || every < 50) {
  console.error('bench/suite.mjs: usage: node bench/suite.mjs [--every MS] [-- command…]');
  process.exit(2);
}

const TICKS = 100; // USER_HZ on Linux
const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process ended between listing and reading
  }
};

/** pid → parent pid for every process now. */
function parents() {
  const map = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    if (stat === undefined) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    map.set(Number(name), Number(fields[1]));
  }
  return map;
}

function descendants(root) {
  const map = parents();
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of map) {
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return tree;
}

const kb = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text ?? '')?.[1] ?? 0);

function sample(root) {
  const procs = [];
  for (const pid of descendants(root)) {
    const rollup = read(`/proc/${pid}/smaps_rollup`);
    if (rollup === undefined) continue;
    const cmd = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean).join(' ');
    procs.push({ pid, pss: kb(rollup, 'Pss'), rss: kb(rollup, 'Rss'), cmd });
  }
  return procs;
}

const started = Date.now();
if (log) writeFileSync(log, 'seconds\tpss_mb\tlargest\n');
const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
let peak = { pss: 0, rss: 0, at: 0, procs: [] };
let samples = 0;
const timer = setInterval(() => {
  const procs = sample(child.pid);
  const pss = procs.reduce((s, p) => s + p.pss, 0);
  const rss = procs.reduce((s, p) => s + p.rss, 0);
  samples++;
  if (log) {
    const top = [...procs].sort((a, b) => b.pss - a.pss).slice(0, 3);
    const named = top.map((p) => `${(p.pss / 1024).toFixed(0)} [${p.pid}] ${p.cmd.replace(/^\S*node\s+/, '').slice(0, 120)}`);
    appendFileSync(log, `${((Date.now() - started) / 1000).toFixed(1)}\t${(pss / 1024).toFixed(0)}\t${named.join(' | ')}\n`);
  }
  if (pss > peak.pss) peak = { pss, rss: Math.max(rss, peak.rss), at: Date.now() - started, procs };
}, every);

child.on('exit', (code, signal) => {
  clearInterval(timer);
  const wall = (Date.now() - started) / 1000;
  // The child's own CPU and its waited-for descendants' (/proc/self/stat: cutime, cstime).
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const cutime = Number(fields[13]) / TICKS;
  const cstime = Number(fields[14]) / TICKS;
  const mb = (k) => (k / 1024).toFixed(0);
  const top = peak.procs.sort((a, b) => b.pss - a.pss).slice(0, 6);
  process.stderr.write(
    [
      '',
      `suite: ${command.join(' ')}`,
      `  exit ${code ?? signal}, wall ${wall.toFixed(1)} s, CPU ${cutime.toFixed(1)} s user + ${cstime.toFixed(1)} s sys (${((cutime + cstime) / wall).toFixed(2)} cores)`,
      `  peak PSS of the process tree ${mb(peak.pss)} MB at ${(peak.at / 1000).toFixed(0)} s (${samples} samples every ${every} ms; RSS summed ${mb(peak.rss)} MB)`,
      '  largest processes at that peak:',
      ...top.map((p) => `    ${mb(p.pss).padStart(5)} MB  ${p.cmd.slice(0, 150)}`),
      '',
    ].join('\n'),
  );
  process.exit(code ?? 1);
});
