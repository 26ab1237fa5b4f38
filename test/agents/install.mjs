#!/usr/bin/env node
// Installs the pinned agents outside the project's dependencies, one cache folder per agent and
// version (like the browser test's Chromium), so the agent tests and .ci/run share one copy.
// Usage: node test/agents/install.mjs [claude-code|gemini|codex ...]; prints one line per agent.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const AGENTS = {
  'claude-code': { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
};

export function cacheRoot() {
  return process.env.LOOPLEDGER_AGENTS_CACHE || join(homedir(), '.cache', 'loopledger-agents');
}

export function agentDir(agent) {
  const a = AGENTS[agent];
  return join(cacheRoot(), `${agent}-${a.version}`);
}

/** The agent's executable once installed, else undefined. */
export function agentBin(agent) {
  const dir = agentDir(agent);
  const bin = join(dir, 'node_modules', '.bin', AGENTS[agent].bin);
  return existsSync(join(dir, '.installed')) && existsSync(bin) ? bin : undefined;
}

/** Where the last install of an agent recorded why it could not be had (a registry out of reach). */
function skipFile(agent) {
  return join(cacheRoot(), `${agent}-${AGENTS[agent].version}.skipped`);
}

/** Why the last install of `agent` could not be had, or undefined. */
export function installSkipReason(agent) {
  try {
    return readFileSync(skipFile(agent), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/**
 * Runs `fn` holding the cache folder's install lock: two test runs, or .ci/run and a test run,
 * installing at once would write one npm prefix twice. A lock whose holder is gone is taken over.
 */
export function withInstallLock(fn, { waitMs = 20 * 60_000 } = {}) {
  mkdirSync(cacheRoot(), { recursive: true });
  const lock = join(cacheRoot(), '.install.lock');
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), `${process.pid}\n`);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let holder = NaN;
      try {
        holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {}
      // A lock without a pid is one being taken this very moment, unless it stays so.
      if (Number.isInteger(holder) && holder > 0 && !alive(holder)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > until) throw new Error(`the agents' install lock ${lock} is still held (pid ${holder}) after ${Math.round(waitMs / 1000)} s`);
      else sleep(250);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Installs one agent if missing, under the install lock. Returns { bin } or { skip: reason }. */
export function ensureAgent(agent) {
  const have = agentBin(agent);
  if (have) return { bin: have };
  return withInstallLock(() => installUnlocked(agent));
}

function installUnlocked(agent) {
  const have = agentBin(agent);
  if (have) return { bin: have };
  const a = AGENTS[agent];
  const dir = agentDir(agent);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  // Optional dependencies stay on: Claude Code's native binary and Codex's come in per-platform ones.
  const r = spawnSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `${a.pkg}@${a.version}`], {
    encoding: 'utf8',
    timeout: 15 * 60_000,
  });
  if (r.status !== 0) {
    const msg = `${r.stderr || ''}${r.error ? r.error.message : ''}`.trim().split('\n').slice(-3).join(' ');
    const unreachable = /ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ECONNRESET|network|timed out/i.test(msg);
    if (unreachable) {
      const skip = `${a.pkg}@${a.version}: the npm registry cannot be reached (${msg.slice(0, 200)})`;
      writeFileSync(skipFile(agent), `${skip}\n`);
      return { skip };
    }
    const failure = `npm install ${a.pkg}@${a.version} failed: ${msg}`;
    writeFileSync(skipFile(agent), `${failure}\n`);
    throw new Error(failure);
  }
  writeFileSync(join(dir, '.installed'), `${a.pkg}@${a.version}\n`);
  rmSync(skipFile(agent), { force: true });
  const bin = agentBin(agent);
  if (!bin) throw new Error(`${a.pkg}@${a.version} installed in ${dir} but has no ${a.bin} executable`);
  return { bin };
}

export function installedVersion(agent) {
  try {
    return JSON.parse(readFileSync(join(agentDir(agent), 'node_modules', ...AGENTS[agent].pkg.split('/'), 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(AGENTS);
  let failed = false;
  for (const agent of wanted) {
    if (!AGENTS[agent]) {
      console.error(`install.mjs: unknown agent ${agent} (known: ${Object.keys(AGENTS).join(', ')})`);
      process.exit(2);
    }
    try {
      const r = ensureAgent(agent);
      console.log(r.bin ? `${agent}: ${r.bin}` : `${agent}: skipped: ${r.skip}`);
    } catch (e) {
      failed = true;
      console.error(`${agent}: ${e.message}`);
    }
  }
  process.exit(failed ? 1 : 0);
}
