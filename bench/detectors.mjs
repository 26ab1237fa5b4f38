// Detector cost per MB of text: the output and thinking detectors over prose without loops and
// prose with loops, as MB/s. Run `npx tsc -p tsconfig.json` first; this imports the compiled
// detectors from ../dist. The corpus is generated here (seeded), so runs are comparable.
//   node --expose-gc bench/detectors.mjs [MB]     (--expose-gc: the corpus's garbage is collected
//   before timing, so it is not billed to the detectors)
//   node --expose-gc bench/detectors.mjs [MB] --against DIR [--runs N]
//     compares this build with another compiled one (DIR: its dist/, e.g. main's built in a
//     scratch copy), each run in a fresh process, alternated, N times (default 5), and prints the
//     median MB/s of each and their ratio, with the load average: on a shared machine only a
//     ratio measured in one run means anything.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? null : args.splice(i, 2)[1];
};
const against = flag('--against');
const runs = Number(flag('--runs') ?? 5);
const distArg = flag('--dist');
const json = args.includes('--json') && args.splice(args.indexOf('--json'), 1).length > 0;
const MB = Number(args[0] ?? 16);
const ownDist = fileURLToPath(new URL('../dist', import.meta.url));

if (against !== null) {
  compare(ownDist, resolve(against));
  process.exit(0);
}

const dist = pathToFileURL(resolve(distArg ?? ownDist)).href;
const { OutputLoopDetector } = await import(`${dist}/detect/output/index.js`);
const { ThinkingLoopDetector } = await import(`${dist}/detect/thinking/index.js`);

// As the ledger runs them: a turn's detectors take their arrays from one pool per thread and give
// them back when the turn ends (a build from before the pool has none: each detector allocates).
const poolModule = new URL(`${dist}/detect/text/pool.js`);
const { ArrayPool } = existsSync(poolModule) ? await import(poolModule.href) : { ArrayPool: null };
const pool = ArrayPool ? new ArrayPool() : undefined;

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = 'the a of to in is that for it with as was on be by this from are at which not have has its their can will more when'.split(' ');
const SYL = 'ka ro mi tel sun dra ven lo pra zi mor qua bel fin gri sto nev ul tor es an vi den sar cor pil mut hex yon rab'.split(' ');

function sentence(r) {
  const n = 8 + Math.floor(r() * 13);
  const w = [];
  for (let i = 0; i < n; i++) {
    if (r() < 0.45) w.push(COMMON[Math.floor(r() * COMMON.length)]);
    else {
      let x = '';
      for (let k = 2 + Math.floor(r() * 2); k > 0; k--) x += SYL[Math.floor(r() * SYL.length)];
      w.push(x);
    }
  }
  const s = w.join(' ');
  return s[0].toUpperCase() + s.slice(1) + '.';
}

/** Rounds of ~2 KB: paragraphs, with a fenced block and a list now and then. */
function rounds(seed, totalChars, loops) {
  const r = rng(seed);
  const out = [];
  let size = 0;
  let loopUnit = '';
  while (size < totalChars) {
    let t = '';
    while (t.length < 2000) {
      t += sentence(r) + (r() < 0.2 ? '\n\n' : ' ');
      if (r() < 0.02) t += '\n```\nconst x = load(config);\nconst x = load(config);\n```\n';
      if (r() < 0.02) t += '\n- item one\n- item two\n';
    }
    if (loops) {
      // A chanted tail, a stalled connector run and a paragraph repeated three times.
      if (r() < 0.3 || loopUnit === '') loopUnit = t.slice(0, 300 + Math.floor(r() * 500));
      t += '\n' + loopUnit.repeat(3) + ' ' + 'la '.repeat(20) + 'wait, but actually, '.repeat(4);
    }
    out.push(t);
    size += t.length;
  }
  return { out, size };
}

