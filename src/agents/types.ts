// What loopledger knows of one coding agent, in one place (issue 55 item 1): its name and label,
// where its store is and what moves it, and which format adapter reads its files. Each agent is a
// folder beside this file; index.ts gathers them into the one registry the rest derives from.

import type { FormatName } from '../model/transcript.js';
import type { AgentHook } from '../hook/contract.js';

/** SPEC 0.4 "Agents": the names `stores`, `hook`, `--input-format` and the JSON's `agent` use. */
export const AGENT_NAMES = ['claude-code', 'codex', 'gemini', 'opencode', 'kilo', 'qwen', 'copilot', 'cline', 'pi', 'droid', 'openclaw', 'vscode-tasks', 'cursor', 'kimi', 'hermes'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

/**
 * One place a store keeps sessions: a base folder (moved by an environment variable, else under
 * the home folder), and below it the session folder or database. `*` in `sessions` stands for one
 * level of folders (Gemini CLI's and Qwen Code's per-project folders).
 */
interface StorePlace {
  /** The variable that names the base folder itself (CLAUDE_CONFIG_DIR, CODEX_HOME…), or names a folder the base sits in (XDG_DATA_HOME). */
  env?: { name: string; below?: readonly string[] };
  /** The base under the home folder, the same on Linux and macOS. Its first segment is the hidden folder a home walk enters. */
  home: readonly string[];
  /** Below the base. */
  sessions: readonly string[];
  /** The last segment is a database file (SQLite), not a folder of transcripts. */
  file?: boolean;
}

export interface AgentDefinition {
  name: AgentName;
  /** How people call it: `stores` prints it. */
  label: string;
  /** The adapter that reads its store's files (formats/index.ts registers it). */
  format: FormatName;
  /** The release its store was verified against (the README's "What it reads" table). */
  verified: string;
  /** Its store's places, in the order `stores` lists them. */
  places: readonly StorePlace[];
  /**
   * Its store keeps sub-agents' sessions linked to their parent, and `stores` counts them apart:
   * `files`, those in sub-agent files (Claude Code 2.1's `subagents/`); `parent`, the sessions that name a parent.
   */
  childSessions?: 'files' | 'parent';
  /** The store's project folder named in a session file's path, when its layout has one (null: the transcript says). */
  projectOf?(path: string): string | null;
  /**
   * Files in its session folders that sit beside a transcript and are no transcript themselves
   * (Claude Code's sub-agent manifests, Cline's session summaries): the walk passes over them.
   */
  isCompanion?(dir: string, name: string): boolean;
  /** Its live guard's contract: events, payload reading, answers, install and doctor's probe (src/hook runs it). */
  hook?: AgentHook;
}

/** Path pieces the store layouts' patterns are written with. */
export const SEP = String.raw`[\\/]`;
export const NAME = String.raw`[^\\/]+`;
