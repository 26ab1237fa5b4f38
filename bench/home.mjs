// A heavy user's home folder, generated (seeded, deterministic) for issue 11: about 900 sessions
// in the three agents' stores, and everything else a real home holds around them.
//
//   .claude/projects/<project>/<session>.jsonl             Claude Code 2.1 sessions
//   .claude/projects/<project>/<session>/subagents/agent-<id>.jsonl + agent-<id>.meta.json
//   .claude/{settings.json, history.jsonl, todos/*.json, statsig/…}   (not sessions)
//   .codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl, .codex/archived_sessions/…
//   .codex/{config.toml, history.jsonl, auth.json}
//   .gemini/tmp/<project hash>/chats/session-<time>-<id>.json, .gemini/tmp/<hash>/logs.json, settings.json
//   src/<repo>/{package.json, tsconfig.json (with comments), node_modules/**, .git/**, data/*.json}
//   reports/ledger.json (a loopledger report), Downloads/*.json, a link to /, a link loop,
//   a link to a session file (the same file must be read once)
//
// Some Claude Code sessions were resumed: after the first turn the file holds a copy of its own
// history (same uuids), then goes on; the manifest counts each round once. Some sessions loop.
//
//   node bench/home.mjs OUT [--sessions 900] [--seed 11] [--scale 1]
// writes OUT/home and OUT/manifest.json (every session: id, agent, path, rounds for Claude Code,
// parent, project, agent type). `--scale` multiplies session sizes (0.05 for a quick test home).

import { createWriteStream, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join, relative, resolve } from 'node:path';

/** The seeded generator the bench's corpora share (mulberry32). */
export function rng(seed) {
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
  'package manifest before running the tests again with verbose output to see which assertion breaks ' +
  'config loader parser reader stream buffer handler request response cache index schema migration ' +
  'function variable constant interface type class method property argument return value error ' +
  'database query table column row transaction commit rollback lock timeout retry backoff'
).split(' ');

const REPOS = ['webapp', 'api-server', 'infra', 'dotfiles', 'ml-pipeline', 'docs-site', 'cli-tool', 'mobile', 'payments', 'search'];
const AGENT_TYPES = ['Explore', 'general-purpose', 'Plan', 'code-reviewer'];

class Writer {
  constructor(path) {
    mkdirSync(dirname(path), { recursive: true });
    this.out = createWriteStream(path);
    this.bytes = 0;
  }
  async line(obj) {
    const text = JSON.stringify(obj) + '\n';
    this.bytes += Buffer.byteLength(text);
    if (!this.out.write(text)) await once(this.out, 'drain');
  }
  async raw(text) {
    this.bytes += Buffer.byteLength(text);
    if (!this.out.write(text)) await once(this.out, 'drain');
  }
  async close() {
    this.out.end();
    await once(this.out, 'finish');
  }
}

