// `npm run bench` (after run.mjs), or alone: `node bench/hook.mjs [--calls 20] [--mb 25]`.
// The live guard's latency: the median wall time of one `loopledger hook claude-code` call (a
// real process, as the agent runs it) on a small transcript and on a large one that grows by one
// round per call pair, against a bare `node -e 0` and a start of the full CLI. A hook call must
// cost about one Node start and must not grow with the transcript. The first call of a session
// reads the whole transcript once (catch-up) and is reported apart.

import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const bin = join(root, 'bin', 'loopledger.js');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const calls = Number(arg('--calls', '20'));
const bigMb = Number(arg('--mb', '25'));
const mode = arg('--mode', 'enforce');
const corpus = join(here, 'corpus');
mkdirSync(corpus, { recursive: true });

// The generator's session id: the hook follows the session it is called for.
const SESSION = '7f3c2a10-0000-4000-8000-00000000b3c4';

function ms(fn) {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function p95(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)];
}

/** One transcript under test: its own copy, its own state directory, a round appended per pair. */
class Subject {
  constructor(name, source) {
    this.name = name;
    this.file = join(corpus, `hook-${name}.jsonl`);
    this.state = join(corpus, `hook-state-${name}`);
    copyFileSync(source, this.file);
    rmSync(this.state, { recursive: true, force: true });
    this.n = 0;
    this.times = [];
  }

  call(payload) {
    const input = JSON.stringify({ session_id: SESSION, transcript_path: this.file, cwd: '/workspace', ...payload });
    let out;
    const t = ms(() => {
      out = spawnSync(process.execPath, [bin, 'hook', 'claude-code', '--mode', mode, '--state-dir', this.state], { input, encoding: 'utf8' });
    });
    if (out.status !== 0) throw new Error(`hook exited ${out.status}: ${out.stderr}`);
    if (existsSync(join(this.state, 'errors.log'))) throw new Error(`hook failed open: see ${join(this.state, 'errors.log')}`);
    return t;
  }

  line(obj) {
    appendFileSync(this.file, JSON.stringify({ parentUuid: null, isSidechain: false, sessionId: SESSION, uuid: `bench-${this.name}-${++this.n}`, ...obj }) + '\n');
  }

  /** One round as Claude Code writes it, with its PreToolUse and PostToolUse calls timed. */
  pair() {
    const id = `toolu_bench_${this.n}`;
    const msg = `msg_bench_${this.n}`;
    const input = { command: `grep -rn "needle ${this.n}" src` };
    this.line({ type: 'assistant', message: { id: msg, model: 'claude-sonnet-4-5-20250929', role: 'assistant', content: [{ type: 'text', text: `Searching for the ${this.n}th occurrence of the symbol before editing the loader.` }] } });
    this.line({ type: 'assistant', message: { id: msg, model: 'claude-sonnet-4-5-20250929', role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input }] } });
    this.times.push(this.call({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: input, tool_use_id: id }));
    this.line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `src/a.ts:${this.n}: needle` }] } });
    this.times.push(this.call({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: input, tool_use_id: id, tool_response: { stdout: `src/a.ts:${this.n}: needle`, stderr: '' } }));
  }
}

const small = join(corpus, 'hook-source-small.jsonl');
const big = join(corpus, `hook-source-${bigMb}mb.jsonl`);
if (!existsSync(small)) await generate(small, 100 * 1024, 7);
if (!existsSync(big)) await generate(big, bigMb * 1024 * 1024, 8);
if (!existsSync(join(root, 'dist', 'hook', 'main.js'))) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });

const subjects = [new Subject('small', small), new Subject('large', big)];
// The first call of a session reads its transcript whole; every later one only what was added.
const firsts = subjects.map((s) => s.call({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/workspace/a' }, tool_use_id: 'toolu_first' }));
const bare = [];
const cli = [];
// Interleaved, so a noisy neighbour slows every column alike.
for (let i = 0; i < calls; i++) {
  for (const s of subjects) s.pair();
  bare.push(ms(() => execFileSync(process.execPath, ['-e', '0'])));
  cli.push(ms(() => execFileSync(process.execPath, [bin, '--version'])));
}

const base = median(bare);
const row = (what, xs, size) => ({
  what,
  transcript: size,
  'median ms': median(xs).toFixed(0),
  'p95 ms': p95(xs).toFixed(0),
  'median / node -e 0': (median(xs) / base).toFixed(2),
});
const mb = (f) => `${(statSync(f).size / 1048576).toFixed(1)} MB`;
console.table([
  row('node -e 0', bare, ''),
  row('loopledger --version (full CLI start)', cli, ''),
  row(`hook call, ${mode} (small)`, subjects[0].times, mb(subjects[0].file)),
  row(`hook call, ${mode} (large)`, subjects[1].times, mb(subjects[1].file)),
]);
console.log(
  `first call of a session (catch-up: the whole transcript, at most its last 4 MB): small ${firsts[0].toFixed(0)} ms, large ${firsts[1].toFixed(0)} ms; ` +
    `state file: small ${(statSync(join(subjects[0].state, `${SESSION}.state.json`)).size / 1024).toFixed(0)} KB, large ${(statSync(join(subjects[1].state, `${SESSION}.state.json`)).size / 1024).toFixed(0)} KB`,
);
console.log('target (issue #15): a hook call costs about one Node start, the same on a small and a large transcript.');
