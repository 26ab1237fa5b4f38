// `npm run bench`: generate the corpora inside the repo (bench/corpus/, git-ignored, seeded) and
// time, per corpus and in one run, a bare readline+JSON.parse pass and the whole ledger over the
// same input, each in its own process so its peak memory is its own, alternated run by run
// (bare, ledger, ccusage, bare, ledger, …), so each run's ratios compare measurements taken under
// the same load. Printed per corpus: min / median / max of the per-run ratios. Compare ratios,
// not seconds: the machine is shared and noisy. The corpora (SPEC "Performance"):
//   real         a Claude Code store shaped like real sessions (the wild corpus's shapes,
//                bench/wild-shapes.json; ~305 MB, 1,000 files, sub-agents, compactions, loops of
//                93, 916 and 1,801 rounds; bench/real-store.mjs), its shapes printed beside the real ones
//   codex        a Codex rollouts store shaped like real rollouts (180 files, ~106 MB), likewise
//   bench        Claude Code JSONL, tool results heavy (the original bench corpus), at 1× and 2×
//   text-heavy   Claude Code JSONL heavy in assistant text and thinking (~120 KB visible text per MB)
//   store        2,000 session files of realistic sizes (median ~30 KB, max 4.6 MB, ~305 MB)
// ccusage 18 (JavaScript) and 20 (native) are timed over the stores they read, alternated with the
// rest: bench/ccusage.mjs installs them from the registry into a cache folder outside the repo
// (skipped with the reason where it cannot; $CCUSAGE replaces 18). They are never dependencies.
//   npm run bench -- --mb 150                (the size of the single-file corpora; default 150)
//   npm run bench -- --only text-heavy,store (a subset: real, codex, bench, bench-2x, text-heavy, store, 1gb, otel)
//   npm run bench -- --only 1gb              (a 1 GB text-heavy file: peak RSS; deleted afterwards
//                                             unless --keep)
//   npm run bench -- --only otel             (issue 32: OTLP/JSON files, Claude Code's own telemetry and
//                                             the GenAI conventions, against a Claude Code transcript of
//                                             the same sessions and size: speed per byte to the
//                                             transcript's in the same run; bench/otel-corpus.mjs)
//   npm run bench -- --runs 5                (each measurement alternated N times; default 3)
//   npm run bench -- --against ../other-checkout   (also time that checkout's ledger, built, in the
//                                             same run, alternating: before/after ratios of a change)
//   npm run bench -- --jobs 1                (the ledger on one thread)
// Where ccusage is timed, each run also times the ledger's own line reader with JSON.parse and
// nothing else (bench/read-floor.mjs) and prints the floors against ccusage: the bare pass, the
// time inside JSON.parse alone, and that line reader (issue 59: ccusage 20 is native).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';
import { generateStore } from './store.mjs';
import { generateOtelCorpus } from './otel-corpus.mjs';
import { generateClaudeStore, generateCodexStore } from './real-store.mjs';
import { CCUSAGE, installCcusage, timeCcusage } from './ccusage.mjs';
import { shapeLines } from './measure-corpus.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const mb = Number(arg('--mb', '150'));
const runs = Number(arg('--runs', '3'));
const only = arg('--only', 'real,codex,text-heavy,store').split(',');
const jobs = arg('--jobs', undefined);
const against = arg('--against', undefined);
const corpus = join(here, 'corpus');
const loadAtStart = loadavg();
mkdirSync(corpus, { recursive: true });

const node = (script, input, extra = []) =>
  JSON.parse(execFileSync(process.execPath, [script, input, ...extra], { encoding: 'utf8', maxBuffer: 1 << 20 }));
const ledgerArgs = jobs === undefined ? [] : ['--jobs', jobs];

