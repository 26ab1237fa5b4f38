// An agent's settings file, read and written the way its owner keeps it: through a symbolic link
// (dotfiles repositories link ~/.claude/settings.json), with its permissions (a 0600 file holding
// an API key stays 0600, and so does its backup), and, for Gemini CLI, with comments.

import { readFileSync, rmSync, statSync } from 'node:fs';
import { followLinks, whyNotReplaceable, writeAtomically } from '../file-in-place.js';

export class SettingsError extends Error {}

export interface SettingsFile {
  /** The path the agent reads. */
  path: string;
  /** Where the bytes are: `path` with every symbolic link followed (it may not exist yet). */
  target: string;
  /** null: no file yet. */
  text: string | null;
  value: unknown;
  /** Permission bits of the existing file, null for a new one. */
  mode: number | null;
  /** The file holds comments, which a rewrite would lose. */
  hasComments: boolean;
}

/**
 * JSON with `//` and `/* *\/` comments (Gemini CLI reads its settings through
 * strip-json-comments, then JSON.parse: packages/cli/src/config/settings.ts) as plain JSON: each comment becomes spaces, newlines kept, so a parse error's
 * position is still the file's line. Strings are skipped whole, so `"http://x"` is no comment.
 */
export function stripComments(text: string): { json: string; found: boolean } {
  let out = '';
  let found = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      found = true;
      let j = i;
      while (j < text.length && text[j] !== '\n') j++;
      out += ' '.repeat(j - i);
      i = j;
    } else if (c === '/' && text[i + 1] === '*') {
      found = true;
      const close = text.indexOf('*/', i + 2);
      const j = close < 0 ? text.length : close + 2;
      out += text.slice(i, j).replace(/[^\n]/g, ' ');
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return { json: out, found };
}

/** JSON with comments, parsed (an empty text is an empty object, as a missing file). Throws as JSON.parse. */
export function parseWithComments(text: string): unknown {
  const { json } = stripComments(text);
  return json.trim() === '' ? {} : JSON.parse(json);
}

/** "line N" for a JSON.parse message that gives a position (Node 20) or a line (Node 22). */
function whereInText(text: string, message: string): string {
  const line = /line (\d+)/.exec(message);
  if (line) return `line ${line[1]}`;
  const pos = /position (\d+)/.exec(message);
  if (pos) return `line ${text.slice(0, Number(pos[1])).split('\n').length}`;
  // "Unexpected end of JSON input": the file stops at its last line.
  return `line ${text.trimEnd().split('\n').length}`;
}

export function readSettings(path: string, comments: boolean): SettingsFile {
  let target: string;
  try {
    target = followLinks(path);
  } catch (e) {
    throw new SettingsError((e as Error).message);
  }
  let text: string;
  let mode: number;
  try {
    const st = statSync(target);
    if (!st.isFile()) throw new SettingsError('not a regular file');
    mode = st.mode & 0o7777;
    text = readFileSync(target, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { path, target, text: null, value: {}, mode: null, hasComments: false };
    if (e instanceof SettingsError) throw e;
    throw new SettingsError(`cannot read it (${(e as Error).message})`);
  }
  const { json, found } = comments ? stripComments(text) : { json: text, found: false };
  if (json.trim() === '') return { path, target, text, value: {}, mode, hasComments: found };
  try {
    return { path, target, text, value: JSON.parse(json), mode, hasComments: found };
  } catch (e) {
    const message = (e as Error).message;
    throw new SettingsError(`not JSON${comments ? ' (comments allowed)' : ''} at ${whereInText(json, message)}: ${message.replace(/\s*\(line \d+ column \d+\)$/, '')}`);
  }
}

/** Why the file cannot be rewritten (checked before any file of an install is written), or null. */
export function whyNotWritable(file: SettingsFile): string | null {
  return whyNotReplaceable(file.target);
}

/**
 * Replace the file's content: the previous bytes go to `<path>.bak` (beside the path the agent
 * reads, where its owner looks, and never into a dotfiles repository a link points to), then the
 * new ones to the link's target. Both keep the file's permissions.
 */
export function writeSettings(file: SettingsFile, text: string): { backup: string | null } {
  let backup: string | null = null;
  const why = whyNotReplaceable(file.target);
  if (why !== null) throw new SettingsError(why);
  try {
    if (file.text !== null) {
      backup = `${file.path}.bak`;
      writeAtomically(backup, file.text, file.mode);
    }
    writeAtomically(file.target, text, file.mode);
  } catch (e) {
    throw new SettingsError(`cannot write it (${(e as Error).message})`);
  }
  return { backup };
}

/** The file as it was before `writeSettings` (an install that could not finish undoes its write). */
export function restoreSettings(file: SettingsFile): void {
  try {
    if (file.text === null) rmSync(file.target, { force: true });
    else writeAtomically(file.target, file.text, file.mode);
  } catch {
    // Its backup beside it still holds the previous content.
  }
}
