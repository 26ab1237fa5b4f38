// GitHub Copilot CLI: `$COPILOT_HOME/session-state/<session id>/events.jsonl`, or
// `~/.copilot/session-state/…` (Linux and macOS alike). Only events.jsonl is a transcript: the
// folder's other files (workspace.yaml, checkpoints, rewind snapshots) and the SQLite
// `session-store.db` (sessions, turns and usage, no tool calls) are passed over.

import { basename, dirname } from 'node:path';
import { copilotHook } from './hook.js';
import type { AgentDefinition } from '../types.js';

export const copilot: AgentDefinition = {
  name: 'copilot',
  label: 'Copilot CLI',
  format: 'copilot',
  verified: '1.0.102',
  places: [{ env: { name: 'COPILOT_HOME' }, home: ['.copilot'], sessions: ['session-state'] }],
  childSessions: 'parent',
  isCompanion: (dir, name) => name !== 'events.jsonl' && inSessionState(dir),
  hook: copilotHook,
};

function inSessionState(dir: string): boolean {
  for (let d = dir, i = 0; i < 4 && d !== dirname(d); d = dirname(d), i++) if (basename(d) === 'session-state') return true;
  return false;
}
