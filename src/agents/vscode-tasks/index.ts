// The VS Code extensions that keep one folder per task (SPEC 0.4 `vscode-tasks`): Cline's
// extension, Roo Code and Kilo Code write `<editor>/User/globalStorage/<extension id>/tasks/<task
// id>/api_conversation_history.json` beside `ui_messages.json` and `task_metadata.json` (display
// and bookkeeping copies, passed over). The editor folder is `~/.config/<editor>` on Linux (moved
// by XDG_CONFIG_HOME, as Electron does), `~/Library/Application Support/<editor>` on macOS, and
// `~/.vscode-server/data` for a remote window; `*` takes every editor (Code, Code - Insiders,
// VSCodium, Cursor…). A portable install or `--user-data-dir` elsewhere: name the folder.

import { basename, dirname } from 'node:path';
import type { AgentDefinition } from '../types.js';

/** Cline, Roo Code, Kilo Code: their Marketplace ids, lower-cased as VS Code names the folders. */
const EXTENSIONS = ['saoudrizwan.claude-dev', 'rooveterinaryinc.roo-cline', 'kilocode.kilo-code'] as const;

const TASK_FILE = 'api_conversation_history.json';

export const vscodeTasks: AgentDefinition = {
  name: 'vscode-tasks',
  label: 'VS Code task folders',
  format: 'vscode-tasks',
  verified: '3.51.0',
  places: [
    ...EXTENSIONS.map((ext) => ({ env: { name: 'XDG_CONFIG_HOME' }, home: ['.config'], sessions: ['*', 'User', 'globalStorage', ext, 'tasks'] })),
    ...EXTENSIONS.map((ext) => ({ home: ['Library', 'Application Support'], sessions: ['*', 'User', 'globalStorage', ext, 'tasks'] })),
    ...EXTENSIONS.map((ext) => ({ home: ['.vscode-server'], sessions: ['data', 'User', 'globalStorage', ext, 'tasks'] })),
  ],
  isCompanion: (dir, name) => name !== TASK_FILE && inTasksFolder(dir),
};

/** A task folder (or a folder below one) of the three extensions: `…/<extension id>/tasks/<task>…`. */
function inTasksFolder(dir: string): boolean {
  for (let d = dir, i = 0; i < 4 && d !== dirname(d); d = dirname(d), i++) {
    if (basename(d) === 'tasks' && (EXTENSIONS as readonly string[]).includes(basename(dirname(d)))) return true;
  }
  return false;
}
