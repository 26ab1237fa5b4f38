// Where the coding agents keep their sessions, and what a path inside those stores says about a
// session (its project, whether it is a sub-agent's thread), derived from the agents' registry
// (src/agents). Knowledge of directory layouts only: no transcript is parsed here.

import { promises as fs, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { AGENTS } from '../agents/index.js';
import { type AgentName, NAME, SEP } from '../agents/types.js';

export type StoreAgent = AgentName;

/** Each agent's label, as `stores` prints it. */
export const AGENT_LABELS = Object.fromEntries(AGENTS.map((a) => [a.name, a.label])) as Record<StoreAgent, string>;

export interface StoreLocation {
  agent: StoreAgent;
  /** Where the store is (a pattern for per-project folders: `…/tmp/*\/chats`). */
  path: string;
  /** The directories (or the database file) to read; empty when nothing is there. */
  roots: string[];
  /** The environment variable that chose the location, when one did. */
  via: string | null;
}

/** The home folder: $HOME (or %USERPROFILE%) as the environment says, else the OS's answer. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env['HOME'] || env['USERPROFILE'] || homedir();
}

/**
 * Every place this user's agents keep sessions, found or not, in the registry's order (SPEC
 * "Where sessions are found"): each agent's places under its base folder, which its variable
 * moves (`$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`, …).
 */
export async function storeLocations(env: NodeJS.ProcessEnv): Promise<StoreLocation[]> {
  const home = homeOf(env);
  const out: StoreLocation[] = [];
  for (const agent of AGENTS) {
    for (const place of agent.places) {
      const moved = place.env ? env[place.env.name] : undefined;
      const base = moved ? join(moved, ...(place.env?.below ?? [])) : join(home, ...place.home);
      out.push({
        agent: agent.name,
        path: join(base, ...place.sessions),
        roots: await expandPlace(base, place.sessions, place.file === true),
        via: moved ? place.env!.name : null,
      });
    }
  }
  return out;
}

/** The folders (or the database file) `segments` name below `dir`, `*` standing for each non-hidden folder, in code point order. */
async function expandPlace(dir: string, segments: readonly string[], file: boolean): Promise<string[]> {
  const [head, ...rest] = segments;
  if (head === undefined) return (file ? await isFile(dir) : await isDirectory(dir)) ? [dir] : [];
  if (head !== '*') return expandPlace(join(dir, head), rest, file);
  let names: string[];
  try {
    names = (await fs.readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name);
  } catch {
    return [];
  }
  names.sort(compareNames);
  const out: string[] = [];
  for (const name of names) out.push(...(await expandPlace(join(dir, name), rest, file)));
  return out;
}

/** A store's session folder (or database) below its hidden root: `*` stands for one level of folders. */
export interface StoreFolder {
  segments: readonly string[];
  file: boolean;
}

/**
 * A known store root met while walking a directory (a home folder given as a path): its name, and
 * the folders below it that hold sessions. Everything else in it (settings, todos, shell history,
 * plugin caches) is configuration, not transcripts, and is not entered.
 */
export const STORE_ROOTS: Readonly<Record<string, { folders: readonly StoreFolder[] }>> = storeRoots();

function storeRoots(): Record<string, { folders: StoreFolder[] }> {
  const roots: Record<string, { folders: StoreFolder[] }> = {};
  for (const agent of AGENTS) {
    for (const place of agent.places) {
      const [root, ...below] = place.home;
      (roots[root!] ??= { folders: [] }).folders.push({ segments: [...below, ...place.sessions], file: place.file === true });
    }
  }
  return roots;
}

/** Database files a folder walk reads although their name is not a transcript's (`opencode.db`). */
export const STORE_DATABASES: ReadonlySet<string> = new Set(AGENTS.flatMap((a) => a.places.filter((p) => p.file).map((p) => p.sessions.at(-1)!)));

/**
 * The store folder a session file sits in, when its path has a store's layout: the Claude Code
 * project folder (`-home-me-src-app`, Claude Code's own name for the working directory) or the
 * Gemini CLI project folder. Codex keeps its sessions by date, so its project comes from the
 * transcript (the working directory), not from here.
 */
export function storeProject(path: string): { agent: StoreAgent; project: string } | null {
  for (const agent of AGENTS) {
    const project = agent.projectOf?.(path) ?? null;
    if (project !== null) return { agent: agent.name, project };
  }
  return null;
}

/** Claude Code 2.1: `<session id>/subagents/agent-<agent id>.jsonl`. */
const SUBAGENT_FILE = new RegExp(`(?:^|${SEP})(${NAME})${SEP}subagents${SEP}agent-(${NAME})\\.jsonl$`, 'i');

/** A Claude Code 2.1 sub-agent file: the parent session's id (its folder) and the agent's id. */
export function subagentFile(path: string): { parent: string; agentId: string } | null {
  const m = SUBAGENT_FILE.exec(path);
  return m ? { parent: m[1]!, agentId: m[2]! } : null;
}

/** A file beside a transcript in an agent's session folder that is no transcript (a sub-agent's manifest…). */
export function isCompanionFile(dir: string, name: string): boolean {
  return AGENTS.some((a) => a.isCompanion?.(dir, name) === true);
}

/** A manifest is a few hundred bytes; anything much larger is not one and is not read. */
const MANIFEST_MAX_BYTES = 64 * 1024;

/**
 * `agentType` from the manifest Claude Code 2.1 writes beside a sub-agent's transcript
 * (`agent-<id>.meta.json`: {agentType, description, …}), or null when there is none or it does
 * not read. Never throws: the manifest only names the agent.
 */
export async function readAgentType(transcript: string): Promise<string | null> {
  if (subagentFile(transcript) === null) return null;
  const manifest = join(dirname(transcript), basename(transcript).replace(/\.jsonl$/i, '.meta.json'));
  // Blocking calls: a manifest is asked for with every sub-agent file, and it is small; read
  // asynchronously it cost five thread-pool round trips per file, waited for one after another.
  try {
    const stat = statSync(manifest, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile() || stat.size > MANIFEST_MAX_BYTES) return null;
    const value: unknown = JSON.parse(readFileSync(manifest, 'utf8'));
    if (typeof value !== 'object' || value === null) return null;
    const type = (value as Record<string, unknown>)['agentType'];
    return typeof type === 'string' && type.length > 0 && type.length <= 200 ? type : null;
  } catch {
    return null;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await fs.stat(path)).isFile();
  } catch {
    return false;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await fs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
