// The one registry of agents (issue 55 item 1): `loopledger stores`, the stores read with no path
// and the home walk's store folders are derived from it. Adding an agent is its folder and one
// line here; test/agents-read/registry.test.ts fails for an entry without its fixture, its README
// row or its docs row.

import { claudeCode } from './claude-code/index.js';
import { cline } from './cline/index.js';
import { codex } from './codex/index.js';
import { copilot } from './copilot/index.js';
import { droid } from './droid/index.js';
import { cursor } from './cursor/index.js';
import { gemini } from './gemini/index.js';
import { kilo } from './kilo/index.js';
import { kimi } from './kimi/index.js';
import { hermes } from './hermes/index.js';
import { openclaw } from './openclaw/index.js';
import { opencode } from './opencode/index.js';
import { pi } from './pi/index.js';
import { qwen } from './qwen/index.js';
import type { AgentDefinition } from './types.js';
import { vscodeTasks } from './vscode-tasks/index.js';

/** In the order `stores` lists them. */
export const AGENTS: readonly AgentDefinition[] = [claudeCode, codex, gemini, opencode, kilo, copilot, qwen, cline, pi, droid, openclaw, vscodeTasks, cursor, kimi, hermes];

