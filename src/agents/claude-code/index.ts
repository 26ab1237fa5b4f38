// Claude Code: `$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`, one folder per working
// directory (Claude Code's own name for it), sub-agents in `<session>/subagents/agent-<id>.jsonl`.

import { basename } from 'node:path';
import { claudeCodeHook } from './hook.js';
import { type AgentDefinition, NAME, SEP } from '../types.js';

/** `…/projects/<project>/<session>.jsonl` and `…/projects/<project>/<session>/subagents/agent-<id>.jsonl`. */
const PROJECT = new RegExp(`${SEP}projects${SEP}(${NAME})${SEP}(?:${NAME}${SEP}subagents${SEP})?${NAME}\\.jsonl$`, 'i');

export const claudeCode: AgentDefinition = {
  name: 'claude-code',
  label: 'Claude Code',
  format: 'claude-code',
  verified: '2.1.332',
  places: [{ env: { name: 'CLAUDE_CONFIG_DIR' }, home: ['.claude'], sessions: ['projects'] }],
  childSessions: 'files',
  projectOf: (path) => PROJECT.exec(path)?.[1] ?? null,
  // The sub-agent's manifest beside its transcript: `agent-<id>.meta.json`.
  isCompanion: (dir, name) => basename(dir) === 'subagents' && /^agent-.+\.meta\.json$/i.test(name),
  hook: claudeCodeHook,
};
