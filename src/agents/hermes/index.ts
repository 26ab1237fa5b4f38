// Hermes Agent (NousResearch/hermes-agent): one SQLite store, `~/.hermes/state.db`, on Linux and
// macOS alike; HERMES_HOME names the folder that stands for `~/.hermes` (hermes_constants.py's
// get_hermes_home, hermes_state.py's DEFAULT_DB_PATH, 0.18.0).

import type { AgentDefinition } from '../types.js';

export const hermes: AgentDefinition = {
  name: 'hermes',
  label: 'Hermes Agent',
  format: 'hermes',
  verified: '0.18.0',
  places: [{ env: { name: 'HERMES_HOME' }, home: ['.hermes'], sessions: ['state.db'], file: true }],
  childSessions: 'parent',
};
