// An OpenHands V1 (software-agent-sdk) conversation is saved as a folder, not a file:
// `<conversation>/base_state.json` and `<conversation>/events/event-<5-digit index>-<uuid>.json`, one
// event per file. Such a folder is one transcript: discovery yields the folder itself as one input
// (instead of dozens of unrecognized event files), and the reader reads it as one stream of records.

import { promises as fs, statSync } from 'node:fs';
import { join } from 'node:path';

const BASE_STATE = 'base_state.json';
const EVENTS_DIR = 'events';

const EVENT_FILE = /^event-\d+-.*\.json$/i;

/** Whether a folder holding these entries is a V1 conversation: a base_state.json and an events folder. */
export function isConversationDir(entries: readonly { name: string; isFile(): boolean; isDirectory(): boolean }[]): boolean {
  let state = false;
  let events = false;
  for (const e of entries) {
    if (e.name === BASE_STATE && e.isFile()) state = true;
    else if (e.name === EVENTS_DIR && e.isDirectory()) events = true;
  }
  return state && events;
}

/** Whether `path` is a directory that holds a V1 conversation (false for files and unreadable paths). */
export async function isConversationPath(path: string): Promise<boolean> {
  // Blocking stats: asked of every input file, and two thread-pool round trips per file were a
  // twentieth of a worker's time over a store of small session files.
  try {
    if (!statSync(join(path, BASE_STATE), { throwIfNoEntry: false })?.isFile()) return false;
    return statSync(join(path, EVENTS_DIR), { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** One file of a conversation folder: its name relative to the folder, and its text or why it could not be read. */
export type ConversationFile = { name: string; text: string } | { name: string; error: string };

/**
 * The folder's files in reading order: base_state.json, then the event files sorted by name (their
 * zero-padded index). One file is read at a time, so memory holds one event, not the conversation.
 * Rejects only when the events folder cannot be listed.
 */
export async function* conversationFiles(dir: string): AsyncGenerator<ConversationFile> {
  const names = (await fs.readdir(join(dir, EVENTS_DIR))).filter((n) => EVENT_FILE.test(n)).sort(compareNames);
  for (const name of [BASE_STATE, ...names.map((n) => `${EVENTS_DIR}/${n}`)]) {
    try {
      yield { name, text: await fs.readFile(join(dir, name), 'utf8') };
    } catch (err) {
      yield { name, error: describe(err) };
    }
  }
}

// Indices are zero-padded to five digits, but a conversation past 99,999 events would widen them:
// compare the index numerically first.
function compareNames(a: string, b: string): number {
  const ia = Number(/^event-(\d+)/i.exec(a)?.[1]);
  const ib = Number(/^event-(\d+)/i.exec(b)?.[1]);
  if (ia !== ib) return ia - ib;
  return a < b ? -1 : a > b ? 1 : 0;
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ENOENT') return 'no such file';
  if (e?.code === 'EACCES' || e?.code === 'EPERM') return 'permission denied';
  if (e instanceof RangeError || e?.code === 'ERR_STRING_TOO_LONG') return 'too large to read';
  return e?.message ?? String(err);
}