/** CPU time, not wall time: the figure stays meaningful on a machine busy with other work. */
function time(fn) {
  const c0 = process.cpuUsage();
  const n = fn();
  const c = process.cpuUsage(c0);
  return { ms: (c.user + c.system) / 1000, n };
}

function benchOutput(rs) {
  return time(() => {
    let findings = 0;
    let d = new OutputLoopDetector({}, pool);
    rs.forEach((t, i) => {
      // A fresh detector per turn of 50 rounds, as the ledger does.
      if (i % 50 === 0) {
        d.release?.();
        d = new OutputLoopDetector({}, pool);
      }
      findings += d.feed(t).length + d.endSegment().length + d.analyze().length;
      d.takeMeasurements();
    });
    return findings;
  });
}

function benchThinking(rs) {
  return time(() => {
    let findings = 0;
    let d = new ThinkingLoopDetector({}, pool);
    rs.forEach((t, i) => {
      if (i % 50 === 0) {
        d.release?.();
        d = new ThinkingLoopDetector({}, pool);
      }
      findings += d.feedBlock(t).length;
      d.takeMeasurements();
    });
    return findings;
  });
}

const total = MB * 1024 * 1024;
const figures = {};
for (const [label, loops] of [['prose without loops', false], ['prose with loops', true]]) {
  const { out, size } = rounds(7, total, loops);
  const mb = size / 1024 / 1024;
  benchOutput(out.slice(0, 200)); // warm-up
  globalThis.gc?.();
  const o = benchOutput(out);
  globalThis.gc?.();
  const t = benchThinking(out);
  const fmt = (r) => `${(mb / (r.ms / 1000)).toFixed(1)} MB/s (${r.ms.toFixed(0)} ms cpu, ${r.n} findings)`;
  figures[label] = { output: mb / (o.ms / 1000), thinking: mb / (t.ms / 1000), findings: [o.n, t.n] };
  if (!json) process.stdout.write(`${label.padEnd(20)} ${mb.toFixed(1)} MB  output ${fmt(o)}  thinking ${fmt(t)}\n`);
}
if (json) process.stdout.write(JSON.stringify(figures) + '\n');

/** Both builds, one process each per run, alternated; medians and the ratio this/other. */
function compare(mine, other) {
  const script = fileURLToPath(import.meta.url);
  const samples = { mine: [], other: [] };
  const load = [loadavg()[0]];
  for (let r = 0; r < runs; r++) {
    // Alternate which goes first, so neither always meets the other's leftover load.
    const order = r % 2 === 0 ? ['mine', 'other'] : ['other', 'mine'];
    for (const who of order) {
      const out = execFileSync(process.execPath, ['--expose-gc', script, String(MB), '--json', '--dist', who === 'mine' ? mine : other], { encoding: 'utf8' });
      samples[who].push(JSON.parse(out));
    }
    load.push(loadavg()[0]);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  process.stdout.write(`${runs} runs each of ${MB} MB, alternated; load average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)}\n`);
  process.stdout.write(`this build: ${mine}\nagainst:    ${other}\n`);
  for (const label of Object.keys(samples.mine[0])) {
    for (const det of ['output', 'thinking']) {
      const a = samples.mine.map((f) => f[label][det]);
      const b = samples.other.map((f) => f[label][det]);
      const same = samples.mine.every((f, i) => f[label].findings.join() === samples.other[i][label].findings.join());
      process.stdout.write(
        `${label.padEnd(20)} ${det.padEnd(8)} ${median(a).toFixed(1).padStart(6)} MB/s against ${median(b).toFixed(1).padStart(6)} MB/s: ${(median(a) / median(b)).toFixed(2)}x (range ${Math.min(...a).toFixed(1)}-${Math.max(...a).toFixed(1)} against ${Math.min(...b).toFixed(1)}-${Math.max(...b).toFixed(1)})${same ? '' : '  FINDING COUNTS DIFFER'}\n`,
      );
    }
  }
}
