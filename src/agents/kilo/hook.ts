// Kilo loads OpenCode's plugins (seen on 7.7.7): the same plugin, in ~/.config/kilo/plugin/
// (project: .kilo/plugin/, the folder its binary names).

import { join, resolve } from 'node:path';
import { configDir, pluginHook } from '../opencode/hook.js';

export const kiloHook = pluginHook('kilo', (env) => join(configDir(env, 'kilo'), 'plugin'), (cwd) => resolve(cwd, '.kilo/plugin'));
