// Generators for the overview and the bounded renderers (issue 11), seeded and deterministic:
//
//   node bench/overview-store.mjs store DIR [SESSIONS]   a Claude Code store of many sessions under
//        DIR/.claude/projects/<project>/<uuid>.jsonl: most calm, some looping on a tool batch (stop),
//        some chanting a paragraph (steer), some with a short repeat (noted); several projects and models.
//   node bench/overview-store.mjs huge FILE [ROUNDS]      one canonical transcript whose ledger has about
//        ROUNDS entries: one turn repeating the same tool batch with the same answer.
//
// Outputs belong in git-ignored folders (bench/corpus/, .tmp/).

import { createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the build failed because a module could not be resolved so I will check the import path and the ' +
  'package manifest before running the tests again config loader parser reader stream buffer handler ' +
  'request response cache index schema migration function variable error database query table retry'
).split(' ');

const PROJECTS = ['-home-ana-src-loopledger', '-home-ana-src-billing-api', '-home-ana-src-site', '-home-ana-work-infra-terraform', '-home-ana-notes'];
const MODELS = ['claude-sonnet-4-5-20250929', 'claude-opus-4-1-20250805', 'claude-haiku-4-5-20251001'];

async function writer(path) {
  const out = createWriteStream(path);
  return {
    async line(obj) {
      if (!out.write(JSON.stringify(obj) + '\n')) await once(out, 'drain');
    },
    async close() {
      out.end();
      await once(out, 'finish');
    },
  };
}

function uuidFrom(rand) {
  const hex = (n) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
}

/** One Claude Code session: `kind` is calm | stop | steer | noted. */
async function session(path, sessionId, model, kind, rand) {
  const w = await writer(path);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const sentence = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ') + '.';
  let uuid = 0;
  let msg = 0;
  let tool = 0;
  let parent = null;
  const base = () => ({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/home/ana/src', sessionId, version: '2.0.76', gitBranch: 'main' });
  const write = async (obj) => {
    const id = `${sessionId.slice(0, 8)}-u${(++uuid).toString(16).padStart(6, '0')}`;
    await w.line({ ...base(), ...obj, uuid: id, timestamp: new Date(Date.UTC(2026, 9, 1) + uuid * 1000).toISOString() });
    parent = id;
  };
  const assistant = (id, block) => ({
    type: 'assistant',
    requestId: `req_${id}`,
    message: {
      model, id, type: 'message', role: 'assistant', content: [block], stop_reason: null, stop_sequence: null,
      usage: { input_tokens: 12 + Math.floor(rand() * 400), cache_read_input_tokens: 20000 + Math.floor(rand() * 60000), cache_creation_input_tokens: Math.floor(rand() * 3000), output_tokens: 40 + Math.floor(rand() * 900) },
    },
  });
  const result = (id, content, isError) => ({ type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, is_error: isError }] } });
  const turns = 1 + Math.floor(rand() * 4);
  const loopTurn = Math.floor(rand() * turns);
  const loopTool = pick(['Bash', 'Read', 'mcp__github__get_pull_request']);
  for (let t = 0; t < turns; t++) {
    await write({ type: 'user', message: { role: 'user', content: sentence(10) } });
    const rounds = 3 + Math.floor(rand() * 20);
    for (let r = 0; r < rounds; r++) {
      const looping = t === loopTurn && r === 1;
      const repeats = looping && kind === 'stop' ? 3 + Math.floor(rand() * 30) : looping && kind === 'noted' ? 2 : 1;
      for (let k = 0; k < repeats; k++) {
        const id = `msg_${sessionId.slice(0, 6)}${(++msg).toString(36).padStart(6, '0')}`;
        if (looping && kind === 'steer') {
          const unit = 'To fix this, update the configuration so the cache directory points at a writable path, then restart the service and check the logs again.';
          await write(assistant(id, { type: 'text', text: Array(8).fill(unit).join('\n\n') }));
          continue;
        }
        await write(assistant(id, { type: 'text', text: sentence(12) }));
        const tid = `toolu_${sessionId.slice(0, 6)}${(++tool).toString(36).padStart(8, '0')}`;
        const name = looping ? loopTool : pick(['Bash', 'Read', 'Grep', 'Edit']);
        const input = looping ? { command: 'npm test -- --run src/parser.test.ts' } : { command: `grep -rn ${pick(WORDS)} src/${pick(WORDS)}.ts`, n: r };
        await write(assistant(id, { type: 'tool_use', id: tid, name, input }));
        await write(result(tid, looping ? 'FAIL src/parser.test.ts\n  Expected: 3\n  Received: 2' : sentence(20), looping));
      }
    }
  }
  await w.close();
}

export async function store(dir, sessions = 900, seed = 11) {
  const rand = rng(seed);
  for (const p of PROJECTS) mkdirSync(join(dir, '.claude', 'projects', p), { recursive: true });
  const counts = { calm: 0, stop: 0, steer: 0, noted: 0 };
  for (let i = 0; i < sessions; i++) {
    const x = rand();
    const kind = x < 0.03 ? 'stop' : x < 0.06 ? 'steer' : x < 0.1 ? 'noted' : 'calm';
    counts[kind] += 1;
    const id = uuidFrom(rand);
    const project = PROJECTS[Math.floor(rand() * PROJECTS.length)];
    const model = MODELS[Math.floor(rand() * MODELS.length)];
    await session(join(dir, '.claude', 'projects', project, `${id}.jsonl`), id, model, kind, rand);
  }
  return counts;
}

/** A canonical transcript whose ledger holds about `rounds` entries. */
export async function huge(file, rounds = 200_000) {
  const w = await writer(file);
  await w.line({ type: 'session', schema: 'loopledger-canonical/1', id: 'huge-ledger', parent: null, model: 'example-model-1' });
  await w.line({ type: 'user', text: 'Run the tests until they pass.' });
  for (let i = 0; i < rounds; i++) {
    await w.line({ type: 'assistant', text: '', tool_calls: [{ id: `c${i}`, name: 'run_tests', arguments: { path: 'src' } }] });
    await w.line({ type: 'tool_result', id: `c${i}`, content: 'FAIL: 1 test failed', is_error: true });
  }
  await w.close();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [what, where, n] = process.argv.slice(2);
  if (what === 'store' && where) console.log(await store(where, Number(n ?? 900)));
  else if (what === 'huge' && where) await huge(where, Number(n ?? 200_000));
  else {
    console.error('usage: overview-store.mjs store DIR [SESSIONS] | huge FILE [ROUNDS]');
    process.exit(2);
  }
}
