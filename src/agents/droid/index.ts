// Factory's Droid: `~/.factory/sessions/<cwd>/<session>.jsonl` on Linux and macOS alike;
// FACTORY_HOME_OVERRIDE stands for the home folder (`$FACTORY_HOME_OVERRIDE/.factory/sessions`).
// Beside each transcript `<session>.settings.json` (and its `.bak`) holds the session's model,
// autonomy and token totals: no transcript, passed over by the walk.

import { basename, dirname } from 'node:path';
import { droidHook } from './hook.js';
import type { AgentDefinition } from '../types.js';

export const droid: AgentDefinition = {
  name: 'droid',
  label: 'Droid',
  format: 'droid',
  verified: '0.225.2',
  places: [{ env: { name: 'FACTORY_HOME_OVERRIDE', below: ['.factory'] }, home: ['.factory'], sessions: ['sessions'] }],
  isCompanion: (dir, name) => name.endsWith('.settings.json') && [basename(dir), basename(dirname(dir))].includes('sessions'),
  hook: droidHook,
};
