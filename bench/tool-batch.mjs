// Tool-batch detector cost: the run (LoopDetector), the cycle tracker and the recurring-failure
// tally over a generated stream of rounds (seeded, so runs are comparable), as rounds per second
// of CPU. Pass compiled builds to compare them in one run, interleaved, which is the only fair
// comparison on a busy machine:
//   npx tsc -p tsconfig.json && node bench/tool-batch.mjs [ROUNDS] [DIST ...]    (default dist/)
// e.g. keep a copy of an older build in .tmp/before-dist and run
//   node bench/tool-batch.mjs 200000 .tmp/before-dist dist

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const ROUNDS = Number(args[0] ?? 200_000);
const dists = (args.length > 1 ? args.slice(1) : ['dist']).map((d) => resolve(d));
const REPS = 5;

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

const TOOLS = ['Bash', 'Read', 'Edit', 'Grep', 'mcp__playwright__browser_snapshot', 'mcp__playwright__browser_click', 'clickhouse_query'];
const OUTPUT = 'line of tool output with a path src/app/module.ts and a number 42\n';

/**
 * Rounds as an agent produces them: mostly new calls, some repeats of the previous batch (same or
 * changed answers), short cycles, think calls between, failures (flagged or told by their text),
 * parallel batches, a user turn every 40 rounds.
 */
function generate(n) {
  const r = rng(13);
  const rounds = [];
  let turn = 1;
  let previous = null;
  /** Recent new batches, and the batches of a cycle being played (a block repeated four times). */
  let recent = [];
  let queue = [];
  for (let i = 1; i <= n; i += 1) {
    if (i % 40 === 0) turn += 1;
    const roll = r();
    let calls;
    let answers;
    if (queue.length === 0 && roll < 0.03 && recent.length >= 3) {
      const period = 2 + Math.floor(r() * 2);
      const block = recent.slice(0, period);
      for (let k = 0; k < 4; k += 1) queue.push(...block);
    }
    if (queue.length > 0) {
      const pick = queue.shift();
      calls = pick.calls.map((c, k) => ({ ...c, id: `c${i}_${k}` }));
      answers = pick.answers;
    } else if (roll < 0.1) {
      calls = [{ id: `t${i}`, name: 'think', arguments: { thought: `step ${i}: consider the next change` } }];
      answers = [{ content: '', isError: false }];
    } else if (roll < 0.25 && previous) {
      calls = previous.calls.map((c, k) => ({ ...c, id: `c${i}_${k}` }));
      const same = r() < 0.6;
      answers = previous.answers.map((a) => (same ? a : { content: `${a.content} (${i})`, isError: a.isError }));
    } else {
      const width = r() < 0.15 ? 3 : 1;
      calls = [];
      answers = [];
      for (let k = 0; k < width; k += 1) {
        const name = TOOLS[Math.floor(r() * TOOLS.length)];
        calls.push({ id: `c${i}_${k}`, name, arguments: { command: `${name} --target item-${Math.floor(r() * 500)}`, cwd: '/repo' } });
        const fails = r() < 0.2;
        const size = 1 + Math.floor(r() * 40);
        const text = fails
          ? r() < 0.5
            ? `Error: ${name} failed on item ${Math.floor(r() * 20)}`
            : `exit code 1\n${OUTPUT.repeat(size)}`
          : OUTPUT.repeat(size);
        answers.push({ content: text, isError: fails && !text.startsWith('Error') });
      }
      recent = [{ calls, answers }, ...recent].slice(0, 3);
    }
    const round = { turn, index: i, line: i, text: '', thinking: [], calls, answers, usage: null, model: null, timestamp: null };
    rounds.push(round);
    if (calls[0].name !== 'think') previous = { calls, answers };
  }
  return rounds;
}

/** CPU time, not wall time: the figure stays meaningful on a machine busy with other work. */
function cpu(fn) {
  const c0 = process.cpuUsage();
  const findings = fn();
  const c = process.cpuUsage(c0);
  return { ms: (c.user + c.system) / 1000, findings };
}

/** Each detector alone, fresh per turn as the ledger builds them (recurring_failure per session). */
function drive(make, rounds, perTurn) {
  return cpu(() => {
    let d = make();
    let turn = rounds[0].turn;
    let findings = 0;
    for (const round of rounds) {
      if (perTurn && round.turn !== turn) {
        d = make();
        turn = round.turn;
      }
      findings += d.observe(round).findings.length;
    }
    return findings;
  });
}

const rounds = generate(ROUNDS);
const builds = [];
for (const dist of dists) {
  const m = await import(pathToFileURL(`${dist}/detect/tool-batch/index.js`).href);
  // The defaults live in config.js (index.js never exported them: the bench failed to start).
  const config = (await import(pathToFileURL(`${dist}/detect/tool-batch/config.js`).href)).defaultToolBatchConfig();
  const detectors = {
    run: () => drive(() => m.createToolBatchDetector(config), rounds, true),
    cycle: () => drive(() => m.createToolCycleDetector(config), rounds, true),
  };
  // As the ledger runs them: the run and cycle detectors share one digester, so an answer is
  // hashed once however many of them compare it (isolated, each pays for its own hashing).
  detectors.run_and_cycle = () =>
    drive(() => {
      const digester = new m.RoundDigester();
      const run = m.createToolBatchDetector(config, digester);
      const cycle = m.createToolCycleDetector(config, digester);
      return { observe: (round) => ({ findings: [...run.observe(round).findings, ...cycle.observe(round).findings] }) };
    }, rounds, true);
  if (m.createRecurringFailureRoundDetector) {
    detectors.recurring_failure = () => drive(() => m.createRecurringFailureRoundDetector(config), rounds, false);
  }
  if (m.createNoProgressRoundDetector) {
    detectors.no_progress = () => drive(() => m.createNoProgressRoundDetector(config), rounds, true);
  }
  builds.push({ dist, detectors, times: {} });
}

// Warm-up, then REPS interleaved passes: build A, build B, build A, … for each detector.
for (const b of builds) for (const f of Object.values(b.detectors)) f();
for (let rep = 0; rep < REPS; rep += 1) {
  for (const b of builds) {
    for (const [name, f] of Object.entries(b.detectors)) {
      globalThis.gc?.();
      const t = f();
      (b.times[name] ??= []).push(t);
    }
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const b of builds) {
  for (const [name, ts] of Object.entries(b.times)) {
    const ms = median(ts.map((t) => t.ms));
    rows.push({ build: b.dist.replace(process.cwd() + '/', ''), detector: name, 'rounds/s': Math.round(ROUNDS / (ms / 1000)), 'cpu ms (median)': ms.toFixed(0), findings: ts[0].findings });
  }
}
console.table(rows);
if (builds.length > 1) {
  const [base, ...others] = builds;
  for (const o of others) {
    for (const name of Object.keys(base.times)) {
      if (!o.times[name]) continue;
      const ratio = median(o.times[name].map((t) => t.ms)) / median(base.times[name].map((t) => t.ms));
      console.log(`${name}: ${o.dist.replace(process.cwd() + '/', '')} / ${base.dist.replace(process.cwd() + '/', '')} = ${ratio.toFixed(3)} (CPU time; < 1.05 keeps the 5% budget)`);
    }
  }
}