export async function generateHome(out, { sessions = 900, seed = 11, scale = 1 } = {}) {
  const rand = rng(seed);
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const hex = (n) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[int(0, 3)]}${hex(3)}-${hex(12)}`;
  const sentence = (n) => {
    const w = Array.from({ length: n }, () => pick(WORDS)).join(' ');
    return w[0].toUpperCase() + w.slice(1) + '.';
  };
  const paragraph = (k) => Array.from({ length: k }, () => sentence(int(8, 20))).join(' ');
  // Session sizes: most are small, a few are long (log-normal-ish), in bytes.
  const sizeOf = () => Math.min(6e6, Math.round(Math.exp(10.6 + rand() * 2.4 + (rand() < 0.05 ? 1.5 : 0)) * scale)) + 2000;
  let clock = Date.UTC(2025, 8, 1);
  const ts = () => new Date((clock += int(500, 20000))).toISOString();

  const home = resolve(out, 'home');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const manifest = [];

  const nClaude = Math.round(sessions * 0.66);
  const nCodex = Math.round(sessions * 0.24);
  const nGemini = sessions - nClaude - nCodex;

  // ---- Claude Code ----------------------------------------------------------------------------
  const projects = REPOS.map((r) => `-home-alex-src-${r}`);
  /**
   * One Claude Code thread; returns its rounds (each counted once). `resume`: after its first turn
   * the session is resumed and Claude Code copies its history into the file again, uuids unchanged.
   */
  const claudeThread = async (w, { sessionId, cwd, target, sidechain, agentId, resume }) => {
    let parent = null;
    let rounds = 0;
    const lines = [];
    let copied = !resume;
    const base = () => {
      const id = uuid();
      const r = { parentUuid: parent, isSidechain: sidechain, userType: 'external', cwd, sessionId, version: '2.1.34', gitBranch: 'main' };
      if (agentId) r.agentId = agentId;
      r.uuid = id;
      parent = id;
      return r;
    };
    const emit = async (rec) => {
      const withTime = { ...rec, timestamp: ts() };
      if (!copied) lines.push(withTime);
      await w.line(withTime);
    };
    if (!sidechain) await w.line({ type: 'summary', summary: sentence(5), leafUuid: uuid() });
    let turns = 0;
    while (w.bytes < target || !copied) {
      if (!copied && (w.bytes > target / 2 || turns > 0)) {
        for (const l of lines) await w.line(l);
        copied = true;
      }
      turns += 1;
      if (!sidechain && rand() < 0.3) await w.line({ type: 'file-history-snapshot', messageId: uuid(), snapshot: { trackedFileBackups: {}, timestamp: ts() }, isSnapshotUpdate: false });
      await emit({ ...base(), type: 'user', message: { role: 'user', content: sidechain ? `Find where ${pick(WORDS)} is handled` : paragraph(int(1, 3)) } });
      const n = int(3, 12);
      const loopAt = rand() < 0.12 ? int(0, n - 1) : -1;
      for (let r = 0; r < n && w.bytes < target; r++) {
        const repeats = r === loopAt ? 5 : 1;
        for (let k = 0; k < repeats; k++) {
          const id = `msg_${hex(24)}`;
          rounds += 1;
          const assistant = (block) => ({
            ...base(),
            type: 'assistant',
            requestId: `req_${hex(24)}`,
            message: {
              model: sidechain ? 'claude-haiku-4-5-20251001' : pick(['claude-sonnet-4-5-20250929', 'claude-opus-4-1-20250805']),
              id, type: 'message', role: 'assistant', content: [block], stop_reason: null,
              usage: { input_tokens: int(5, 400), cache_read_input_tokens: int(1000, 60000), cache_creation_input_tokens: int(0, 3000), output_tokens: int(20, 1500) },
            },
          });
          if (rand() < 0.7) await emit(assistant({ type: 'thinking', thinking: paragraph(int(1, 5)), signature: 'Er' + hex(180) }));
          await emit(assistant({ type: 'text', text: paragraph(int(1, 3)) }));
          const calls = int(1, 3);
          const ids = [];
          for (let c = 0; c < calls; c++) {
            const tid = `toolu_${hex(24)}`;
            ids.push(tid);
            const input = repeats > 1
              ? { command: 'npm test -- --run src/parser.test.ts', description: 'Run the failing test' }
              : { command: `grep -rn "${pick(WORDS)}" src/${pick(WORDS)}`, description: sentence(6) };
            await emit(assistant({ type: 'tool_use', id: tid, name: repeats > 1 ? 'Bash' : pick(['Bash', 'Read', 'Grep', 'Edit', 'Glob']), input }));
          }
          for (const tid of ids) {
            const content = repeats > 1
              ? 'FAIL src/parser.test.ts\n  ● parses nested arrays\n    Expected: 3\n    Received: 2\n'
              : Array.from({ length: int(1, 40) }, () => sentence(12)).join('\n');
            await emit({ ...base(), type: 'user', message: { role: 'user', content: [{ tool_use_id: tid, type: 'tool_result', content, is_error: repeats > 1 }] } });
          }
        }
      }
    }
    return { rounds, resumed: resume };
  };

  for (let i = 0; i < nClaude; i++) {
    const project = pick(projects);
    const sessionId = uuid();
    const cwd = `/home/alex/src/${project.replace('-home-alex-src-', '')}`;
    const path = join(home, '.claude', 'projects', project, `${sessionId}.jsonl`);
    const w = new Writer(path);
    // About one in fifteen sessions was resumed (its history copied into the file once more).
    const thread = await claudeThread(w, { sessionId, cwd, target: sizeOf(), sidechain: false, resume: rand() < 0.07 });
    await w.close();
    manifest.push({ id: sessionId, agent: 'claude-code', path: relative(home, path), rounds: thread.rounds, parent: null, project, resumed: thread.resumed });
    // Claude Code 2.1: a quarter of the sessions ran sub-agents, each in its own file.
    if (rand() < 0.25) {
      for (let a = int(1, 3); a > 0; a--) {
        const agentId = hex(8);
        const dir = join(home, '.claude', 'projects', project, sessionId, 'subagents');
        const sub = new Writer(join(dir, `agent-${agentId}.jsonl`));
        const t = await claudeThread(sub, { sessionId, cwd, target: sizeOf() / 4, sidechain: true, agentId });
        await sub.close();
        const typed = rand() < 0.85;
        const agentType = pick(AGENT_TYPES);
        if (typed) writeFileSync(join(dir, `agent-${agentId}.meta.json`), JSON.stringify({ agentType, description: sentence(4), toolUseId: `toolu_${hex(24)}`, spawnDepth: 1 }));
        manifest.push({
          id: `${sessionId}/agent-${agentId}`, agent: 'claude-code', path: relative(home, join(dir, `agent-${agentId}.jsonl`)),
          rounds: t.rounds, parent: sessionId, project, agentType: typed ? agentType : null,
        });
      }
    }
    // Claude Code also leaves tool output it spilled to disk beside some sessions.
    if (rand() < 0.1) writeFileSync(join(home, '.claude', 'projects', project, sessionId + '-tool-output.txt'), paragraph(20));
  }

  // ---- Codex ------------------------------------------------------------------------------------
  for (let i = 0; i < nCodex; i++) {
    const id = `0199${hex(4)}-${hex(4)}-7${hex(3)}-${'89ab'[int(0, 3)]}${hex(3)}-${hex(12)}`;
    const when = new Date(Date.UTC(2025, 9, 1) + i * 3.7 * 3600e3);
    const stamp = when.toISOString().slice(0, 19).replaceAll(':', '-');
    const archived = i % 6 === 5;
    const dir = archived
      ? join(home, '.codex', 'archived_sessions')
      : join(home, '.codex', 'sessions', String(when.getUTCFullYear()), String(when.getUTCMonth() + 1).padStart(2, '0'), String(when.getUTCDate()).padStart(2, '0'));
    const path = join(dir, `rollout-${stamp}-${id}.jsonl`);
    const repo = pick(REPOS);
    const cwd = `/home/alex/src/${repo}`;
    const w = new Writer(path);
    const target = sizeOf();
    const env = (type, payload) => w.line({ timestamp: ts(), type, payload });
    await env('session_meta', { id, timestamp: when.toISOString(), cwd, originator: 'codex_cli_rs', cli_version: '0.63.0', source: 'cli', model_provider: 'openai' });
    while (w.bytes < target) {
      const turnId = uuid();
      await env('turn_context', { turn_id: turnId, cwd, approval_policy: 'on-request', model: 'gpt-5-codex', effort: 'medium', summary: 'auto' });
      const prompt = paragraph(int(1, 2));
      await env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] });
      await env('event_msg', { type: 'user_message', message: prompt, images: [] });
      const n = int(2, 10);
      const loopAt = rand() < 0.1 ? int(0, n - 1) : -1;
      for (let r = 0; r < n && w.bytes < target; r++) {
        for (let k = 0; k < (r === loopAt ? 5 : 1); k++) {
          const thought = sentence(8);
          await env('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: thought }], content: null, encrypted_content: 'gAAAA' + hex(120) });
          await env('event_msg', { type: 'agent_reasoning', text: thought });
          const callId = `call_${hex(24)}`;
          const cmd = r === loopAt ? 'cargo test parser' : `rg -n "${pick(WORDS)}" src`;
          await env('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', cmd], workdir: cwd }), call_id: callId });
          await env('event_msg', { type: 'token_count', info: { last_token_usage: { input_tokens: int(2000, 40000), cached_input_tokens: int(0, 30000), output_tokens: int(20, 900), reasoning_output_tokens: int(0, 300), total_tokens: 1 } } });
          const output = r === loopAt ? 'Exit code: 101\nerror: test failed, to rerun pass `--lib`' : `Exit code: 0\nOutput:\n${Array.from({ length: int(1, 30) }, () => sentence(10)).join('\n')}`;
          await env('response_item', { type: 'function_call_output', call_id: callId, output });
        }
      }
      const answer = paragraph(int(1, 3));
      await env('event_msg', { type: 'agent_message', message: answer });
      await env('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] });
    }
    await w.close();
    manifest.push({ id, agent: 'codex', path: relative(home, path), rounds: null, parent: null, project: cwd });
  }

  // ---- Gemini CLI -------------------------------------------------------------------------------
  const hashes = Array.from({ length: 4 }, () => hex(64));
  for (let i = 0; i < nGemini; i++) {
    const hash = pick(hashes);
    const sessionId = uuid();
    const start = new Date(Date.UTC(2025, 10, 1) + i * 5 * 3600e3).toISOString();
    const path = join(home, '.gemini', 'tmp', hash, 'chats', `session-${start.slice(0, 16).replaceAll(':', '-')}-${sessionId.slice(0, 8)}.json`);
    const messages = [];
    let bytes = 0;
    const target = sizeOf();
    let m = 0;
    while (bytes < target) {
      messages.push({ id: `m-${++m}`, timestamp: ts(), type: 'user', content: paragraph(1) });
      for (let r = int(1, 6); r > 0; r--) {
        const callId = `read_file-${++m}`;
        const output = Array.from({ length: int(1, 25) }, () => sentence(10)).join('\n');
        messages.push({
          id: `m-${++m}`, timestamp: ts(), type: 'gemini', content: paragraph(1), model: 'gemini-2.5-pro',
          thoughts: [{ subject: sentence(3), description: paragraph(1), timestamp: ts() }],
          tokens: { input: int(2000, 30000), output: int(10, 600), cached: 0, thoughts: int(0, 400), tool: 0, total: 1 },
          toolCalls: [{ id: callId, name: 'read_file', args: { absolute_path: `/home/alex/src/${pick(REPOS)}/${pick(WORDS)}.ts` }, status: 'success', timestamp: ts(),
            result: [{ functionResponse: { id: callId, name: 'read_file', response: { output } } }] }],
        });
        bytes += output.length + 600;
      }
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify({ sessionId, projectHash: hash, startTime: start, lastUpdated: ts(), messages }, null, 2));
    manifest.push({ id: sessionId, agent: 'gemini', path: relative(home, path), rounds: null, parent: null, project: hash });
  }
  for (const hash of hashes) {
    mkdirSync(join(home, '.gemini', 'tmp', hash), { recursive: true });
    writeFileSync(join(home, '.gemini', 'tmp', hash, 'logs.json'), JSON.stringify([{ sessionId: uuid(), messageId: 0, type: 'user', message: 'hi', timestamp: ts() }]));
    writeFileSync(join(home, '.gemini', 'tmp', hash, `checkpoint-${hex(6)}.json`), JSON.stringify([{ role: 'user', parts: [{ text: 'saved' }] }]));
  }

  // ---- What else a home holds -------------------------------------------------------------------
  const file = (rel, text) => {
    const p = join(home, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  };
  file('.claude/settings.json', JSON.stringify({ model: 'opus', permissions: { allow: ['Bash(npm test:*)'] } }, null, 2));
  file('.claude/history.jsonl', Array.from({ length: 300 }, () => JSON.stringify({ display: sentence(6), pastedContents: {}, timestamp: clock++, project: '/home/alex/src/webapp' })).join('\n') + '\n');
  for (let i = 0; i < 250; i++) file(`.claude/todos/${uuid()}-agent-${uuid()}.json`, JSON.stringify([{ content: sentence(5), status: 'completed', activeForm: sentence(3) }]));
  file('.claude/statsig/statsig.cached.evaluations.json', JSON.stringify({ data: hex(400) }));
  file('.codex/config.toml', 'model = "gpt-5-codex"\n');
  file('.codex/history.jsonl', Array.from({ length: 100 }, () => JSON.stringify({ session_id: uuid(), ts: clock++, text: sentence(5) })).join('\n') + '\n');
  file('.codex/auth.json', JSON.stringify({ OPENAI_API_KEY: null, tokens: null }));
  file('.gemini/settings.json', JSON.stringify({ theme: 'Default' }));
  file('.config/Code/User/settings.json', '{\n  // editor settings\n  "editor.fontSize": 14,\n}\n');
  file('.npm/_cacache/index-v5/aa/bb/cc.json', JSON.stringify({ key: 'x' }));
  let otherJson = 0;
  for (const repo of REPOS) {
    file(`src/${repo}/package.json`, JSON.stringify({ name: repo, version: '1.0.0', scripts: { test: 'vitest' } }, null, 2));
    file(`src/${repo}/tsconfig.json`, '{\n  // strict mode\n  "compilerOptions": { "strict": true, },\n}\n');
    file(`src/${repo}/.git/HEAD`, 'ref: refs/heads/main\n');
    file(`src/${repo}/.git/objects/info/packs.json`, '{}');
    for (let i = 0; i < 60; i++) file(`src/${repo}/node_modules/pkg-${i}/package.json`, JSON.stringify({ name: `pkg-${i}`, version: '1.0.0' }));
    for (let i = 0; i < 12; i++, otherJson++) file(`src/${repo}/data/fixture-${i}.json`, JSON.stringify({ rows: Array.from({ length: 20 }, (_, k) => ({ k, v: pick(WORDS) })) }));
    file(`src/${repo}/events.jsonl`, Array.from({ length: 50 }, (_, k) => JSON.stringify({ level: 'info', msg: sentence(4), n: k })).join('\n') + '\n');
    file(`src/${repo}/empty.json`, '');
  }
  file('Downloads/export.json', JSON.stringify({ items: [1, 2, 3] }));
  file('Downloads/notes.md', '# notes\n');
  file('reports/ledger.json', JSON.stringify({ schema: 'loopledger/1', tool: { name: 'loopledger', version: '0.1.0' }, config: {}, inputs: [], sessions: [], summary: {} }, null, 2));
  file('reports/entries.ndjson.jsonl', JSON.stringify({ session: 's', path: 'p', parent: null, turn: 1, round: 1, line: 1, detector: 'tool_batch', kind: 'repeated_batch', intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' } }) + '\n');
  // A link to the whole file system, a loop back up the tree, and a second name for a session.
  symlinkSync('/', join(home, 'root-link'));
  symlinkSync('..', join(home, 'src', 'webapp', 'parent-loop'));
  symlinkSync(join(home, 'src'), join(home, 'src', 'infra', 'src-again'));
  const first = manifest.find((s) => s.agent === 'claude-code' && s.parent === null);
  mkdirSync(join(home, 'notes'), { recursive: true });
  symlinkSync(join(home, first.path), join(home, 'notes', 'interesting-session.jsonl'));

  writeFileSync(join(out, 'manifest.json'), JSON.stringify({ seed, sessions: manifest }, null, 1));
  return { home, manifest };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const arg = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const out = args[0];
  if (!out || out.startsWith('--')) {
    console.error('usage: node bench/home.mjs OUT [--sessions 900] [--seed 11] [--scale 1]');
    process.exit(2);
  }
  const started = Date.now();
  const { home, manifest } = await generateHome(out, { sessions: Number(arg('--sessions', '900')), seed: Number(arg('--seed', '11')), scale: Number(arg('--scale', '1')) });
  const main = manifest.filter((s) => s.parent === null).length;
  console.log(`${home}: ${manifest.length} sessions (${main} main, ${manifest.length - main} sub-agents) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
