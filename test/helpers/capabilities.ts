// What a test may need from the machine beyond Node and the checkout, each detected once, with the
// reason it is missing. A gated test names its capability in its title through `describeWith` /
// `itWith`, so a run's list says what was skipped and why; with LOOPLEDGER_REQUIRE=all (set by
// .ci/run) or a comma list of names, a missing capability fails the test instead of skipping it.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, type TestContext, type TestOptions } from 'vitest';
import { findChromium } from '../../bench/cdp.mjs';
import { AGENTS, agentBin, installSkipReason } from '../agents/install.mjs';
import { MORE_AGENTS, moreAgentBin } from '../agents/install-more.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHARED = join(ROOT, '..', 'shared');

type AgentCapability = `agent:${(keyof typeof AGENTS | keyof typeof MORE_AGENTS) & string}`;
export type Capability =
  | 'shared-recordings'
  | 'research-samples'
  | 'public-stores'
  | 'root'
  | 'other-user'
  | 'tmux'
  | 'jq'
  | 'script'
  | 'mkfifo'
  | 'chromium'
  | 'duckdb'
  | 'npm-registry'
  | AgentCapability;

/** The reason a capability is missing, or null when it is there. */
type Probe = () => string | null;

const onPath = (command: string, install: string): Probe => () =>
  spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0 ? null : `no ${command} on PATH (${install})`;

const sharedFolder = (name: string): Probe => () => {
  const dir = join(SHARED, name);
  try {
    return readdirSync(dir).length > 0 ? null : `${dir} is empty`;
  } catch {
    return `no ${dir}: the project's shared folder is not beside the checkout`;
  }
};

/**
 * The agents' stores committed to public repositories, rebuilt from mirrors out of git
 * (bench/public-stores): every row's file, since the gated tests read each agent's rows (a folder
 * rebuilt from some mirrors only failed the other agents' tests instead of skipping them).
 */
