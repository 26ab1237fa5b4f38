// Where the coding agents keep their sessions, and what a path inside those stores says about a
// session (its project, whether it is a sub-agent's thread). Knowledge of directory layouts only:
// no transcript is parsed here.

import { promises as fs } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

export type StoreAgent = 'claude-code' | 'codex' | 'gemini';

export const AGENT_LABELS: Record<StoreAgent, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
};

export interface StoreLocation {
  agent: StoreAgent;
  /** Where the store is (a pattern for Gemini's per-project folders: `…/tmp/*\/chats`). */
  path: string;
  /** The directories to read; empty when nothing is there. */
  roots: string[];
  /** The environment variable that chose the location, when one did. */
  via: string | null;
}

/** The home folder: $HOME (or %USERPROFILE%) as the environment says, else the OS's answer. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env['HOME'] || env['USERPROFILE'] || homedir();
}

/**
 * Every place this user's agents keep sessions, found or not (SPEC "Where sessions are found"):
 * `$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`; `$CODEX_HOME/sessions` and
 * `archived_sessions` or `~/.codex/…`; the Gemini CLI's `~/.gemini/tmp/*\/chats`.
 */
export async function storeLocations(env: NodeJS.ProcessEnv): Promise<StoreLocation[]> {
  const home = homeOf(env);
  const claudeBase = env['CLAUDE_CONFIG_DIR'] || join(home, '.claude');
  const codexBase = env['CODEX_HOME'] || join(home, '.codex');
  const claudeVia = env['CLAUDE_CONFIG_DIR'] ? 'CLAUDE_CONFIG_DIR' : null;
  const codexVia = env['CODEX_HOME'] ? 'CODEX_HOME' : null;
  const dirIf = async (path: string) => ((await isDirectory(path)) ? [path] : []);
  const claude = join(claudeBase, 'projects');
  const codexSessions = join(codexBase, 'sessions');
  const codexArchived = join(codexBase, 'archived_sessions');
  const geminiTmp = join(home, '.gemini', 'tmp');
  return [
    { agent: 'claude-code', path: claude, roots: await dirIf(claude), via: claudeVia },
    { agent: 'codex', path: codexSessions, roots: await dirIf(codexSessions), via: codexVia },
    { agent: 'codex', path: codexArchived, roots: await dirIf(codexArchived), via: codexVia },
    { agent: 'gemini', path: join(geminiTmp, '*', 'chats'), roots: await geminiChats(geminiTmp), via: null },
  ];
}

/** `<tmp>/<project>/chats` for each project folder that has one, in code point order. */
async function geminiChats(tmp: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await fs.readdir(tmp, { withFileTypes: true })).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name);
  } catch {
    return [];
  }
  names.sort(compareNames);
  const out: string[] = [];
  for (const name of names) {
    const chats = join(tmp, name, 'chats');
    if (await isDirectory(chats)) out.push(chats);
  }
  return out;
}

/**
 * A known store root met while walking a directory (a home folder given as a path): its name, and
 * the sub-folders that hold sessions. Everything else in it (settings, todos, shell history,
 * plugin caches) is configuration, not transcripts, and is not entered.
 */
export const STORE_ROOTS: Readonly<Record<string, { agent: StoreAgent; folders: readonly string[] }>> = {
  '.claude': { agent: 'claude-code', folders: ['projects'] },
  '.codex': { agent: 'codex', folders: ['sessions', 'archived_sessions'] },
  // `tmp/<project>/chats`: the walker expands the project level itself.
  '.gemini': { agent: 'gemini', folders: ['tmp'] },
};

const SEP = String.raw`[\\/]`;
const NAME = String.raw`[^\\/]+`;
/** `…/projects/<project>/<session>.jsonl` and `…/projects/<project>/<session>/subagents/agent-<id>.jsonl`. */
const CLAUDE_PROJECT = new RegExp(`${SEP}projects${SEP}(${NAME})${SEP}(?:${NAME}${SEP}subagents${SEP})?${NAME}\\.jsonl$`, 'i');
/** `…/tmp/<project>/chats/<session>.json(l)`, and sub-agents' `chats/<parent session>/<id>.jsonl`. */
const GEMINI_PROJECT = new RegExp(`${SEP}tmp${SEP}(${NAME})${SEP}chats${SEP}(?:${NAME}${SEP})?${NAME}$`, 'i');
/** Claude Code 2.1: `<session id>/subagents/agent-<agent id>.jsonl`. */
const SUBAGENT_FILE = new RegExp(`(?:^|${SEP})(${NAME})${SEP}subagents${SEP}agent-(${NAME})\\.jsonl$`, 'i');

/**
 * The store folder a session file sits in, when its path has a store's layout: the Claude Code
 * project folder (`-home-me-src-app`, Claude Code's own name for the working directory) or the
 * Gemini CLI project folder. Codex keeps its sessions by date, so its project comes from the
 * transcript (the working directory), not from here.
 */
export function storeProject(path: string): { agent: StoreAgent; project: string } | null {
  const claude = CLAUDE_PROJECT.exec(path);
  if (claude) return { agent: 'claude-code', project: claude[1]! };
  const gemini = GEMINI_PROJECT.exec(path);
  if (gemini) return { agent: 'gemini', project: gemini[1]! };
  return null;
}

/** A Claude Code 2.1 sub-agent file: the parent session's id (its folder) and the agent's id. */
export function subagentFile(path: string): { parent: string; agentId: string } | null {
  const m = SUBAGENT_FILE.exec(path);
  return m ? { parent: m[1]!, agentId: m[2]! } : null;
}

/** The sub-agent's manifest beside its transcript: `agent-<id>.meta.json`. */
export function isSubagentManifest(dir: string, name: string): boolean {
  return basename(dir) === 'subagents' && /^agent-.+\.meta\.json$/i.test(name);
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
  try {
    const stat = await fs.stat(manifest);
    if (!stat.isFile() || stat.size > MANIFEST_MAX_BYTES) return null;
    const value: unknown = JSON.parse(await fs.readFile(manifest, 'utf8'));
    if (typeof value !== 'object' || value === null) return null;
    const type = (value as Record<string, unknown>)['agentType'];
    return typeof type === 'string' && type.length > 0 && type.length <= 200 ? type : null;
  } catch {
    return null;
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
