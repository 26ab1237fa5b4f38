// OpenCode: one SQLite database, `$XDG_DATA_HOME/opencode/opencode.db` or
// `~/.local/share/opencode/opencode.db` (the same on macOS: OpenCode uses the XDG layout there
// too), held open in WAL mode while it runs. Child sessions (its task tool) name their parent.
// OPENCODE_DB and non-release channels (`opencode-<channel>.db`) move it elsewhere: name the file.

import { opencodeHook } from './hook.js';
import type { AgentDefinition } from '../types.js';

export const opencode: AgentDefinition = {
  name: 'opencode',
  label: 'OpenCode',
  format: 'opencode',
  verified: '1.18.33',
  places: [{ env: { name: 'XDG_DATA_HOME', below: ['opencode'] }, home: ['.local', 'share', 'opencode'], sessions: ['opencode.db'], file: true }],
  childSessions: 'parent',
  hook: opencodeHook,
};