function publicStores(): string | null {
  const data = join(ROOT, 'bench', 'public-stores', 'data');
  if (!existsSync(data)) return 'no bench/public-stores/data: fetch the repositories of bench/public-stores/manifest.jsonl, then node bench/public-stores/rebuild.mjs';
  const rows = readFileSync(join(ROOT, 'bench', 'public-stores', 'manifest.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { repo: string; commit: string; path: string });
  const missing = rows.filter((r) => !existsSync(join(data, r.repo.replace('/', '+'), r.commit, r.path)));
  if (missing.length === 0) return null;
  const repos = [...new Set(missing.map((r) => r.repo))];
  return `bench/public-stores/data lacks ${missing.length} of ${rows.length} samples (from ${repos.join(', ')}): fetch them, then node bench/public-stores/rebuild.mjs`;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** The checkout as user 65534 sees it: the tests that run the binary as another user need to read it. */
function otherUser(): string | null {
  if (!isRoot()) return 'not root: only root can run a command as another user';
  if (spawnSync('setpriv', ['--version']).status !== 0) return 'no setpriv (util-linux) to run a command as another user';
  const probe = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'test', '-r', join(ROOT, 'bin', 'loopledger.js')]);
  return probe.status === 0 ? null : `user 65534 cannot read ${ROOT} (a private folder on its path): clone where other users can read`;
}

function mkfifoWorks(): string | null {
  if (process.platform === 'win32') return 'Windows has no FIFOs';
  return onPath('mkfifo', 'coreutils')();
}

const agentProbe = (name: keyof typeof AGENTS & string): Probe => () => {
  if (agentBin(name)) return null;
  return installSkipReason(name) ?? `${AGENTS[name].pkg}@${AGENTS[name].version} is not installed (the agents' global setup installs it: test/agents/global-setup.ts)`;
};

const PROBES: Record<Exclude<Capability, 'duckdb' | 'npm-registry'>, Probe> = {
  'shared-recordings': sharedFolder('recordings'),
  'research-samples': sharedFolder('research-samples'),
  'public-stores': publicStores,
  root: () => (isRoot() ? null : 'not running as root'),
  'other-user': otherUser,
  tmux: onPath('tmux', ".ci/run installs Debian's tmux as root"),
  jq: onPath('jq', ".ci/run installs Debian's jq as root"),
  script: onPath('script', 'util-linux'),
  mkfifo: mkfifoWorks,
  chromium: () => (findChromium() ? null : "no Chromium (chromium, chromium-browser or google-chrome on PATH, or LOOPLEDGER_CHROMIUM); .ci/run installs Debian's chromium as root"),
  ...(Object.fromEntries(Object.keys(AGENTS).map((a) => [`agent:${a}`, agentProbe(a as keyof typeof AGENTS & string)])) as Record<AgentCapability, Probe>),
  ...(Object.fromEntries(
    Object.entries(MORE_AGENTS).map(([a, m]) => [`agent:${a}`, () => (moreAgentBin(a) ? null : `${m.pkg}@${m.version} is not installed (node test/agents/install-more.mjs ${a}; .ci/run installs the ones the suite drives)`)]),
  ) as Record<AgentCapability, Probe>),
};

const known = new Map<Capability, string | null>();

/** Why `cap` is missing on this machine (null: it is there). Detected once per worker. */
export function missing(cap: Capability): string | null {
  if (!known.has(cap)) {
    if (!(cap in PROBES)) throw new Error(`${cap} is found by the test that needs it: call declareCapability('${cap}', …) first`);
    known.set(cap, PROBES[cap as keyof typeof PROBES]());
  }
  return known.get(cap)!;
}

/** For a capability only the test file can find out (a binding it loads): what it found. */
export function declareCapability(cap: 'duckdb', why: string | null): void {
  known.set(cap, why);
}

/**
 * What `all` leaves out: the public stores are rebuilt from mirrors of people's repositories, which
 * only a developer's machine holds (CI fetches nothing from GitHub); name it to require it.
 */
const OUTSIDE_ALL: ReadonlySet<Capability> = new Set(['public-stores']);

/** The capabilities LOOPLEDGER_REQUIRE names (`all`, or names separated by commas). */
export function required(cap: Capability, env: NodeJS.ProcessEnv = process.env): boolean {
  const wanted = (env['LOOPLEDGER_REQUIRE'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return (wanted.includes('all') && !OUTSIDE_ALL.has(cap)) || wanted.includes(cap) || (cap.startsWith('agent:') && wanted.includes('agents'));
}

function firstMissing(caps: readonly Capability[]): [Capability, string] | null {
  for (const cap of caps) {
    const why = missing(cap);
    if (why !== null) return [cap, why];
  }
  return null;
}

/** The title a gated test shows: what it needs, and why it did not run where it did not. */
export function gatedTitle(title: string, caps: readonly Capability[], gap: [Capability, string] | null): string {
  const needs = `needs ${caps.join(', ')}`;
  return gap ? `${title} (${needs}; skipped: ${gap[1]})` : `${title} (${needs})`;
}

function failing(caps: readonly Capability[], gap: [Capability, string]): () => never {
  return () => {
    throw new Error(`LOOPLEDGER_REQUIRE asks for ${gap[0]}, which is missing here: ${gap[1]} (needed by a test that ${caps.length > 1 ? `needs ${caps.join(', ')}` : 'needs it'})`);
  };
}

const list = (caps: Capability | readonly Capability[]): readonly Capability[] => (typeof caps === 'string' ? [caps] : caps);

/** A describe block that runs only where every capability is there. */
export function describeWith(caps: Capability | readonly Capability[], title: string, body: () => void): void {
  const all = list(caps);
  const gap = firstMissing(all);
  if (gap === null) describe(gatedTitle(title, all, null), body);
  else if (required(gap[0])) describe(gatedTitle(title, all, null), () => it(`${gap[0]} is there`, failing(all, gap)));
  else describe.skip(gatedTitle(title, all, gap), body);
}

/** One test that runs only where every capability is there. */
export function itWith(caps: Capability | readonly Capability[], title: string, body: (ctx: TestContext) => unknown, options?: TestOptions): void {
  const all = list(caps);
  const gap = firstMissing(all);
  if (gap === null) it(gatedTitle(title, all, null), options ?? {}, body);
  else if (required(gap[0])) it(gatedTitle(title, all, null), options ?? {}, failing(all, gap));
  else it.skip(gatedTitle(title, all, gap), options ?? {}, body);
}

/**
 * For a capability found only while a test runs (a registry that does not answer): skip with the
 * reason, or fail where LOOPLEDGER_REQUIRE asks for it.
 */
export function skipOrFail(ctx: TestContext, cap: Capability, why: string): void {
  if (required(cap)) throw new Error(`LOOPLEDGER_REQUIRE asks for ${cap}, which is missing here: ${why}`);
  ctx.skip(`${cap}: ${why}`);
}
