// Cursor's store: the editor's global `state.vscdb`, a SQLite key/value table `cursorDiskKV` of
// JSON. `composerData:<composer id>` is one chat (its bubbles' order in
// `fullConversationHeadersOnly`, its sub-chats in `subComposerIds`); `bubbleId:<composer
// id>:<bubble id>` is one message. Each chat with bubbles becomes one record, its bubbles in the
// order the chat shows them: bubbles no header names (a rolled-back attempt) are not read.

import { rows, type SqlDatabase } from '../read/sqlite.js';
import { isRec, jsonObjectCell, type Rec } from './shared/text.js';

/** Whether a database with these tables is Cursor's store (its workspace databases have no cursorDiskKV). */
export function isCursorDatabase(tables: ReadonlySet<string>): boolean {
  return tables.has('cursorDiskKV');
}

/** Each chat as `{composer, parent, bubbles}`; a chat or bubble whose value is no JSON object is a skip. */
export function* cursorSessions(db: SqlDatabase): Generator<{ record: Rec } | { skip: string }> {
  const composers: Rec[] = [];
  for (const row of rows(db, "SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%' ORDER BY key")) {
    if (row.value === null) continue; // an emptied chat: Cursor keeps the key
    const composer = jsonObjectCell(row.value);
    if (!composer || typeof composer.composerId !== 'string') {
      yield { skip: `${String(row.key)}: its value is not a chat (a JSON object with composerId)` };
      continue;
    }
    composers.push(composer);
  }
  // A sub-chat (a sub-agent's) names no parent: its parent lists it.
  const parentOf = new Map<string, string>();
  for (const c of composers) for (const child of Array.isArray(c.subComposerIds) ? c.subComposerIds : []) if (typeof child === 'string') parentOf.set(child, c.composerId as string);
  composers.sort((a, b) => (Number(a.createdAt) || 0) - (Number(b.createdAt) || 0));
  for (const composer of composers) {
    const id = composer.composerId as string;
    const headers = Array.isArray(composer.fullConversationHeadersOnly) ? composer.fullConversationHeadersOnly.filter(isRec) : [];
    if (headers.length === 0) continue; // opened and never used
    const byId = new Map<string, Rec>();
    for (const row of rows(db, 'SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?', [`bubbleId:${id}:`, `bubbleId:${id};`])) {
      const bubble = jsonObjectCell(row.value);
      if (bubble) byId.set(String(row.key).slice(`bubbleId:${id}:`.length), bubble);
      else yield { skip: `${String(row.key)}: its value is not a JSON object` };
    }
    const bubbles = headers.flatMap((h) => {
      const bubble = typeof h.bubbleId === 'string' ? byId.get(h.bubbleId) : undefined;
      return bubble ? [bubble] : [];
    });
    yield { record: { composer, parent: parentOf.get(id) ?? null, bubbles } };
  }
}
