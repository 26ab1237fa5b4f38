// Qwen Code: `~/.qwen/projects/<project>/chats/<session>.jsonl` (Linux and macOS alike), the
// project folder named after the working directory with `/` turned to `-`.

import { qwenHook } from './hook.js';
import { type AgentDefinition, NAME, SEP } from '../types.js';

/** `…/.qwen/projects/<project>/chats/<session>.jsonl`. */
const PROJECT = new RegExp(`${SEP}\\.qwen${SEP}projects${SEP}(${NAME})${SEP}chats${SEP}${NAME}\\.jsonl$`, 'i');

export const qwen: AgentDefinition = {
  name: 'qwen',
  label: 'Qwen Code',
  format: 'qwen',
  verified: '0.24.4',
  places: [{ home: ['.qwen'], sessions: ['projects', '*', 'chats'] }],
  projectOf: (path) => PROJECT.exec(path)?.[1] ?? null,
  hook: qwenHook,
};
