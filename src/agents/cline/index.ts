// Cline (the CLI): `~/.cline/data/sessions/<id>/<id>.messages.json` (Linux and macOS alike;
// `--data-dir` or `--config` names another folder: give it by path). Beside each transcript
// `<id>.json` summarises the session (status, usage): no transcript, passed over by the walk.

import { basename, dirname } from 'node:path';
import { clineHook } from './hook.js';
import type { AgentDefinition } from '../types.js';

export const cline: AgentDefinition = {
  name: 'cline',
  label: 'Cline',
  format: 'cline',
  verified: '3.0.65',
  places: [{ home: ['.cline'], sessions: ['data', 'sessions'] }],
  isCompanion: (dir, name) => name === `${basename(dir)}.json` && basename(dirname(dir)) === 'sessions',
  hook: clineHook,
};
