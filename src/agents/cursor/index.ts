// Cursor: its chats live in the editor's global database, `~/.config/Cursor/User/globalStorage/
// state.vscdb` on Linux (moved by XDG_CONFIG_HOME, as Electron does) and `~/Library/Application
// Support/Cursor/User/globalStorage/state.vscdb` on macOS: SQLite, held open by the editor, read
// as a snapshot. The per-workspace `workspaceStorage/<hash>/state.vscdb` files hold only an index
// of the chats (no messages): passed over by a folder walk.

import { basename } from 'node:path';
import type { AgentDefinition } from '../types.js';

const STORE = ['Cursor', 'User', 'globalStorage', 'state.vscdb'];

export const cursor: AgentDefinition = {
  name: 'cursor',
  label: 'Cursor',
  format: 'cursor',
  verified: '1.5.11',
  places: [
    { env: { name: 'XDG_CONFIG_HOME' }, home: ['.config'], sessions: STORE, file: true },
    { home: ['Library', 'Application Support'], sessions: STORE, file: true },
  ],
  isCompanion: (dir, name) => name === 'state.vscdb' && basename(dir) !== 'globalStorage',
};
