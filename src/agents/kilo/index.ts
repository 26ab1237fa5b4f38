// Kilo (the Kilo Code CLI, built on OpenCode): OpenCode's store under its own name,
// `$XDG_DATA_HOME/kilo/kilo.db` or `~/.local/share/kilo/kilo.db`, with tables of its own beside
// OpenCode's (`kilo_board…`), which is how a session is told to be Kilo's.

import { kiloHook } from './hook.js';
import type { AgentDefinition } from '../types.js';

export const kilo: AgentDefinition = {
  name: 'kilo',
  label: 'Kilo',
  format: 'opencode',
  verified: '7.7.7',
  places: [{ env: { name: 'XDG_DATA_HOME', below: ['kilo'] }, home: ['.local', 'share', 'kilo'], sessions: ['kilo.db'], file: true }],
  childSessions: 'parent',
  hook: kiloHook,
};
