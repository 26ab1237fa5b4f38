// Hermes Agent's SQLite store (`~/.hermes/state.db`, hermes_state.py): a `sessions` row per
// session and its `messages` rows in the order they were written (`id` autoincrements). The FTS
// tables repeat the messages' text for search and are not read.

import { rows, type SqlDatabase } from '../read/sqlite.js';
import type { Rec } from './shared/text.js';

/** Whether a database with these tables is Hermes Agent's store. */
export function isHermesDatabase(tables: ReadonlySet<string>): boolean {
  return tables.has('sessions') && tables.has('messages') && tables.has('schema_version');
}

/**
 * Each session as `{hermesSession, messages}`, in the order sessions began. `SELECT *`: the
 * columns grew over Hermes's schema versions, and the adapter reads only those it finds.
 */
export function* hermesSessions(db: SqlDatabase): Generator<{ record: Rec }> {
  for (const session of rows(db, 'SELECT * FROM sessions ORDER BY started_at, id')) {
    const messages = rows(db, 'SELECT * FROM messages WHERE session_id = ? ORDER BY id', [session.id]);
    yield { record: { hermesSession: session, messages } };
  }
}
