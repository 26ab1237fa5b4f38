// Gemini CLI: `~/.gemini/tmp/<project>/chats`, sub-agents' threads in `chats/<parent session>/`.

import { geminiHook } from './hook.js';
import { type AgentDefinition, NAME, SEP } from '../types.js';

/** `…/tmp/<project>/chats/<session>.json(l)`, and sub-agents' `chats/<parent session>/<id>.jsonl`. */
const PROJECT = new RegExp(`${SEP}tmp${SEP}(${NAME})${SEP}chats${SEP}(?:${NAME}${SEP})?${NAME}$`, 'i');

export const gemini: AgentDefinition = {
  name: 'gemini',
  label: 'Gemini CLI',
  format: 'gemini',
  verified: '0.61.0',
  places: [{ home: ['.gemini'], sessions: ['tmp', '*', 'chats'] }],
  projectOf: (path) => PROJECT.exec(path)?.[1] ?? null,
  hook: geminiHook,
};
