// Codex: `$CODEX_HOME/sessions` and `archived_sessions`, or `~/.codex/…`, kept by date: a
// session's project comes from its transcript (the working directory), not from its path.

import { codexHook } from './hook.js';
import type { AgentDefinition } from '../types.js';

export const codex: AgentDefinition = {
  name: 'codex',
  label: 'Codex',
  format: 'codex',
  verified: '0.171.0',
  places: [
    { env: { name: 'CODEX_HOME' }, home: ['.codex'], sessions: ['sessions'] },
    { env: { name: 'CODEX_HOME' }, home: ['.codex'], sessions: ['archived_sessions'] },
  ],
  hook: codexHook,
};
