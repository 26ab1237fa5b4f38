// A long loop, generated (seeded, deterministic) for issues 53 (item 12), 56 (item 2) and 59 (item 2):
// one Claude Code session that reads a file, then runs the same failing command `--rounds` times
// with the same answer, as the 916- and 1,801-round loops of real stores do. With `--turns T` the
// loop is spread over T user turns (each one a fresh run), and `--varied K` puts a different
// successful call every K rounds (runs that break and start again). `--canonical` writes the same
// session in loopledger's canonical format instead (a fifth of the bytes: a test's million rounds).
//
//   node bench/long-loop.mjs OUT.jsonl [--rounds 1000000] [--seed 53] [--turns 1] [--varied 0] [--canonical]
//
// Written as a stream: a million rounds are ~1.3 GB (canonical: ~0.2 GB) and never held in
// memory. Outputs go to a git-ignored folder (bench/corpus/, .tmp/).

import { createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rng } from './home.mjs';

const COMMANDS = ['npm test -- --run test/totals.test.ts', 'cargo test parser', 'pytest tests/test_dates.py -x', 'go test ./internal/cache/...'];
const ERRORS = [
  'Exit code 1\nFAIL test/totals.test.ts > total() rounds cents\nAssertionError: expected 10.3 to be 10.30',
  'Exit code 101\nerror: test failed, to rerun pass `--lib`',
  'Exit code 1\nE   AssertionError: assert datetime(2026, 3, 1) == datetime(2026, 2, 29)',
  'Exit code 1\n--- FAIL: TestEviction (0.00s)\n    cache_test.go:41: got 3 entries, want 2',
];

/**
 * Writes the session to `path`; resolves to what it holds: `{ rounds, loopRounds, turns, bytes, sessionId }`.
 * `rounds` counts every model response (the opening read, the loop's and the varied ones).
 */
export async function generateLongLoop(path, { rounds = 1_000_000, seed = 53, turns = 1, varied = 0, canonical = false } = {}) {
  const rand = rng(seed);
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const hex = (n) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
  const which = int(0, COMMANDS.length - 1);
  const command = COMMANDS[which];
  const error = ERRORS[which];
  const sessionId = `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  const cwd = '/home/dana/src/invoice-kit';
  let clock = Date.UTC(2026, 2, 12, 9, 14, 0);
  let n = 0;
  let parent = null;
  const base = (type) => {
    n += 1;
    const uuid = `${sessionId.slice(0, 8)}-${(n >>> 16).toString(16).padStart(4, '0')}-4${(n & 0xfff).toString(16).padStart(3, '0')}-a000-${n.toString(16).padStart(12, '0')}`;
    clock += int(800, 4000);
    const r = { parentUuid: parent, isSidechain: false, userType: 'external', cwd, sessionId, version: '2.1.34', gitBranch: 'main', type, uuid, timestamp: new Date(clock).toISOString() };
    parent = uuid;
    return r;
  };
  mkdirSync(dirname(path), { recursive: true });
  const out = createWriteStream(path);
  let bytes = 0;
  const line = async (obj) => {
    const text = JSON.stringify(obj) + '\n';
    bytes += text.length;
    if (!out.write(text)) await once(out, 'drain');
  };
  const usage = () => ({ input_tokens: 6, cache_creation_input_tokens: int(50, 400), cache_read_input_tokens: int(12000, 60000), output_tokens: int(20, 90), service_tier: 'standard' });
  let callNo = 0;
  let roundNo = 0;
  const round = async (name, input, answer, isError) => {
    roundNo += 1;
    callNo += 1;
    const id = `toolu_${seed}_${callNo.toString(36).padStart(10, '0')}`;
    if (canonical) {
      const u = usage();
      await line({ type: 'assistant', text: '', tool_calls: [{ id, name, arguments: input }], usage: { input: u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens, output: u.output_tokens, cache_read: u.cache_read_input_tokens, cache_write: u.cache_creation_input_tokens } });
      await line({ type: 'tool_result', id, content: answer, is_error: isError });
      return;
    }
    const message = { model: 'claude-sonnet-4-5-20250929', id: `msg_${seed}_${roundNo.toString(36)}`, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id, name, input }], stop_reason: null, stop_sequence: null, usage: usage() };
    await line({ ...base('assistant'), message, requestId: `req_${seed}_${roundNo.toString(36)}` });
    const result = { type: 'tool_result', tool_use_id: id, content: answer };
    if (isError) result.is_error = true;
    await line({ ...base('user'), message: { role: 'user', content: [result] } });
  };
  if (canonical) await line({ type: 'session', schema: 'loopledger-canonical/1', id: sessionId, parent: null, model: 'claude-sonnet-4-5-20250929' });
  else await line({ type: 'summary', summary: 'Fix the failing test', leafUuid: `${sessionId.slice(0, 8)}-0000-4000-a000-000000000000` });
  const perTurn = Math.ceil(rounds / Math.max(1, turns));
  let loopRounds = 0;
  let left = rounds;
  for (let t = 0; t < turns && left > 0; t++) {
    const ask = t === 0 ? 'the test is failing on CI, can you fix it?' : 'still failing, try again';
    await line(canonical ? { type: 'user', text: ask } : { ...base('user'), message: { role: 'user', content: ask } });
    await round('Read', { file_path: `${cwd}/src/totals.ts` }, 'export function total(xs: number[]) {\n  return xs.reduce((a, b) => a + b, 0);\n}', false);
    left -= 1;
    for (let r = 1; r < perTurn && left > 0; r++, left--) {
      if (varied > 0 && r % varied === 0) await round('Grep', { pattern: `total${r}`, path: `${cwd}/src` }, `src/totals.ts:${r % 97}: total`, false);
      else {
        await round('Bash', { command, description: 'Run the failing test' }, error, true);
        loopRounds += 1;
      }
    }
  }
  out.end();
  await once(out, 'finish');
  return { rounds: rounds - left, loopRounds, turns, bytes, sessionId };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [path, ...rest] = process.argv.slice(2);
  if (!path) {
    console.error('usage: node bench/long-loop.mjs OUT.jsonl [--rounds N] [--seed S] [--turns T] [--varied K] [--canonical]');
    process.exit(2);
  }
  const opt = (name, d) => {
    const i = rest.indexOf(`--${name}`);
    return i >= 0 ? Number(rest[i + 1]) : d;
  };
  const made = await generateLongLoop(path, { rounds: opt('rounds', 1_000_000), seed: opt('seed', 53), turns: opt('turns', 1), varied: opt('varied', 0), canonical: rest.includes('--canonical') });
  console.log(JSON.stringify(made));
}
