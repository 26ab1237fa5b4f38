// Where the ledger's CPU goes, by stage and by thread, from a CPU-time sampler (issue 30):
// `perf record -e cpu-clock` samples only while a thread runs, so unlike `--cpu-prof` (wall time per
// sample) its shares hold on a loaded machine, and it sees V8's own threads (the optimizing compiler,
// concurrent GC). Runs bench/ledger.mjs under perf with `--perf-basic-prof` (JIT frames named) and
// sums samples by thread kind and pipeline stage: a sample goes to GC, the compiler or JSON.parse by
// its native frame, else to the stage of the first JavaScript frame of dist/ on its stack.
//   node bench/perf-stages.mjs PATH [--jobs N] [--dist DIR] [--top 30] [--detail STAGE]
//   (--detail: in the stages whose name starts so, e.g. --detail tool, the samples by first
//   JavaScript frame and native leaf)
//   (--dist: another checkout's dist/, e.g. /work/main/dist, to compare builds under the same load)

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { jobs: { type: 'string', default: '1' }, top: { type: 'string', default: '30' }, dist: { type: 'string' }, detail: { type: 'string' } },
});
const input = positionals[0];
if (input === undefined) {
  console.error('usage: node bench/perf-stages.mjs PATH [--jobs N] [--dist DIR] [--top 30] [--detail STAGE]');
  process.exit(2);
}
const { jobs, dist, detail } = opts;
const top = Number(opts.top);
const ledger = dist === undefined ? join(here, 'ledger.mjs') : join(resolve(dist), '..', 'bench', 'ledger.mjs');
const dir = mkdtempSync(join(tmpdir(), 'loopledger-perf-'));
const data = join(dir, 'perf.data');
const load = loadavg()[0];
// In the scratch folder: V8 writes its isolate logs where it runs. Node writes /tmp/perf-PID.map
// (JIT code names) for perf script, removed below.
const out = execFileSync(
  'perf',
  ['record', '-q', '-e', 'cpu-clock', '-F', '1999', '-g', '-o', data, process.execPath, '--perf-basic-prof', ledger, resolve(input), '--jobs', jobs],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], cwd: dir },
);
const result = JSON.parse(out.trim().split('\n').pop());
const script = execFileSync('perf', ['script', '-i', data, '-F', 'tid,ip,sym'], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
rmSync(dir, { recursive: true, force: true });
const pids = new Set(script.split('\n').map((l) => /^\s*(\d+)\s/.exec(l)?.[1]).filter(Boolean));
for (const pid of pids) rmSync(join(tmpdir(), `perf-${pid}.map`), { force: true });

const NATIVE = [
  ['GC', /Scaveng|MarkCompact|MarkingVisitor|ConcurrentMarking|Sweeper|Heap::|Evacuat|MinorMark|GCTracer|MemoryAllocator/],
  ['optimizing compiler', /compiler::|Turboshaft|turboshaft|maglev::|Maglev/],
  ['JSON.parse', /JsonParser/],
  // Parsing and bytecode for functions as they are first called (what a code cache would spare).
  ['bytecode compiler', /internal::Parser|ParserBase|internal::Scanner|BytecodeGenerator|Compiler::Compile|PreParser/],
];
const STAGES = [
  ['read and decode', /\/dist\/read\//],
  ['format adapter (JSON.parse apart)', /\/dist\/formats\//],
  ['transcript model', /\/dist\/model\//],
  ['tool-batch detectors', /\/dist\/detect\/tool-batch\//],
  ['text detectors', /\/dist\/detect\/(text|output|thinking)\//],
  ['other detectors', /\/dist\/detect\//],
  ['ladder, ledger, money', /\/dist\/(ladder|ledger|money)\//],
  ['report', /\/dist\/report\//],
  ['run (lanes, messages)', /\/dist\/run\//],
  ['module loading', /node:internal\/modules|node:internal\/bootstrap/],
];

// The threads start from esbuild's bundles (dist/*-worker.js, dist/loopledger.cjs), whose frames
// name the bundle, not the module: esbuild marks where each module's code starts with a
// `// dist/<module>` line, so a frame's line in the bundle gives back its module.
const bundleModules = new Map();
function modulesOf(file) {
  if (!bundleModules.has(file)) {
    const starts = [];
    if (existsSync(file)) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        const m = /^\/\/ (dist\/\S+\.js)$/.exec(line);
        if (m) starts.push([i + 1, m[1]]);
      });
    }
    bundleModules.set(file, starts);
  }
  return bundleModules.get(file);
}
function unbundled(frame) {
  // A JIT frame's name may hold spaces ("get removed"): everything up to the file URL is its name.
  const m = /^(JS:.*? )file:\/\/(\S*\/dist\/)([^/\s]+\.c?js):(\d+)(.*)$/.exec(frame);
  if (m === null) return frame;
  const starts = modulesOf(m[2] + m[3]);
  const line = Number(m[4]);
  let module = null;
  for (const [from, name] of starts) {
    if (from > line) break;
    module = name;
  }
  return module === null ? frame : `${m[1]}file://${m[2].slice(0, -'dist/'.length)}${module}:${m[4]}${m[5]}`;
}

const byThread = new Map();
/** Per thread, its samples by stage: which half of a pipeline is the longer. */
const stagesByThread = new Map();
const byStage = new Map();
const byLeaf = new Map();
const byDetail = new Map();
const byDetailJs = new Map();
let total = 0;
let mainTid = null;
const add = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
for (const block of script.split('\n\n')) {
  const lines = block.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) continue;
  const tid = lines[0].trim().split(/\s+/)[0];
  mainTid ??= tid;
  const frames = lines.slice(1).map((l) => unbundled(l.trim().replace(/^[0-9a-f]+\s+/, '')));
  total += 1;
  const leaf = frames[0] ?? '?';
  add(byLeaf, leaf.slice(0, 140));
  let stage = NATIVE.find(([, re]) => frames.slice(0, 8).some((f) => !f.startsWith('JS:') && re.test(f)))?.[0];
  if (stage === undefined) {
    for (const f of frames) {
      const s = STAGES.find(([, re]) => f.startsWith('JS:') && re.test(f));
      if (s) {
        stage = s[0];
        break;
      }
    }
  }
  stage ??= 'other (no dist/ frame)';
  add(byStage, stage);
  if (detail !== undefined && stage.startsWith(detail)) {
    // The first JavaScript frame (where the time is spent, native callees included) and the leaf.
    const js = frames.find((f) => f.startsWith('JS:')) ?? '(no JS frame)';
    add(byDetailJs, js.replace(/file:\/\/\S*\/dist\//, ''));
    add(byDetail, `${js.replace(/file:\/\/\S*\/dist\//, '')}${js === leaf ? '' : `  [${leaf.slice(0, 60)}]`}`);
  }
  const thread = tid === mainTid ? 'first thread' : `thread ${tid}`;
  add(byThread, thread);
  if (!stagesByThread.has(thread)) stagesByThread.set(thread, new Map());
  add(stagesByThread.get(thread), stage);
}
const pct = (n) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
const ms = (n) => `${((n * 1000) / 1999).toFixed(0).padStart(6)} ms`;
const show = (m, n) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .forEach(([k, v]) => console.log(`  ${pct(v)} ${ms(v)}  ${k}`));
console.log(
  `${input}: ${result.rounds} rounds, --jobs ${jobs}, wall ${(result.ms / 1000).toFixed(2)} s, user CPU ${(result.cpuMs / 1000).toFixed(2)} s, peak RSS ${result.rssMb.toFixed(0)} MB; load average ${load.toFixed(2)} before the run; ${total} samples (${ms(total).trim()} of CPU)`,
);
console.log('\nby thread');
show(byThread, 12);
// The three busiest threads, and the first (the CLI's own), which starts the others and writes the report.
const busiest = [...byThread].sort((a, b) => b[1] - a[1]).slice(0, 3);
if (!busiest.some(([thread]) => thread === 'first thread') && byThread.has('first thread')) busiest.push(['first thread', byThread.get('first thread')]);
for (const [thread, n] of busiest) {
  console.log(`\n${thread} (${ms(n).trim()}) by stage`);
  show(stagesByThread.get(thread), 8);
}
console.log('\nby stage');
show(byStage, 20);
console.log('\nleaf frames');
show(byLeaf, top);
if (detail !== undefined) {
  console.log(`\n${detail}: first JavaScript frame`);
  show(byDetailJs, top);
  console.log(`\n${detail}: first JavaScript frame [native leaf]`);
  show(byDetail, top);
}