/** The corpora ccusage reads, with the kind of store it is told each is. */
const ccusageKind = { real: 'claude', store: 'claude', codex: 'codex' };
const ccusage = only.some((n) => ccusageKind[n]) ? installCcusage() : { 18: {}, 20: {} };
// The real-shaped stores' folders carry a hash of their generator, so a changed generator makes a new store.
const generatorStamp = createHash('sha256').update(readFileSync(join(here, 'real-store.mjs'))).digest('hex').slice(0, 8);

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
  if (name === 'real' || name === 'codex') {
    const dir = join(corpus, `real-${name === 'real' ? 'claude' : 'codex'}-${generatorStamp}`);
    const marker = join(dir, name === 'real' ? 'projects' : 'sessions');
    if (!existsSync(marker)) await (name === 'real' ? generateClaudeStore : generateCodexStore)(dir);
    return dir;
  }
  if (name === 'store') {
    const dir = join(corpus, 'store-2000');
    if (!existsSync(join(dir, 'projects'))) await generateStore(dir);
    return dir;
  }
  throw new Error(`unknown corpus ${name}`);
}

/** min / median / max of numbers, as "a / b / c". */
const spread = (xs, digits = 2) => {
  const v = [...xs].sort((a, b) => a - b);
  return [v[0], v[Math.floor((v.length - 1) / 2)], v.at(-1)].map((x) => x.toFixed(digits)).join(' / ');
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const rows = [];

/** The OTLP files and their transcript, each timed once per run back to back: per byte, OTLP's speed over the transcript's. */
async function measureOtel() {
  const files = await generateOtelCorpus(mb, join(corpus, 'otel'));
  const kinds = Object.keys(files);
  const seen = Object.fromEntries(kinds.map((k) => [k, { msPerMb: [], bare: [], perByte: [], rss: [], bareRss: [] }]));
  let last = {};
  for (let i = 0; i < runs; i++) {
    for (const k of kinds) {
      const size = sizeOf(files[k]) / 1048576;
      const b = node(join(here, 'baseline.mjs'), files[k]);
      const l = node(join(here, 'ledger.mjs'), files[k], ledgerArgs);
      last[k] = l;
      seen[k].msPerMb.push(l.ms / size);
      seen[k].bare.push(l.ms / b.ms);
      seen[k].rss.push(l.rssMb);
      seen[k].bareRss.push(b.rssMb);
    }
    for (const k of kinds) seen[k].perByte.push(seen.transcript.msPerMb.at(-1) / seen[k].msPerMb.at(-1));
  }
  for (const k of kinds) {
    const s = seen[k];
    rows.push({
      corpus: `otel ${k}`,
      size: `${(sizeOf(files[k]) / 1048576).toFixed(0)} MB`,
      'ledger MB/s (median)': (1000 / median(s.msPerMb)).toFixed(1),
      'ledger/bare min/med/max': spread(s.bare),
      'per byte: speed/transcript': spread(s.perByte),
      'peak RSS MB bare/ledger': `${Math.max(...s.bareRss).toFixed(0)} / ${Math.max(...s.rss).toFixed(0)}`,
      sessions: last[k].sessions,
      rounds: last[k].rounds,
    });
  }
}

for (const name of only) {
  if (name === 'otel') {
    await measureOtel();
    continue;
  }
  const input = await ensure(name);
  const size = sizeOf(input) / 1048576;
  const ratios = { bare: [], against: [], 18: [], 20: [] };
  /** The bare pass, and JSON.parse alone inside it, against each ccusage (issue 59: what a JavaScript reader cannot go below). */
  const floor = { bare: { 18: [], 20: [] }, parse: { 18: [], 20: [] }, reader: { 18: [], 20: [] } };
  /** The ledger against its own line reader and JSON.parse alone (bench/read-floor.mjs), where ccusage is timed. */
  const overFloor = [];
  const rss = { bare: [], ledger: [], against: [], 18: [], 20: [] };
  const ledgerMs = [];
  const cpu = [];
  const kernel = { bare: [], ledger: [] };
  const faults = { bare: [], ledger: [] };
  let last;
  for (let i = 0; i < runs; i++) {
    // One run: each tool once, back to back, so its ratios share the same load.
    const b = node(join(here, 'baseline.mjs'), input);
    const l = node(join(here, 'ledger.mjs'), input, ledgerArgs);
    const f = ccusageKind[name] ? node(join(here, 'read-floor.mjs'), input) : null;
    if (f) overFloor.push(l.ms / f.ms);
    last = l;
    ledgerMs.push(l.ms);
    cpu.push(l.cpuMs / b.cpuMs);
    kernel.bare.push(b.sysMs / 1000);
    kernel.ledger.push(l.sysMs / 1000);
    faults.bare.push(b.faults / 1000);
    faults.ledger.push(l.faults / 1000);
    ratios.bare.push(l.ms / b.ms);
    rss.bare.push(b.rssMb);
    rss.ledger.push(l.rssMb);
    if (against) {
      const o = node(join(resolve(against), 'bench', 'ledger.mjs'), input, ledgerArgs);
      ratios.against.push(o.ms / b.ms);
      rss.against.push(o.rssMb);
    }
    for (const version of [18, 20]) {
      const c = ccusageKind[name] && ccusage[version].bin ? timeCcusage(version, ccusage[version].bin, ccusageKind[name], input) : null;
      if (c) {
        ratios[version].push(l.ms / c.ms);
        floor.bare[version].push(b.ms / c.ms);
        floor.parse[version].push(b.parseMs / c.ms);
        if (f) floor.reader[version].push(f.ms / c.ms);
        rss[version].push(c.rssMb);
      }
    }
  }
  const row = {
    corpus: name,
    size: `${size.toFixed(0)} MB`,
    'ledger MB/s (median)': (size / (median(ledgerMs) / 1000)).toFixed(1),
    'ledger/bare min/med/max': spread(ratios.bare),
    'CPU (user) ledger/bare': spread(cpu),
    // The kernel's share is the machine's: the bare parse's readline takes a fresh 64 KB buffer per
    // chunk, and where a page fault is dear (a VM) its faults are a third of its wall time.
    'kernel s bare/ledger (med)': `${median(kernel.bare).toFixed(2)} / ${median(kernel.ledger).toFixed(2)}`,
    'page faults k bare/ledger': `${median(faults.bare).toFixed(0)} / ${median(faults.ledger).toFixed(0)}`,
  };
  if (against) row['against/bare'] = spread(ratios.against);
  for (const version of [18, 20]) if (ratios[version].length > 0) row[`ledger/ccusage ${version} min/med/max`] = spread(ratios[version]);
  for (const version of [18, 20]) {
    if (ratios[version].length === 0) continue;
    row[`bare/ccusage ${version}`] = spread(floor.bare[version]);
    row[`JSON.parse alone/ccusage ${version}`] = spread(floor.parse[version]);
    row[`line reader+parse/ccusage ${version}`] = spread(floor.reader[version]);
  }
  if (overFloor.length > 0) row['ledger/(line reader+parse)'] = spread(overFloor);
  row['peak RSS MB bare/ledger'] = `${Math.max(...rss.bare).toFixed(0)} / ${Math.max(...rss.ledger).toFixed(0)}`;
  if (against) row['against RSS'] = Math.max(...rss.against).toFixed(0);
  for (const version of [18, 20]) if (rss[version].length > 0) row[`ccusage ${version} RSS MB`] = Math.max(...rss[version]).toFixed(0);
  row.rounds = last.rounds;
  row.entries = last.entries;
  row['JSON MB'] = (last.jsonBytes / 1048576).toFixed(1);
  if (name === 'real' || name === 'codex') row.shapes = shapeLines(input);
  rows.push(row);
  if (name === '1gb' && !args.includes('--keep')) rmSync(input);
}
console.log(`${runs} runs, alternated; load average at the start ${loadAtStart.map((x) => x.toFixed(2)).join(' ')}, at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')} (${availableParallelism()} cores)`);
for (const row of rows) {
  console.log(`\n${row.corpus} (${row.size})`);
  for (const [k, v] of Object.entries(row)) if (k !== 'corpus' && k !== 'size' && k !== 'shapes') console.log(`  ${k.padEnd(28)} ${v}`);
  for (const line of row.shapes ?? []) console.log(`  ${line}`);
}

for (const version of [18, 20]) if (ccusage[version].skipped) console.log(`ccusage ${CCUSAGE[version]}: not timed (${ccusage[version].skipped})`);
console.log('targets: ratio ≤ 1.5 on text-heavy and store (SPEC); on the real-shaped store ≤ 1.2× the bare parse, ≤ 0.5× ccusage 18 and ≤ 2.5× ccusage 20 (issues 30, 59); peak RSS < 200 MB at 1 GB and ≤ 200 MB on the stores; OTLP per byte at least as fast as the transcript (issue 32).');
