// OpenCode's SQLite store (and Kilo's, the same tables) read into `opencode export`'s records,
// one session at a time: `session` rows, their `message` rows and each message's `part` rows, in
// the order they were written (ids are time-ordered). The `event` table repeats the same data as
// a log and is not read.

import { rows, type SqlDatabase } from '../read/sqlite.js';
import { jsonObjectCell, type Rec } from './shared/text.js';

/** Whether a database with these tables is OpenCode's store. */
export function isOpencodeDatabase(tables: ReadonlySet<string>): boolean {
  return tables.has('session') && tables.has('message') && tables.has('part');
}

/** Kilo adds its own tables (`kilo_board…`) to OpenCode's. */
function agentOf(tables: ReadonlySet<string>): 'opencode' | 'kilo' {
  return [...tables].some((t) => t.startsWith('kilo_')) ? 'kilo' : 'opencode';
}

/** Each session as `{agent, info, messages: [{info, parts}]}`; a row whose `data` is no JSON object is a skip, named by its id. */
export function* opencodeSessions(db: SqlDatabase, tables: ReadonlySet<string>): Generator<{ record: Rec } | { skip: string }> {
  const agent = agentOf(tables);
  const sessions = rows(db, 'SELECT id, parent_id, directory, title, version, time_created, time_updated FROM session ORDER BY time_created, id');
  for (const s of sessions) {
    const info = {
      id: s.id,
      parentID: s.parent_id ?? undefined,
      directory: s.directory,
      title: s.title,
      version: s.version,
      time: { created: s.time_created, updated: s.time_updated },
    };
    const parts = new Map<string, Rec[]>();
    const skips: string[] = [];
    for (const p of rows(db, 'SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id', [s.id])) {
      const data = jsonObjectCell(p.data);
      if (!data) {
        skips.push(`part ${String(p.id)}: its data is not a JSON object`);
        continue;
      }
      const list = parts.get(p.message_id as string) ?? [];
      list.push({ id: p.id, ...data });
      parts.set(p.message_id as string, list);
    }
    const messages = rows(db, 'SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id', [s.id]).flatMap((m) => {
      const data = jsonObjectCell(m.data);
      if (!data) skips.push(`message ${String(m.id)}: its data is not a JSON object`);
      return data ? [{ info: { id: m.id, sessionID: s.id, ...data }, parts: parts.get(m.id as string) ?? [] }] : [];
    });
    for (const skip of skips) yield { skip };
    yield { record: { agent, info, messages } };
  }
}
